"""A two-part question whose second part is elliptic, its missing words filled from the first
(issue 16): "What is the maximum operating temperature of the ESP32-PICO-D4, and the minimum?",
"ESP32-PICO-D4的工作电压是多少，CH583呢？", "What was 3M's revenue in 2018 and in 2019?". The
second part names only what differs — a subject, a year, the other end of a range, another
attribute — and inherits the rest of the first part: its predicate when it names a subject
(CH583 → "CH583的工作电压是多少？"), its subject when it names an attribute ("the power
consumption" → "What is the power consumption of the CH583?"). Before, the whole question went
to retrieval as one and only the first part was answered.

The joint is the last ``, and`` / ``? And`` / ``, what about`` or `` and`` before a preposition
("in 2018 and in 2019"; not "the Marketing and Editorial team") in English, ``，`` / ``；`` /
``？`` (not a digit group's comma, 49,100) in Chinese, where the second part opens with 那 /
还有 / 以及 or ends with 呢 / 怎么样 / 是多少. The split is made only when

- the English first part holds no comma (a list: "cash, cash equivalents, and restricted
  cash");

- the first part is one question (a wh-word or auxiliary first in English, a question word in
  Chinese) that compares or sums nothing (between, difference, both, total …; 区别, 比较,
  之间, 合计 …: "the difference between CH583 and CH582" is one question);
- the second part asks nothing of its own: at most six English words with no wh-word, verb or
  auxiliary ("what is" / "what was" before it is dropped: ", and what is the minimum?"), or a
  Chinese phrase with no question word and no verb (呢, 怎么样, 是多少 after it dropped);
- its place in the first part is found: :func:`gateway.routing.slots.fill_slot` (a value of the
  same shape, the other end of a word, a noun phrase with the same head word, the A or B of
  A的B是多少), else in English "the X of Y": a name replaces Y, another noun phrase X.

Usage example::

    >>> split_elliptic("What was 3M's revenue in 2018 and in 2019?")
    ["What was 3M's revenue in 2018?", "What was 3M's revenue in 2019?"]
    >>> split_elliptic("What is the difference between CH583 and CH582?") is None
    True

Pure, no I/O; used by :func:`gateway.routing.decompose.decompose` (rule ``elliptic``).
"""

from __future__ import annotations

import re

import rjieba

from corpus.evidence.units import CJK
from gateway.routing.followup import content_en, content_zh
from gateway.routing.slots import fill_slot

__all__ = ["ZH_ASK", "opens_asking", "split_elliptic"]

# a bare " and " only before a preposition ("in 2018 and in 2019"): "the Marketing and Editorial
# team", "regulation and policy on …" are one noun phrase
# or before a last year or code alone ("in 2018 and 2019", "of the K-100 and the K-200"): a
# value of the shape the first part holds (gateway.routing.slots, rule shape)
_EN_JOINT = re.compile(
    r"[,;?]\s*(?:and(?:\s+also)?|as well as|plus)\s+(?:(?:what|how)\s+about\s+)?"
    r"|[,;?]\s*(?:what|how)\s+about\s+"
    r"|\s+and\s+(?=(?:in|for|of|on|at|during|from|by)\s)"
    r"|\s+and\s+(?=(?:(?:the|fiscal|FY)\s*)?(?:(?:19|20)\d\d|[A-Za-z]+-?\d[A-Za-z0-9-]*)"
    r"\s*[?.!]?\s*$)", re.IGNORECASE)
_ZH_JOINT = re.compile(r"(?:[，；;？?]|(?<!\d),(?!\d))\s*(?P<lead>那么?|还有|以及|而|另外)?\s*")
_ZH_ELLIPTIC_END = re.compile(r"(?:呢|怎么样|如何|又是多少|是多少)$")


def opens_asking(words: str) -> re.Pattern[str]:
    """A question opening with one of ``words`` (a regex alternation, grouped), in any case,
    after an optional lead clause ending in a comma ("In the MEDDPPICC framework, what …") and
    an optional preposition ("In which year …"); used with ``match``. The first part of an
    elliptic pair is asked this way, and so is each part of a conjoined English question
    (:func:`gateway.routing.decompose.decompose`, with its own wh-words)."""
    return re.compile(rf"^(?:[^,?]{{3,80}},\s*)?(?:(?:at|in|on|for|by|to|from|under|with|of)\s+)?"
                      rf"{words}\b", re.IGNORECASE)


_EN_ASKS = opens_asking(
    r"(?:what|which|who|whom|whose|when|where|why|how|is|are|was|were|does|do|did|can|could|"
    r"should|must|will|would|has|have|had)")
_EN_VERBISH = re.compile(
    r"\b(?:what|which|who|whom|whose|when|where|why|how|is|are|was|were|be|been|do|does|did|"
    r"can|could|should|must|will|would|shall|may|might|has|have|had|it|they|them|this|that)\b",
    re.IGNORECASE)
