"""Multi-part and comparison questions split into standalone sub-questions (issue 16 item 3),
by rules, without I/O; the router runs the parts concurrently (:mod:`gateway.routing.plan`).

Rules, tried in this order (the first that yields two or more parts wins):

1. **Several questions**: sentences ending in ``?`` / ``？`` (``What is X? What is Y?``,
   ``X是多少？Y是多少？``).
2. **Conjoined questions**: ``…, and which …`` / ``…; how …`` in English (a wh-word after the
   joint, and one in the first clause too); in Chinese two clauses joined
   by ``，`` / ``；`` that each hold a question word (多少, 什么, 哪, 几, 多久 …); a later part's
   "its" is the first part's organisation (:func:`gateway.routing.standalone.bind_possessive`).
3. **Three years or more** (``years``): "What was revenue in 2018, 2019 and 2020?",
   ``2018年、2019年和2020年的营业收入分别是多少`` — one part per year; not a change, a total or
   an average over them (:func:`_by_years`).
4. **Two things of one kind**: ``A和B的X分别是多少`` / ``比较A和B的X`` (the conjunct pair in the
   clause before 分别 / 各, or after 比较 / 对比), ``A和B的X是多少`` when A and B are two years
   or two codes (``2018年和2019年的营业收入是多少``), ``Compare the X of A and B``, ``Which is
   higher: A or B?`` — each thing gets the shared attribute (``A的X``, ``B的X``).
5. **An elliptic second part** (``elliptic``): "What is the maximum operating temperature of
   the ESP32-PICO-D4, and the minimum?", ``ESP32-PICO-D4的工作电压是多少，CH583呢？``, "What
   was 3M's revenue in 2018 and in 2019?" — the second part names only what differs and gets
   the rest from the first (:func:`gateway.routing.elliptic.split_elliptic`); before, it was
   dropped (the whole asked as one question, only the first part answered).

A later part that names no subject of its own gets the first part's: its leading product code
(``CH583``, ``ESP32-PICO-D4``) in Chinese, its leading phrase before the wh-word in English
(``In the MEDDPPICC framework, …``).

Usage: ``decompose("CH583和ESP32-PICO-D4的供电电压分别是多少？").parts`` →
``('CH583的供电电压是多少？', 'ESP32-PICO-D4的供电电压是多少？')``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from gateway.routing.elliptic import ZH_ASK, opens_asking, split_elliptic
from gateway.routing.followup import is_followup
from gateway.routing.standalone import bind_possessive, names_own_topic
from gateway.routing.zh_pair import CODE, CODE_WORD, ZH_EACH, ZH_WHOLE, zh_conjunctions, zh_pair

__all__ = ["Plan", "decompose"]

_CJK = re.compile(r"[\u4e00-\u9fff]")
_QMARK_SPLIT = re.compile(r"(?<=[?？])\s*")
_WH = r"(?:what|which|who|whom|whose|when|where|why|how|is|are|does|do|did|can|was|were)"
_EN_JOINT = re.compile(rf"(?:,\s*and\s+|;\s*(?:and\s+)?|,\s*as well as\s+)(?={_WH}\b)", re.I)
_EN_WH = re.compile(rf"\b{_WH}\b", re.I)
_ZH_JOINT = re.compile(r"[，,；;]\s*(?:以及|还有|另外|并且|同时|而)?")
_ANY_CODE = re.compile(CODE_WORD)
_EN_CMP = re.compile(
    r"^\s*(?:please\s+)?(?:compare|contrast)\s+(?P<attr>.+)\s+(?:of|for|in|between)\s+"
    r"(?P<a>.+?)\s+(?:and|with|vs\.?|versus)\s+(?P<b>.+?)\s*[.?!]?\s*$", re.I)
_EN_WHICH = re.compile(
    r"^\s*which\s+(?:is|was|has|had)\s+(?:the\s+)?(?:higher|lower|larger|smaller|greater|longer|"
    r"shorter|bigger|more|less|better|worse)\s*[:,]?\s+(?P<a>.+?)\s*,?\s+or\s+(?P<b>.+?)\s*[.?!]?\s*$",
    re.I)
_EN_START = opens_asking(_WH)
_EN_DEPENDS = re.compile(
    r"\b(?:it|its|they|them|these|those|he|she|the same)\b|^(?:\S+\s+){0,3}(?:their|his|her)\b"
    r"|\b(?:this|that)\s+(?:time|change|difference|amount|period|year|figure|value|rate|one)\b"
    r"|\bcompar(?:e|ed|es|ing)\b|\bdifferences?\b|\bboth\b|\bthe effects?\b"
    r"|^(?:and\s+)?(?:then|after that|afterwards|if so|otherwise)\b", re.I)
_ZH_DEPENDS = re.compile(r"^\s*(?:其|该|这|此|它|那|之后|然后|随后|接着|后来|此后|如果|若|否则|再)"
                         r"|这些|其中|上述|前者|后者|相比|变化")
_EN_LEAD = re.compile(rf"^(?P<lead>[^,]{{3,80}},)\s*(?={_WH}\b)", re.I)


@dataclass(frozen=True, slots=True)
class Plan:
    """A question split into parts: ``kind`` ``multipart`` (several questions in one) or
    ``comparison`` (one attribute of several things), ``parts`` standalone sub-questions in the
    order asked, ``rule`` the rule that split it (``questions``, ``clauses``, ``years``, ``pair``,
    ``elliptic``)."""

    kind: Literal["multipart", "comparison"]
    parts: tuple[str, ...]
    rule: str
    #: parts beyond ``max_parts`` (:func:`decompose`): not run, said to be not answered
    left: tuple[str, ...] = ()


@lru_cache(maxsize=4096)
def decompose(question: str, *, max_parts: int = 4, elliptic: bool = True) -> Plan | None:
    """Split ``question`` into standalone sub-questions (module docstring); memoised (pure, and
    the result is frozen: a repeated question — every cache hit — is not split again).

    :param max_parts: parts run at most; the ones after are kept in ``Plan.left`` (not run,
        said to be not answered: a break-it trial's five-question message was answered whole,
        "Not found", when five parts were one too many).
    :param elliptic: try rule 5 (an elliptic second part); ``False`` for a follow-up read with
        its earlier question in front of it (conversation rule ``previous_question``): that
        pair is one question, not the earlier one and the follow-up.
    :returns: a plan with 2..``max_parts`` distinct parts (and the rest in ``left``), or
        ``None`` (one question).
    """
    q = question.strip()
    if len(q) < 8:
        return None
    rules = (("questions", _by_marks), ("clauses", _by_clauses), ("years", _by_years),
             ("pair", _by_pair), ("elliptic", split_elliptic if elliptic else lambda _q: None))
    for rule, split in rules:
        parts = bind_possessive(split(q))  # "… and what was its net income …": Netflix's
        if parts is None or (rule in ("questions", "clauses") and not _independent(parts)):
            continue
        parts = _with_subject([p for p in (s.strip() for s in parts) if _substantial(p)])
        parts = list(dict.fromkeys(parts))
        if len(parts) >= 2:
            return Plan("comparison" if rule == "pair" else "multipart",
                        tuple(parts[:max_parts]), rule, tuple(parts[max_parts:]))
    return None


def _independent(parts: list[str]) -> bool:
    """Every part asks on its own: no part after the first leans on an earlier one ("What was
    the amount?", "How did it change?", 其…), and an English part starts with its question.
    A later part that is itself a follow-up (``gateway.routing.followup``: 三年以上的呢？,
    "What about three years or more?") leans on the part before it: a follow-up read with
    the previous question in front of it is one question, not two."""
    for i, part in enumerate(parts):
        if i and is_followup(part):
            return False
        if _CJK.search(part):
            if i and _ZH_DEPENDS.search(part):
                return False
        elif not _EN_START.match(part.strip()) or (i and _EN_DEPENDS.search(part)):
            return False
        elif len(part.split()) <= 5 and not names_own_topic(part):
            return False  # "What was the amount?": too short to stand alone
    return True


def _substantial(part: str) -> bool:
    text = re.sub(r"[\s?？。.,，;；:：!！]", "", part)
    return len(text) >= (4 if _CJK.search(part) else 8)


def _by_marks(q: str) -> list[str] | None:
    """Rule 1: sentences that end in a question mark (a trailing statement joins the last)."""
    pieces = [p for p in _QMARK_SPLIT.split(q) if p.strip()]
    asked = [p for p in pieces if p.rstrip()[-1:] in "?？"]
    if any(p.lstrip()[:1] in _CLOSERS or not _balanced(p) for p in pieces):
        return None  # a question mark inside a quotation
    return pieces if len(asked) >= 2 and len(asked) == len(pieces) else None


_CLOSERS = "」』》”’)）】"
_PAIRS = ("「」", "『』", "《》", "“”", "（）", "()")


def _balanced(text: str) -> bool:
    return all(text.count(p[0]) == text.count(p[1]) for p in _PAIRS) and text.count('"') % 2 == 0


def _by_clauses(q: str) -> list[str] | None:
    """Rule 2: clauses joined by a comma / semicolon that each ask something."""
    mark = "？" if _CJK.search(q) else "?"
    body = q.rstrip("?？。. ")
    if _CJK.search(body):
        clauses = [c for c in _ZH_JOINT.split(body) if c.strip()]
        if len(clauses) < 2 or not all(ZH_ASK.search(c) for c in clauses):
            return None
        if any(ZH_EACH.search(c) for c in clauses[1:]) and len(clauses) == 2 and \
                zh_conjunctions(clauses[0]) and not ZH_ASK.search(clauses[0]):
            return None
        return [c + mark for c in clauses]
    pieces = _EN_JOINT.split(body)
    if len(pieces) < 2 or not _EN_WH.search(pieces[0]):
        return None
    return [p[0].upper() + p[1:] + mark for p in (s.strip() for s in pieces) if p]


def _by_pair(q: str) -> list[str] | None:
    """Rule 3: one attribute of two things (``A和B的X分别…``, ``compare X of A and B``,
    ``which is higher: A or B``)."""
    if _CJK.search(q):
        return zh_pair(q)
    m = _EN_WHICH.match(q) or _EN_CMP.match(q)
    if m is None or not all(_short_thing(m[k]) for k in ("a", "b")):
        return None
    if "attr" not in m.groupdict():
        a, b = _share_head(_strip_the(m["a"]), _strip_the(m["b"]))
        return [f"What is {a}?", f"What is {b}?"]
    attr = _strip_the(m["attr"])
    return [f"What is the {attr} of {m['a']}?", f"What is the {attr} of {m['b']}?"]


_YEAR = r"(?:FY\s?|fiscal\s+)?(?:19|20)\d\d(?![\d.,]\d)年?"
# three years or more ("2018, 2019 and 2020", "2018年、2019年和2020年"; two: the elliptic rule)
_YEAR_LIST = re.compile(rf"{_YEAR}(?:\s*[,，、]\s*{_YEAR})+\s*(?:,?\s*and\s+|和|与|及|以及)\s*"
                        rf"{_YEAR}", re.I)
# a question over the years together: a change, a sum, an average, a comparison
_YEARS_WHOLE = re.compile(
    r"\b(?:between|differen\w*|chang\w*|grow\w*|growth|increas\w*|decreas\w*|declin\w*|"
    r"compar\w*|sum|total|combined|together|average|mean|ratio|trend|versus|vs)\b"
    rf"|{ZH_WHOLE.pattern}|趋势|比较|对比", re.I)


def _by_years(q: str) -> list[str] | None:
    """Rule 3: one part per year of a list of three or more, the list replaced by it (a break-it
    trial got the first year only); not for a change, total or average (:data:`_YEARS_WHOLE`)."""
    m = _YEAR_LIST.search(q)
    if m is None or _YEARS_WHOLE.search(q):
        return None
    years = re.findall(_YEAR, m.group(0), re.I)
    return [(q[:m.start()] + y + q[m.end():]).replace("分别", "") for y in years]


def _share_head(a: str, b: str) -> tuple[str, str]:
    """Two compared things of which one is a lone modifier of the other's noun: "the domestic
    or the international hotel limit" → "domestic hotel limit", "international hotel limit" (a
    trial's parts were "What is domestic?")."""
    wa, wb = a.split(), b.split()
    if len(wa) == 1 and len(wb) > 1:
        return " ".join([*wa, *wb[1:]]), b
    if len(wb) == 1 and len(wa) > 1:
        return a, " ".join([*wb, *wa[1:]])
    return a, b


def _short_thing(text: str) -> bool:
    """One compared thing: at most 12 words, no clause of its own."""
    return len(text.split()) <= 12 and not re.search(rf"\b(?:and|{_WH[3:-1]})\b", text, re.I)


def _strip_the(text: str) -> str:
    return re.sub(r"^the\s+", "", text.strip(), flags=re.I).rstrip(" ?.")


def _with_subject(parts: list[str]) -> list[str]:
    """Give later parts the first part's subject when they name none of their own."""
    if len(parts) < 2:
        return parts
    first = parts[0]
    if _CJK.search(first):
        m = CODE.match(first)
        if m is None:
            return parts
        code = m.group(1)
        return [first] + [p if _ANY_CODE.search(p) else f"{code} {p}" for p in parts[1:]]
    lead = _EN_LEAD.match(first)
    if lead is None:
        return parts
    text = lead["lead"]
    return [first] + [p if p.lower().startswith(text.lower()) else
                      f"{text} {p[0].lower()}{p[1:]}" for p in parts[1:]]
