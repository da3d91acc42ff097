"""Is a question a follow-up that leans on an earlier turn, or a standalone question?

One test for the whole gateway: the conversation stage rewrites only follow-ups
(``gateway.conversation.rewrite``) and, without a conversation stage, the router prepends the
previous user turn to a follow-up for retrieval (``gateway.routing.rules.retrieval_query``).
A standalone question asked after an unrelated one must reach retrieval as it was asked: the
earlier test fired on any "their", "the first", "its" or 其 anywhere in a question, so "Has
Microsoft increased its debt …" or "卡特在其任内 …" were rewritten as the previous question
followed by the new one (11 % of the dev questions that carry no context, 60 of 531).

A question is a follow-up (:func:`followup_reason` names the first cue that fired) when

- ``lead`` — it opens with a connective that continues a conversation: and / but / also / or /
  then / what about / how about / same for; 那 / 那么 / 还有 / 另外 / 而 / 然后 (那 followed
  by a classifier, 那台 / 那份, is a demonstrative: see ``pronoun``), unless what follows asks
  its own question about a deictic noun phrase and leans on nothing else ("And what is this
  product's price?", 那这个产品的价格是多少？);
- ``ordinal`` — a step along a list with nothing to step from: "the next one", "the following
  type", "the one below it", "the level above that", 下一个 — an ordinal whose noun is its own
  ("the first page", "the last 4 chapters", "the first item listed under 'Furniture'",
  下一个工作日) is not;
- ``pronoun`` — it / its / they / them / their / this / that / these / those / he / she / his /
  her (English), 它 / 它们 / 其 / 该 and a demonstrative with a classifier (这个, 那份, 该项 …)
  (Chinese), when fewer than :data:`ANTECEDENT_MIN` content words stand before it in the
  question (nothing it could refer to there) or it ends the question ("When must team members
  submit it?"), and the whole question holds fewer than
  :data:`OWN_CONTENT_MIN` (English words) / :data:`OWN_CONTENT_MIN_ZH` (Chinese characters) of
  its own content; compounds (其他, 其中, 尤其, 及其, 应该 …), "it" of "is it possible / it is
  required to …", relative "that" and a demonstrative before a noun of its own (a deictic
  noun phrase: "What is this product's price?", 这个产品的价格是多少？;
  :func:`gateway.routing.wordclass.determiner`) are not pronouns here;
- ``ellipsis`` — "which one / which of them …", or it ends with 呢 and is short
  (≤ :data:`ELLIPSIS_ZH_MAX` content characters), or it is short (≤ 3 English words / ≤ 8
  Chinese characters) with almost no content of its own ("Why?", "How much?", 多少钱？) or, in
  Chinese, no noun (具体怎么操作？, 需要多久？; jieba's part-of-speech tags) — "What is GDPR?"
  and 什么是静电感应？ are standalone.

The thresholds are the writer's choice, checked on the dev questions without context: 0 of the
2,834 unique ones (en, zh, zh_pdf, zh_full) flagged (the earlier test: 60 of the 531 of en, zh
and zh_pdf); the 12 unique ones with context all flagged; and on the unit tests' own examples
(``tests/gateway/test_followup.py``).
"""

from __future__ import annotations

import re

import rjieba

from corpus.labels import asked_item
from gateway.routing.wordclass import (
    CJK,
    CLASSIFIER,
    WORD,
    content_en,
    content_zh,
    determiner,
    t2s,
)

__all__ = [
    "ANTECEDENT_MIN",
    "ELLIPSIS_ZH_MAX",
    "LEAD_EN",
    "LEAD_ZH",
    "NOT_PRONOUN_ZH",
    "OWN_CONTENT_MIN",
    "OWN_CONTENT_MIN_ZH",
    "content_en",
    "content_zh",
    "dangling_ordinal",
    "dangling_pronoun",
    "elliptic",
    "followup_reason",
    "is_followup",
    "mask_not_pronouns",
]

#: content words before a pronoun that can be its antecedent ("Has Microsoft increased its …")
ANTECEDENT_MIN = 2
#: English content words that make a question with a pronoun stand on its own
OWN_CONTENT_MIN = 5
#: Chinese content characters that make a question with a pronoun stand on its own
OWN_CONTENT_MIN_ZH = 15
#: most Chinese content characters of an elliptic 呢 follow-up ("那2019年呢？", "CH583的呢？")
ELLIPSIS_ZH_MAX = 10

LEAD_EN = re.compile(r"^\s*(?:and|but|also|or|then|plus|what about|how about|what of|same for)"
                      r"\b", re.IGNORECASE)
