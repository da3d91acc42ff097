"""The place of an earlier question that an elliptic follow-up fills, without an LLM.

"那三年以上的呢？" after "劳动合同期限一年以上不满三年的，试用期不得超过多久？" asks the earlier
question again of another case: its phrase (三年以上) takes the place of the earlier phrase of
the same kind (一年以上不满三年): "劳动合同期限三年以上的，试用期不得超过多久？". Read as the
earlier question followed by the follow-up instead, the pair was retrieved, answered — and
split as a multi-part question — as the earlier one. :func:`fill_slot` finds the place, by the
first of these that applies:

1. ``shape`` — the phrase and the earlier question both hold one of a shape: a year (2019,
   2019年), a quantity or range with its unit (三年以上, 一年以上不满三年, 六个月, 15 m,
   3 years or more, one to three years), an acronym (CFO), a code (FW-301), a bare number; the
   earlier question's last one of that shape is replaced by the phrase's;
2. ``modifier`` (Chinese) — a phrase ending in 的 (无固定期限的) is an attributive: it replaces
   the value of the earlier question's first attributive, the words before its 的 after the
   last noun (劳动合同期限 | 一年以上不满三年 | 的);
3. ``opposite`` — the phrase names the other end of a word of the earlier question ("the
   minimum" after "What is the maximum operating temperature …?", 最低 after 最高工作温度): that
   word is replaced (:data:`OPPOSITES`), the rest of the phrase being words the earlier question
   already holds;
4. ``head`` — the phrase's head word (its last noun: 运营者, operators) ends a noun phrase of
   the earlier question (网络运营者, network operators): the phrase replaces that noun phrase.

``None`` when no place is found: the caller reads the follow-up with the earlier question.
Nouns and their runs come from jieba's part-of-speech tags for Chinese (``rjieba.tag``), from
stop words for English. Pure, no I/O.
"""

from __future__ import annotations

import re
from functools import lru_cache

import rjieba

from corpus.term_forms import ANY_YEAR

__all__ = ["OPPOSITES", "fill_slot", "subject_zh"]

_CJK = re.compile(r"[\u3400-\u9fff]")
_ZH_NUM = r"(?:\d+(?:\.\d+)?|[零〇一二两三四五六七八九十百千万半]+)"
_ZH_UNIT = (r"(?:个)?(?:工作日|小时|分钟|星期|周岁|个百分点|百分点|万元|亿元|公里|千米|厘米|毫米|"
            r"公斤|千克|年|月|周|天|日|秒|岁|倍|次|人|名|元|米|克|吨|项|级|页|%|％|℃|"
            r"[A-Za-zΩµ°]{1,4}(?![A-Za-z]))")
_ZH_PRE = (r"(?:不满|不足|未满|超过|满|低于|高于|不少于|不低于|不超过|不多于|至少|至多|大于|小于|"
           r"多于|少于)")
_ZH_POST = r"(?:及以上|及以下|以上|以下|以内|之内|以外|左右|以前|以后|之前|之后)"
_ZH_ATOM = rf"{_ZH_PRE}?{_ZH_NUM}\s*{_ZH_UNIT}{_ZH_POST}?"
# not an ordinal (第三年), a code's digits (ESP32) or a calendar year (2019年: a year)
_ZH_QTY = (rf"(?<!第)(?<![A-Za-z\d.])(?!(?:19|20)\d{{2}}\s*年){_ZH_ATOM}"
           rf"(?:\s*(?:至|到|~|～|-|—)?\s*{_ZH_ATOM})*")
_EN_NUM = (r"(?:\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
           r"fifteen|twenty|thirty|forty|fifty|sixty|hundred|half)")
_EN_UNIT = (r"(?:years?|months?|weeks?|days?|hours?|minutes?|seconds?|times|percent|%|"
            r"employees?|people|persons?|workers?|members?|"
            r"(?:k|m|g|t)?(?:hz|b|w|v)|ma|mah|mm|cm|km|kg|mg|ms|dbm|db|°c)")
_EN_QTY = (rf"(?<![\w.])(?:(?:more than|less than|fewer than|at least|at most|over|under|up to|"
           rf"above|below|within|between|from)\s+)?{_EN_NUM}"
           rf"(?:\s*(?:-|–|to|and|or)\s*{_EN_NUM})?\s*-?\s*{_EN_UNIT}(?![\w])"
           rf"(?:\s+(?:or|and)\s+(?:more|less|longer|shorter|above|over|under|fewer|older|"
           rf"younger|later|earlier))?")
_QUANTITY = re.compile(rf"{_ZH_QTY}|{_EN_QTY}", re.IGNORECASE)
#: shapes in the order tried: year, quantity / range with unit, acronym, code, number
# (ASCII boundaries: a Chinese character next to a code is a boundary, for \b it is a letter)
_SHAPES = (ANY_YEAR, _QUANTITY,
           re.compile(r"(?<![A-Za-z0-9_-])[A-Z][A-Z0-9]{1,6}(?![A-Za-z0-9_-])"),
           re.compile(r"(?<![A-Za-z0-9_])[A-Za-z]+[-_]?\d[A-Za-z0-9_-]*(?<!-)(?![A-Za-z0-9_])"),
           re.compile(r"(?<![A-Za-z0-9_.])\d+(?:\.\d+)?(?![A-Za-z0-9_.])"))
