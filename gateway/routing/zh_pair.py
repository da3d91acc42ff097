"""Two things of one kind in a Chinese question (rule ``pair`` of
:func:`gateway.routing.decompose.decompose`): ``A和B的X分别是多少`` / ``比较A和B的X`` →
``A的X是多少？``, ``B的X是多少？``; ``A和B的X是多少`` when A and B are two years or two codes.
Pure, no I/O."""

from __future__ import annotations

import re

import rjieba

from gateway.routing.elliptic import ZH_ASK

__all__ = ["CODE", "CODE_WORD", "ZH_EACH", "ZH_WHOLE", "zh_conjunctions", "zh_pair"]

ZH_EACH = re.compile(r"(分别|各自|各)")
_ZH_CMP = re.compile(r"^\s*(?:请)?(?:比较|对比|比较一下|对比一下)")
#: the conjunctions joining two compared things; each must be a word of its own (jieba):
#: 同 inside 劳动合同法, 及 inside 及时 join nothing (a new-user trial:
#: "比较劳动合同法和网络安全法的施行日期" was cut at 合同's 同 and went unsplit)
_ZH_CONJ_WORDS = frozenset({"和", "与", "及", "以及", "跟", "同"})
#: a product or model code: a word that starts with a letter and holds a digit (CH583, FW-301)
CODE_WORD = r"[A-Za-z][A-Za-z0-9/._-]*\d[A-Za-z0-9/._-]*"
CODE = re.compile(rf"^\s*({CODE_WORD})")
_SUBJECT = re.compile(rf"^\s*{CODE_WORD}\s*(?:在|的|是|有|中|于)")
_ZH_DIFF = re.compile(r"区别|差别|差异|不同|异同|优劣|哪个|哪一个|谁")
#: a question over several periods or things together: a sum, a change, an average
ZH_WHOLE = re.compile(r"合计|总共|总计|之和|一共|共计|之间|相比|增长|变化|平均")


def zh_conjunctions(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each conjunction in ``text`` that jieba cuts as a word of its own
    (:data:`_ZH_CONJ_WORDS`)."""
    return [(a, b) for word, a, b in rjieba.tokenize(text) if word in _ZH_CONJ_WORDS]


def zh_pair(q: str) -> list[str] | None:
    """``[prefix]A和B的X(分别|各)(tail)`` or ``比较[prefix]A和B的X`` → ``A的X…``, ``B的X…``."""
    body = q.rstrip("？?。. ")
    cmp = _ZH_CMP.match(body)
    if cmp:
        clause, tail = body[cmp.end():], "是多少？"
        if _ZH_DIFF.search(clause):
            return None  # "比较A和B有什么区别": the difference is the question, not two values
    else:
        each = ZH_EACH.search(body)
        if each is None:
            return _zh_shape_pair(body)
        start = max(body.rfind(c, 0, each.start()) for c in "，,；;：:") + 1
        clause, tail = body[start:each.start()], body[each.end():] + "？"
        if start or ZH_ASK.search(clause) or not ZH_ASK.search(tail):
            return None  # the pair is in an earlier clause, or the clause asks itself
    conj = zh_conjunctions(clause)
    if len(conj) != 1:
        return None
    left, right = clause[:conj[0][0]].strip(), clause[conj[0][1]:].strip()
    if not left or not right:
        return None
    # the left thing's own prefix (the document or subject both things belong to)
    cut = max(left.rfind("的"), left.rfind("中"))
    prefix = left[:cut + 1] if cut >= 0 else ""
    first = left
    if "的" not in left and "的" in right:  # "A和B的X": A shares B's attribute X
        first = left + right[right.index("的"):]
    # the left thing's prefix goes to the right one unless that names its own subject: a
    # product code followed by a particle ("CH583在…", "CH583的…"), not a component
    # ("RS232C接口的…" of the prefix's instrument)
    second = right if (CODE.match(left) and _SUBJECT.match(right)) else prefix + right
    if not tail.strip("？"):
        tail = "是多少？"
    return [first + tail, second + tail]


# two years or two codes joined, then what is asked of each: 2018年和2019年的营业收入是多少
_ZH_SHAPE_PAIR = re.compile(
    rf"^(?P<pre>[^，,；;？?]*?)(?P<a>(?:19|20)\d\d\s*年(?:度)?|{CODE_WORD})\s*(?:和|与|及|、)\s*"
    rf"(?P<b>(?:19|20)\d\d\s*年(?:度)?|{CODE_WORD})(?P<rest>的[^，,；;]+)$")


def _zh_shape_pair(body: str) -> list[str] | None:
    """``[prefix]A和B的X是多少`` with A, B two years or two codes (no 分别 needed: one
    quantity of two periods or products) → ``A的X是多少？``, ``B的X是多少？``; not when the
    question sums, averages or compares them (合计, 平均, 增长 …)."""
    m = _ZH_SHAPE_PAIR.match(body)
    if m is None or not ZH_ASK.search(m["rest"]) or _ZH_DIFF.search(body) \
            or ZH_WHOLE.search(body) or (m["a"][:1].isdigit() != m["b"][:1].isdigit()):
        return None
    return [f"{m['pre']}{m['a']}{m['rest']}？", f"{m['pre']}{m['b']}{m['rest']}？"]