#: a Chinese connective opening a follow-up (那 before a classifier is a demonstrative)
LEAD_ZH = re.compile(rf"^\s*(?:那么|那(?![{CLASSIFIER}])|还有|另外|而且?|然后|此外)")
_STEP = ("one|ones|item|items|type|category|level|row|entry|channel|section|layer|division|step|"
         "stage|tier|group|clause|rule|option")
_ORD_EN = re.compile(
    r"\b(?:the\s+)?(?:next|following|subsequent|previous|preceding|prior|last|first|final)"
    r"(?![\w-])(?P<noun>\s+(?:" + _STEP + r")\b)?(?=(?P<rest>.*))"
    r"|\b(?:the\s+)?(?:" + _STEP + r")\s+(?:after|before|below|above|under|beneath)\b"
    r"(?P<ref>\s+(?:that|it|this|these|those)\b)?(?=(?P<rest2>.*))",
    re.IGNORECASE)
_PRONOUN_EN = re.compile(r"\b(?:its|it|they|them|their|these|those|this|that|he|she|his|her)\b"
                         r"|\bthe (?:former|latter)\b", re.IGNORECASE)
_EXPLETIVE = re.compile(
    r"\bit(?:\s+(?:is|was|'s|be))?\s+(?:possible|necessary|required|allowed|mandatory|ok|okay|"
    r"true|important|recommended|permitted|acceptable|common|normal|reasonable)\b"
    r"|\b(?:is|was|does)\s+it\s+(?:possible|necessary|required|allowed|mandatory|ok|okay|true|"
    r"important|recommended|permitted|acceptable)\b"
    # "How long does it take for the refund to arrive?": the time of what follows
    r"|\b(?:does|did|will|would|can|could)\s+it\s+take\b|\bit\s+(?:takes|took)\b",
    re.IGNORECASE)
#: words holding 其 / 该 / 这 / 那 that are no pronoun (其他, 应该, 那么 …)
NOT_PRONOUN_ZH = re.compile(r"其[他它中实余次间后前一]|及其|与其|尤其|极其|何其|应该|该当|"
                             r"活该|本该|理该|那么|那样|这样|这么|那里|这里|那儿|这儿|那时|"
                             r"这时")
_PRONOUN_ZH = re.compile(rf"它们?|其|该|[这那][{CLASSIFIER}]|这(?=是)|那(?=是)")


def mask_not_pronouns(text: str) -> str:
    """``text`` with the words of :data:`NOT_PRONOUN_ZH` blanked (full-width spaces, same
    length: positions keep), so 其 of 其他 or 该 of 应该 is not read as a pronoun."""
    return NOT_PRONOUN_ZH.sub(lambda m: "　" * len(m.group(0)), text)
_ASK = re.compile(r"\b(?:what|which|who|whom|whose|when|where|why|how|is|are|was|were|do|does|"
                  r"did|can|could|should|must|will|would)\b|多少|什么|哪|几|多久|多长|如何|怎样|"
                  r"怎么|为什么|是否|能否|吗|谁", re.IGNORECASE)
_ORD_ZH = re.compile(rf"(?:下|上|前|后|最后)一[{CLASSIFIER}级]")
#: nouns of a step along a list (下一个阶段呢): an ordinal before them still needs a list
_STEP_ZH = frozenset("阶段 步骤 步 级别 等级 层 层级 部分 环节 条款 项目 选项 章 节 类型 "
                     "类别 档 档次 职级 岗位 级".split())


def dangling_ordinal(q: str) -> str | None:
    """The step along a list ``q`` takes with nothing to step from ("the next one", 下一条),
    or ``None`` (cue ``ordinal``, module docstring)."""
    for m in _ORD_EN.finditer(q):
        found = m.group(0).strip()
        if found.lower() == "last" and q[: m.start()].strip():
            continue  # the verb: "How long does the warranty of the pump last?"
        if m.group("rest2") is not None:  # "the one below (it)", "the level above that"
            if m.group("ref") is not None or not content_en(m.group("rest2")):
                return found
            continue  # "the level above the Director level"
        rest = m.group("rest").strip()
        if not rest or rest[0] in "?,.!？，。":
            return found  # "And the last?", "For the next item, are family plans covered?"
        if m.group("noun") is not None and not content_en(rest):
            return found  # "What is the next step?"
        # else "the first page", "the first step to request access", "which of the following"
    zh = _ORD_ZH.search(q)
    if zh is None or content_zh(q) > OWN_CONTENT_MIN_ZH:
        return None
    after = rjieba.tag(t2s().convert(q[zh.end():]))
    if after and after[0][1].startswith("n") and after[0][0] not in _STEP_ZH:
        return None  # 下一个工作日: an ordinal whose noun is its own
    return zh.group(0)