_EN_WHOLE = re.compile(
    r"\b(?:between|differen\w*|differ|compar\w*|both|ratio|sum|total|combined|together|versus|"
    r"vs|relationship|either|neither|respectively|each)\b", re.IGNORECASE)
_EN_ASK_LEAD = re.compile(r"^(?:what|how much|how many)\s+(?:is|are|was|were)\s+(?:it\s+)?"
                          r"(?:for\s+|in\s+)?", re.IGNORECASE)
#: a Chinese question word, searched for (so 为什么 is also 什么): an elliptic pair's first part
#: holds one and its second part none; decompose's conjoined clauses each hold one
ZH_ASK = re.compile(r"多少|什么|哪|几|多久|多长|多大|多高|如何|怎样|怎么|是否|吗|谁|为什么")
_ZH_WHOLE = re.compile(r"区别|差别|差异|不同|异同|比较|对比|之间|相比|合计|总共|之和|一共|分别|各")
_ZH_TAIL = re.compile(r"(?:的)?(?:又)?(?:是多少|是什么|怎么样|如何|呢)+$")
_EN_OF = re.compile(
    r"^(?P<ask>(?:what|how much|how many)\s+(?:is|are|was|were)\s+)(?P<the>the\s+)?"
    r"(?P<attr>[^,?]{2,50}?)\s+(?P<prep>of|for)\s+(?P<subj>[^,?]{2,60}?)\s*\??$", re.IGNORECASE)
_NAME = re.compile(r"[A-Za-z]*\d[A-Za-z0-9-]*|(?<!^)\b[A-Z][A-Za-z0-9&.-]+")
_TAIL_WORDS = 6


def _tail_en(tail: str) -> str | None:
    """The elided part's own words, or ``None`` when it asks something of its own."""
    core = _EN_ASK_LEAD.sub("", tail.strip().rstrip("?.! ")).strip()
    if (not core or len(core.split()) > _TAIL_WORDS or _EN_VERBISH.search(core)
            or not content_en(core)):
        return None
    return core


def _tail_zh(tail: str) -> str | None:
    core = _ZH_TAIL.sub("", tail.strip().rstrip("？?。!！ ")).strip()
    if not core or ZH_ASK.search(core) or content_zh(core) > 12:
        return None
    if not core.endswith("的") and any(tag in ("v", "vd", "vi") for _t, tag in rjieba.tag(core)):
        return None  # a clause with its own verb asks its own question
    return core


def _attribute_en(head: str, core: str) -> str | None:
    """``What is the X of Y?``: a name (a code, a capitalised word) replaces Y, another noun
    phrase X."""
    m = _EN_OF.match(head)
    if m is None:
        return None
    bare = re.sub(r"^(?:the|a|an)\s+", "", core, flags=re.IGNORECASE)
    prep = m["prep"]
    if _NAME.search(core):
        return f"{m['ask']}{m['the'] or ''}{m['attr']} {prep} {core}?"
    return f"{m['ask']}the {bare} {prep} {m['subj']}?"


def split_elliptic(question: str) -> list[str] | None:
    """``[first part, second part filled]`` for a two-part question whose second part is
    elliptic (module docstring), or ``None`` (not such a question, or no place to fill).

    :param question: the question as asked (one message).
    """
    q = question.strip().rstrip("？?。.!！ ")
    zh = bool(CJK.search(q))
    joints = list((_ZH_JOINT if zh else _EN_JOINT).finditer(q))
    if not joints:
        return None
    j = joints[-1]
    head, tail = q[: j.start()].strip(), q[j.end():].strip()
    if not head or not tail or re.search(r"[?？]", head):
        return None  # several questions before the joint: not two parts
    if not zh and "," in head:
        return None  # "cash, cash equivalents, and restricted cash": a list, not two parts
    if zh and not (j.group("lead") or _ZH_ELLIPTIC_END.search(tail)):
        return None  # a clause of the question (文中提及，…), not an elliptic part
    mark = "？" if zh else "?"
    first = head.rstrip("，,；;。. ") + mark
    if zh:
        core = _tail_zh(tail)
        if core is None or not ZH_ASK.search(head) or _ZH_WHOLE.search(q):
            return None
    else:
        core = _tail_en(tail)
        if core is None or not _EN_ASKS.match(head) or _EN_WHOLE.search(q):
            return None
    filled = fill_slot(first, core)
    if filled and not zh and filled[1] == "head" and j.group(0).lstrip()[:1] not in ",;?":
        filled = None
    second = filled[0] if filled else (None if zh else _attribute_en(first, core))
    if not second or second == first:
        return None
    return [first, second[:1].upper() + second[1:]]