_NOUN_TAGS = ("n", "l", "eng", "j", "vn", "nz", "ng")
_EN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'-]*")
_EN_STOP = frozenset("""
a an the of for in on at by to from with about as than and or but is are was were be been do does
did has have had can could may might must shall should will would what which who whom whose when
where why how that this these those it its they their there here not no any some all each every
much many more most less long often per
""".split())


#: word pairs that name the two ends of one thing (either way round)
OPPOSITES: tuple[tuple[str, str], ...] = (
    ("maximum", "minimum"), ("max", "min"), ("highest", "lowest"), ("largest", "smallest"),
    ("biggest", "smallest"), ("longest", "shortest"), ("earliest", "latest"),
    ("upper", "lower"), ("most", "least"), ("input", "output"), ("first", "last"),
    ("最大", "最小"), ("最高", "最低"), ("最长", "最短"), ("最早", "最晚"), ("最多", "最少"),
    ("上限", "下限"), ("输入", "输出"), ("最快", "最慢"))
_OTHER_END = {a: b for a, b in OPPOSITES} | {b: a for a, b in OPPOSITES}


def _is_noun(tag: str) -> bool:
    return tag.startswith(_NOUN_TAGS)


@lru_cache(maxsize=1024)
def _tags(text: str) -> tuple[tuple[str, str, int], ...]:
    """jieba's ``(token, tag, start)`` of ``text``."""
    out, pos = [], 0
    for tok, tag in rjieba.tag(text):
        out.append((tok, tag, pos))
        pos += len(tok)
    return tuple(out)


def subject_zh(text: str) -> str | None:
    """The first run of nouns of a Chinese question (jieba's tags: ``TH2817B``,
    ``网络运营者``, ``劳动合同法规定``) — what it is about; ``None`` without one."""
    run: list[str] = []
    for tok, tag, _ in _tags(text):
        if _is_noun(tag) and tok.strip():
            run.append(tok)
        elif run:
            break
    return "".join(run) or None


def _by_shape(previous: str, x: str) -> str | None:
    for shape in _SHAPES:
        new = shape.search(x)
        if new is None:
            continue
        olds = [o for o in shape.finditer(previous) if o.group(0) != new.group(0)]
        if olds:
            o = olds[-1]
            return previous[: o.start()] + new.group(0) + previous[o.end():]
    return None


def _by_modifier(previous: str, x: str) -> str | None:
    """A Chinese attributive (``X的``) replaces the value of the earlier question's first
    attributive (its words after the last noun, before 的)."""
    if not x.endswith("的") or not _CJK.search(x):
        return None
    core = x[:-1].strip()
    run: list[tuple[str, str, int]] = []
    for tok, tag, start in _tags(previous):
        if tok == "的" and run:
            last_noun = max((i for i, (_, t, _s) in enumerate(run) if _is_noun(t)), default=-1)
            value = run[last_noun + 1:]
            if not value or last_noun < 0:
                return None  # no value after a noun: "CH583的" (a subject, not a case)
            a, b = value[0][2], value[-1][2] + len(value[-1][0])
            return previous[:a] + core + previous[b:]
        if tag == "x" or not tok.strip():
            run = []  # punctuation: a new clause
        else:
            run.append((tok, tag, start))
    return None


def _by_head_zh(previous: str, x: str) -> str | None:
    toks = [(t, g) for t, g, _ in _tags(x) if t.strip() and g != "x"]
    if not toks or not _is_noun(toks[-1][1]):
        return None
    head = toks[-1][0]
    prev = _tags(previous)
    if len(toks) == 2 and toks[0][1][:1] in _MODIFIER_TAGS:
        # a modifier swapped before the same noun, also inside a compound: 其他城市 for 一线城市
        # of 一线城市住宿费上限 (a trial: "那其他城市呢？" found no place and was glued on)
        for i, (tok, _tag, start) in enumerate(prev):
            if tok == head and i and prev[i - 1][1][:1] in _MODIFIER_TAGS:
                return previous[:prev[i - 1][2]] + x + previous[start + len(tok):]
    for i, (tok, _tag, start) in enumerate(prev):
        if tok != head or (i + 1 < len(prev) and _is_noun(prev[i + 1][1])):
            continue  # not there, or not the head of its phrase (劳动合同 of 劳动合同期限)
        j = i
        while j > 0 and _is_noun(prev[j - 1][1]):
            j -= 1
        a, b = prev[j][2], start + len(tok)
        if previous[a:b] == x:
            return None
        return previous[:a] + x + previous[b:]
    return None


