"""Numbered item labels — 第二十一条, 第三章, Clause 4, Article 12, Section 3.2, § 5 — for
follow-ups that step from one to the next ("下一条呢？", "And the next one?") or name another
("那第二十三条呢？", "What about Clause 6?"), and for answers to a question naming an article
or clause: :func:`asked_item`, :func:`item_of` (the item a unit sits in), :func:`other_item`
(a unit of another item, the answer checks' ``other_item``) and :func:`names_item` (第21条 is
第二十一条); the evidence scorer (``corpus.evidence.UnitScorer``) follows items the same way.

A regulation, contract or policy numbers its clauses in the running text (a TXT or PDF page:
"第二十一条 网络运营者应当…", "Clause 4. Refund method. …"), not as headings, table rows or list
items, so :func:`gateway.conversation.items.item_lists` found no list to step along and a
new-user trial got 第二十一条 again for 下一条呢？. Here:

- :func:`find_label` reads the first label a question names (Chinese numerals or digits before
  条 / 章 / 节 / 款 / 项 / 篇 / 编 / 部分 / 段 / 页; an English label word — Clause, Article,
  Section, Chapter, Part, Rule, Regulation, Item, Step, Paragraph, Annex, Appendix, Schedule,
  Page, Art., Sec., § — before a number or a dotted number);
- :func:`line_labels` reads the labels that open a line of a document's text (a label inside a
  sentence — "违反本办法第二十一条规定的" — is a cross-reference, not an item);
- :func:`step_label` steps a label by one (or to the first / last): along the labels of the same
  kind the cited documents hold when there are any (a gap in the numbering is stepped over; past
  either end is ``None``, never an invented clause), else by arithmetic on the number
  (a request with ``history`` and no session reads no documents).

The new label is written as the document writes it, else in the question's own form (二十二 for
二十一, 22 for 21, 3.3 for 3.2). Pure, no I/O.

Usage example::

    >>> step_label(find_label("第二十一条规定了什么？"), 1, [])
    '第二十二条'
    >>> step_label(find_label("What does Clause 4 say?"), -1, [])
    'Clause 3'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["ITEM_KINDS", "Label", "asked_item", "find_label", "item_of", "item_place",
           "label_term", "line_labels", "names_item", "opening_label", "other_item", "step_label",
           "zh_numeral", "zh_value"]

_ZH_DIGITS = "零一二三四五六七八九"
_ZH_VALUE = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
             "七": 7, "八": 8, "九": 9}
_ZH_UNIT = {"十": 10, "百": 100, "千": 1000}
_ZH_LABEL = (r"第\s*(?P<zn>[零〇一二两三四五六七八九十百千]{1,8}|\d{1,4})\s*"
             r"(?P<zk>条|章|节|款|项|篇|编|部分|段|页)")
_EN_WORDS = {"clause": "clause", "article": "article", "art.": "article", "section": "section",
             "sec.": "section", "§": "section", "chapter": "chapter", "part": "part",
             "rule": "rule", "regulation": "regulation", "item": "item", "step": "step",
             "paragraph": "paragraph", "annex": "annex", "appendix": "appendix",
             "schedule": "schedule", "page": "page"}
_EN_LABEL = (r"(?<![\w])(?P<ek>clause|article|art\.|section|sec\.|§|chapter|part|rule|"
             r"regulation|item|step|paragraph|annex|appendix|schedule|page)\s*"
             r"(?P<en>\d{1,4}(?:\.\d{1,3}){0,3})(?![\w]|\.\d)")
_LABEL = re.compile(_ZH_LABEL + "|" + _EN_LABEL, re.IGNORECASE)
# a Chinese label that refers on, not opens an item: "第三十九条和第四十条第一项、第二项规定的情形，…"
# a PDF line break put at a line's start (a trial: it answered "第三十九条规定了什么？")
_REFERS = re.compile(r"[和、或及与至到中的]|规定|第")
# a label that opens a line (after Markdown heading marks, emphasis or a bullet)
_LINE_START = re.compile(r"^\s*(?:#{1,6}\s*|[-*+]\s+)?(?:[*_]{1,2})?\s*")


@dataclass(frozen=True, slots=True)
class Label:
    """A numbered item label found in a text: ``text`` as written (第二十一条, Clause 4),
    ``kind`` (条, 章 …; clause, article, section … lower-cased, Art. → article), ``number``
    (``(21,)``, ``(3, 2)``), whether it is written in Chinese numerals (``zh_numerals``), and
    its ``start`` / ``end`` in that text."""

    text: str
    kind: str
    number: tuple[int, ...]
    zh_numerals: bool
    start: int
    end: int

    def with_number(self, number: tuple[int, ...]) -> str:
        """This label's text with ``number`` in its place, in its own form (第二十二条,
        第22条, Clause 5, Section 3.3, § 6)."""
        if self.kind in _EN_WORDS.values():
            m = _LABEL.fullmatch(self.text)
            word = m.group("ek") if m else self.kind.title()
            sep = self.text[len(word): len(self.text) - len(m.group("en"))] if m else " "
            return f"{word}{sep}{'.'.join(str(n) for n in number)}"
        num = zh_numeral(number[0]) if self.zh_numerals else str(number[0])
        return f"第{num}{self.kind}"


def zh_value(numeral: str) -> int | None:
    """The value of a Chinese numeral (二十一 → 21, 一百零五 → 105, 两 → 2, 二〇 → 20), or of
    a digit run; ``None`` when it is neither."""
    if numeral.isdigit():
        return int(numeral)
    if numeral and all(ch in _ZH_VALUE for ch in numeral):
        return int("".join(str(_ZH_VALUE[ch]) for ch in numeral))
    total, digit = 0, 0
    for ch in numeral:
        if ch in _ZH_VALUE:
            digit = _ZH_VALUE[ch]
        elif ch in _ZH_UNIT:
            total += (digit or 1) * _ZH_UNIT[ch]
            digit = 0
        else:
            return None
    return total + digit


def zh_numeral(value: int) -> str:
    """``value`` (1 … 9999) in Chinese numerals as clause numbers are written (21 → 二十一,
    10 → 十, 105 → 一百零五, 110 → 一百一十)."""
    out, zero = "", False
    for unit, name in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        d = value // unit % 10
        if d == 0:
            zero = bool(out)
            continue
        if zero:
            out += "零"
            zero = False
        out += _ZH_DIGITS[d] + name
    if out.startswith("一十"):
        out = out[1:]
    return out or "零"


def _label(m: re.Match[str]) -> Label | None:
    if m.group("zk"):
        value = zh_value(m.group("zn"))
        if value is None:  # 第0条 / 第零条 is a label (of an item no text has), as Clause 0 is
            return None
        return Label(m.group(0), m.group("zk"), (value,), not m.group("zn").isdigit(),
                     m.start(), m.end())
    number = tuple(int(p) for p in m.group("en").split("."))
    return Label(m.group(0), _EN_WORDS[m.group("ek").lower()], number, False,
                 m.start(), m.end())


def find_label(text: str) -> Label | None:
    """The first numbered item label of ``text`` (module docstring), or ``None``."""
    for m in _LABEL.finditer(text):
        if (found := _label(m)) is not None:
            return found
    return None


def line_labels(text: str) -> list[Label]:
    """The labels that open a line of ``text`` (a document's chunk or a heading), in order;
    ``start`` / ``end`` are offsets in their line. A label followed by a connective (和, 、,
    或, 及, 与, 至, 到, 中, 的, 规定, 第: "第三十九条和第四十条…") refers to items; it opens none."""
    out = []
    for line in text.splitlines():
        lead = _LINE_START.match(line)
        m = _LABEL.match(line, lead.end() if lead else 0)
        if m is not None and (found := _label(m)) is not None and not _REFERS.match(line,
                                                                                    m.end()):
            out.append(found)
    return out


def step_label(label: Label, step: int | str, known: Sequence[str]) -> str | None:
    """The label ``step`` items from ``label`` (``1`` / ``-1``; ``"first"`` / ``"last"``).

    :param known: labels the cited documents hold (:func:`line_labels` texts, any kinds); those
        of ``label``'s kind are the list stepped along, in number order.
    :returns: the new label as the document writes it, else in ``label``'s form (by arithmetic
        on its last number when no label of its kind is known); ``None`` past either end, or
        ``"last"`` with nothing known.
    """
    same = {lb.number: lb.text for t in known
            if (lb := find_label(t)) is not None and lb.kind == label.kind}
    order = sorted(same)
    if order:
        if step == "first":
            target = order[0]
        elif step == "last":
            target = order[-1]
        else:
            nearer = [n for n in order if (n > label.number if int(step) > 0
                                           else n < label.number)]
            if not nearer:
                return None
            target = nearer[0] if int(step) > 0 else nearer[-1]
        return None if target == label.number else same[target]
    if step == "last":
        return None
    last = 1 if step == "first" else label.number[-1] + int(step)
    if last < 1:
        return None
    number = (*label.number[:-1], last)
    return None if number == label.number else label.with_number(number)


#: kinds of label that number the items of a text a question may ask for by number: a
#: regulation's or contract's articles, clauses, sections, chapters (a page, a step, an item of
#: a 10-K or a schedule is asked otherwise: ``corpus.page_scope``, the key terms)
ITEM_KINDS = frozenset({"条", "款", "章", "节", "clause", "article", "section", "chapter"})


# a label named as the rule broken: "不履行第三十四条规定的安全保护义务、拒不改正的，单位被处多少
# 罚款？" asks for the penalty, which another item citing it states (网络安全法 第五十九条)
_BROKEN_RULE = re.compile(
    r"(?:违反|不履行|未履行|不遵守|未遵守|不按照|未按照|不执行|未执行)\s*"
    r"(?:本法|本办法|本条例|本规定|本细则|本合同|本协议|本制度)?\s*$"
    r"|\b(?:violat(?:es?|ed|ing|ion\s+of)|breach(?:es|ed|ing)?(?:\s+of)?"
    r"|fail(?:s|ed|ing)?\s+to\s+comply\s+with)\s+(?:the\s+)?$", re.IGNORECASE)


def asked_item(question: str) -> Label | None:
    """The numbered item ``question`` asks about (its first label of an :data:`ITEM_KINDS`
    kind: 第二十一条, 第21条, Clause 4, Article 12, Section 3.2, § 5), or ``None`` — also when
    that label is named as the rule broken ("违反本办法第二十一条规定的…", "不履行第三十四条规定
    的…义务…被处多少罚款？", "violating Clause 4"): the consequence asked about stands in
    another item, citing it."""
    label = find_label(question)
    if label is None or label.kind not in ITEM_KINDS:
        return None
    return None if _BROKEN_RULE.search(question[max(0, label.start - 24):label.start]) else label


def label_term(term: str) -> Label | None:
    """The label ``term`` is, when it is a numbered item label and nothing more (第二十二条,
    第23条), else ``None``."""
    label = find_label(term)
    return label if label is not None and label.text == term else None


def opening_label(text: str, kind: str) -> Label | None:
    """The label of ``kind`` that opens ``text``'s first line, or ``None``."""
    got = line_labels(text.lstrip().split("\n", 1)[0])
    return got[0] if got and got[0].kind == kind else None


def item_of(unit: str, above: str, headings: Sequence[str], kind: str) -> Label | None:
    """The item of ``kind`` that ``unit`` belongs to: the label opening it, else the last label
    of that kind opening a line of ``above`` (the chunk's text before the unit), else the
    innermost of ``headings`` (the chunk's section path, outermost first) opening with one;
    ``None`` when none is written (the text does not number its items so)."""
    if (got := opening_label(unit, kind)) is not None:
        return got
    own = [lb for lb in line_labels(above) if lb.kind == kind]
    if own:
        return own[-1]
    return next((lb for head in reversed(headings)
                 if (lb := opening_label(head, kind)) is not None), None)


def item_place(asked: Label, unit: str, chunk_text: str, headings: Sequence[str] = ()
               ) -> bool | None:
    """Where ``unit`` (a quote of ``chunk_text``, under the chunk's section ``headings``) sits
    against the item ``asked``: ``True`` in it, ``False`` in another item of its kind or
    before the first item of a text numbering its items so (a title, a preamble), ``None`` in
    a text numbering no such items (:func:`item_of`). Numbers compare by value: 第21条 is
    第二十一条."""
    at = chunk_text.find(unit)
    item = item_of(unit, chunk_text[:at] if at > 0 else "", headings, asked.kind)
    if item is None:
        return False if any(lb.kind == asked.kind for lb in line_labels(chunk_text)) else None
    return item.number == asked.number


def other_item(question: str, unit: str, chunk_text: str, headings: Sequence[str] = ()
               ) -> str | None:
    """``asked.text`` when ``unit`` (a quote of ``chunk_text``) sits in another numbered item
    of the kind ``question`` asks about, or in none of a text numbering them
    (:func:`asked_item`, :func:`item_place` ``False``) — the answer to "第二十六条规定了什么？"
    is not 第二十五条's sentence citing it, nor any clause when the document has no 第二十六条
    — else ``None`` (no item asked, the unit in it, or the text numbers none there)."""
    asked = asked_item(question)
    if asked is None or item_place(asked, unit, chunk_text, headings) is not False:
        return None
    return asked.text


def names_item(text: str, label: Label) -> bool:
    """True when ``text`` writes a label of ``label``'s kind and number, in either form
    (第二十一条 names 第21条)."""
    return any(lb.kind == label.kind and lb.number == label.number
               for m in _LABEL.finditer(text) if (lb := _label(m)) is not None)