def dangling_pronoun(q: str) -> str | None:
    """The pronoun of ``q`` with nothing in ``q`` to refer to ("its" of "and its price?", 它),
    or ``None`` (cue ``pronoun``, module docstring); a demonstrative before a noun of its own
    is a determiner, not a pronoun (:func:`determiner`)."""
    if CJK.search(q):
        masked = mask_not_pronouns(q)
        zh = next((z for z in _PRONOUN_ZH.finditer(masked)
                   if not determiner(q, z.start(), z.end())), None)
        if zh is None:
            return None
        if (content_zh(q[: zh.start()]) < ANTECEDENT_MIN
                and content_zh(q) < OWN_CONTENT_MIN_ZH):
            return zh.group(0)
        return None
    masked = _EXPLETIVE.sub(lambda m: " " * len(m.group(0)), q)
    for m in _PRONOUN_EN.finditer(masked):
        word = m.group(0).lower()
        if determiner(q, m.start(), m.end()):
            continue  # "What is this product's price?": the product, not an earlier subject
        rest = masked[m.end():]
        at_end = not rest.strip(" ?？.!")  # "When must team members submit it?", "Who owns that?"
        if word in ("that", "this", "these", "those") and not at_end and re.match(
                r"\s+(?:is|are|was|were)\b", rest) is None:
            if content_en(q[: m.start()]) >= 1:
                continue  # "the matrix that evaluates …", "the one that …": relative / determiner
        if (content_en(q[: m.start()]) < ANTECEDENT_MIN or at_end) \
                and content_en(q) < OWN_CONTENT_MIN:
            return m.group(0)
    return None


def _has_noun(text: str) -> bool:
    """True when jieba's part-of-speech tags (``rjieba.tag`` over the Simplified text: n, nr,
    ns, nt, nz, vn, l (a set phrase: 静电感应), i, j, eng …) find a noun, a name, a set phrase
    or a Latin-script word in ``text``."""
    return any(tag.startswith("n") or tag in ("vn", "l", "i", "j", "eng", "t")
               or WORD.fullmatch(tok) for tok, tag in rjieba.tag(t2s().convert(text)))


def elliptic(q: str) -> bool:
    """True when ``q`` is elliptic: its subject or its ask is in an earlier turn ("Why?",
    "CH583的呢？"; cue ``ellipsis``, module docstring)."""
    if CJK.search(q):
        if re.search(r"呢\s*[？?]?\s*$", q) and content_zh(q) <= ELLIPSIS_ZH_MAX:
            return True
        # a short question with almost no content, or with no noun at all (具体怎么操作？,
        # 需要多久？): its subject is in an earlier turn; 什么是静电感应？ names its own
        return len(q.strip(" ？?。!！")) <= 8 and (content_zh(q) < 3 or not _has_noun(q))
    if re.match(r"\s*which (?:one|of (?:them|these|those|the two))\b", q, re.IGNORECASE):
        return True
    return len(q.split()) <= 3 and content_en(q) == 0


def _own_subject(rest: str) -> bool:
    """The rest of a led question asks a question of its own about a deictic noun phrase ("And
    what is this product's price?", 那这个产品的价格是多少？), with nothing else leaning on an
    earlier turn: it stands."""
    pronouns = _PRONOUN_ZH if CJK.search(rest) else _PRONOUN_EN
    return (bool(_ASK.search(rest))
            and any(determiner(rest, m.start(), m.end()) for m in pronouns.finditer(rest))
            and not (dangling_ordinal(rest) or dangling_pronoun(rest) or elliptic(rest)))


def followup_reason(question: str) -> str | None:
    """The cue that makes ``question`` a follow-up (``lead``, ``ordinal``, ``pronoun``,
    ``ellipsis``; module docstring), or ``None`` for a standalone question.

    Usage example::

        >>> followup_reason("And for the next one?")
        'lead'
        >>> followup_reason("Has Microsoft increased its debt since FY2022?") is None
        True
    """
    q = question.strip()
    if not q:
        return None
    lead = LEAD_EN.search(q) or LEAD_ZH.search(q)
    if lead and not _own_subject(q[lead.end():].lstrip(" ,，、")):
        return "lead"
    if dangling_ordinal(q):
        return "ordinal"
    if dangling_pronoun(q):
        return "pronoun"
    # 第二十二条是什么？ names what it asks about; 第一条呢？ asks it of the earlier question
    if elliptic(q) and (asked_item(q) is None or re.search(r"呢\s*[？?]?\s*$", q)):
        return "ellipsis"
    return None


def is_followup(question: str) -> bool:
    """True when ``question`` leans on an earlier turn (:func:`followup_reason`)."""
    return followup_reason(question) is not None