_MODIFIER_TAGS = ("r", "m", "a", "b")  # jieba: pronoun-like 其他, numeral 一线, adjective, 区别词
_QWORD_ZH = re.compile(r"(?:是|为|有)?(?:多少|什么|哪|几|多久|多长|多大|多高|如何|怎样|怎么)")
_NAME_TAGS = ("nr", "ns", "nt", "nz", "eng")


def _by_pair_zh(previous: str, x: str) -> str | None:
    """``A的B是多少？``: a name (CH583, 射阳大米: a code or a name by its tag) replaces ``A``,
    another noun (存储温度) replaces ``B``."""
    toks = [(t, g) for t, g, _ in _tags(x) if t.strip() and g != "x"]
    if not toks or not _is_noun(toks[-1][1]):
        return None
    prev = list(_tags(previous))
    de = next((i for i, p in enumerate(prev) if p[0] == "的"), None)
    if de is None or de == 0:
        return None
    k = de + 1
    while k < len(prev) and _is_noun(prev[k][1]):
        k += 1
    if k == de + 1 or not _QWORD_ZH.match(previous[prev[k][2]:] if k < len(prev) else ""):
        return None  # not "A的B" + a question word
    if any(g.startswith(_NAME_TAGS) for _, g in toks):
        a, b = 0, prev[de][2]  # the subject before 的 (from the clause start)
        for i in range(de - 1, -1, -1):
            if prev[i][1] == "x":
                a = prev[i][2] + len(prev[i][0])
                break
    else:
        a, b = prev[de + 1][2], prev[k - 1][2] + len(prev[k - 1][0])
    return previous[:a] + x + previous[b:]


def _by_opposite(previous: str, x: str) -> str | None:
    """The earlier question's word whose other end the phrase names, replaced by it; the
    phrase's other words must be in the earlier question already ("the minimum temperature")."""
    if _CJK.search(x):
        hit = next((w for w in _OTHER_END if _CJK.search(w) and w in x), None)
        if hit is None or _OTHER_END[hit] not in previous:
            return None
        rest = x.replace(hit, "").strip(" 的呢")
        if rest and rest not in previous:
            return None
        return previous.replace(_OTHER_END[hit], hit, 1)
    xs: list[str] = [w.lower() for w in _EN_WORD.findall(x)
                     if w.lower() not in _EN_STOP - {"most"}]
    ends = [w for w in xs if w in _OTHER_END]
    if len(ends) != 1:
        return None
    m = re.search(rf"\b{re.escape(_OTHER_END[ends[0]])}\b", previous, re.IGNORECASE)
    if m is None or any(w != ends[0] and not re.search(rf"\b{re.escape(w)}", previous, re.I)
                        for w in xs):
        return None
    new = ends[0].capitalize() if m.group(0)[:1].isupper() else ends[0]
    return previous[: m.start()] + new + previous[m.end():]


def _stem(word: str) -> str:
    w = word.lower()
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


def _by_head_en(previous: str, x: str) -> str | None:
    xs = [w for w in _EN_WORD.findall(x) if w.lower() not in _EN_STOP]
    if not xs:
        return None
    head = _stem(xs[-1])
    words = list(_EN_WORD.finditer(previous))
    for i, m in enumerate(words):
        if _stem(m.group(0)) != head:
            continue
        # the noun phrase ending there: its words back to a stop word, at most as many as the
        # phrase has (no part of speech in English here: "must network operators keep")
        j = i
        while j > 0 and i - j + 1 < len(xs) and words[j - 1].group(0).lower() not in _EN_STOP \
                and not previous[words[j - 1].end(): words[j].start()].strip():
            j -= 1
        a, b = words[j].start(), m.end()
        if previous[a:b].lower() == x.lower():
            return None
        return previous[:a] + x + previous[b:]
    return None


def fill_slot(previous: str, phrase: str) -> tuple[str, str] | None:
    """``(question, rule)``: ``previous`` with the place ``phrase`` fills replaced by it, and
    the rule that found the place (``shape``, ``modifier``, ``opposite``, ``head``, ``pair``);
    ``None`` when no place
    is found or ``phrase`` is already in ``previous``.

    Usage example::

        >>> fill_slot("劳动合同期限一年以上不满三年的，试用期不得超过多久？", "三年以上的")
        ('劳动合同期限三年以上的，试用期不得超过多久？', 'shape')
        >>> fill_slot("How long must network operators keep network logs?",
        ...           "critical infrastructure operators")
        ('How long must critical infrastructure operators keep network logs?', 'head')
    """
    x = phrase.strip()
    if not x or x.lower() in previous.lower():
        return None
    zh = bool(_CJK.search(x) or _CJK.search(previous))
    rules = (("shape", _by_shape), ("modifier", _by_modifier), ("opposite", _by_opposite),
             ("head", _by_head_zh if _CJK.search(x) else _by_head_en), ("pair", _by_pair_zh))
    for name, rule in rules:
        if name in ("modifier", "pair") and not zh:
            continue
        out = rule(previous, x)
        if out and out != previous:
            return out, name
    return None
