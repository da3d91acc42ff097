"""Ordered item lists of a document — sibling headings, table rows, list items — for follow-ups
that move along them ("And for the next one?", "What about the level above that?", "And the
last one?").

:func:`item_lists` reads the chunks of the documents an earlier answer cited (retrieval state)
and returns every ordered list with ≥ 2 items: the headings under one parent section (by chunk
order), the first cells of a Markdown table's body rows, the runs of ``-``/``*``/``1.``
list items (label: the bold text, else the text before a colon, else the first eight words),
and a document's numbered labels of one kind that open a line or a heading (第十九条,
第二十条 …; Clause 1, Clause 2 …; kind ``numbered``, in number order:
:mod:`corpus.labels`).
:func:`find_anchor` finds the item an earlier question named (all of the item's content words
in the question; the longest such item wins, lists of the cited chunks first), and
:func:`move` steps from it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from corpus.types import Chunk
from corpus.labels import Label, line_labels

__all__ = ["Anchor", "ItemList", "find_anchor", "find_anchors", "item_lists", "label_core", "move",
           "words"]

_WORD = re.compile(r"[#@]?[\w][\w\-/&.#]*", re.UNICODE)
_STOP = frozenset(
    "a an the of for in on at to and or is are was were what which who how does do did be "
    "by with about from that this it its".split()
)
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_MARK = re.compile(r"[*_`]{1,3}(?=\S)|(?<=\S)[*_`]{1,3}")
_PAREN = re.compile(r"\s*[(（][^)）]{0,40}[)）]\s*$")
_ANCHOR_ID = re.compile(r"\s*\{#[^}]*\}\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(.*\S)")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_CODE = re.compile(r"`[^`]{1,60}`|(?<![\w#])#[\w][\w-]*|\b[A-Za-z]+[-_]?\d[\w-]*\b"
                   r"|\b[A-Z][A-Z0-9]{1,6}\b")


def words(text: str) -> list[str]:
    """Lower-cased content words of ``text`` (stop words dropped; ``#channel``, ``a/b`` and
    ``s_`` kept whole; trailing dots stripped)."""
    out = []
    for w in _WORD.findall(text.lower()):
        w = w.rstrip(".")
        if w and w not in _STOP:
            out.append(w)
    return out


def label_core(label: str) -> str:
    """The item label without Markdown links/emphasis, a ``{#id}`` and a trailing
    parenthetical (``Group Channels (g_)`` → ``Group Channels``)."""
    text = _ANCHOR_ID.sub("", _LINK.sub(r"\1", label))
    text = _MARK.sub("", text).strip()
    core = _PAREN.sub("", text).strip()
    return core or text


@dataclass(frozen=True, slots=True)
class ItemList:
    """An ordered list of item labels from one document (``kind``: heading, table, list)."""

    kind: str
    items: tuple[str, ...]
    doc_id: str
    path: str
    source: int  # index of the chunk (in the order given) the list was read from
    #: per item, the indices of the chunks that hold it (``()`` = the list's ``source``)
    holders: tuple[frozenset[int], ...] = ()

    def held_by(self, index: int) -> frozenset[int]:
        """Indices of the chunks holding item ``index``."""
        return self.holders[index] if self.holders else frozenset({self.source})


@dataclass(frozen=True, slots=True)
class Anchor:
    """The item of ``lst`` at ``index`` that a question names (``coverage`` in (0, 1])."""

    lst: ItemList
    index: int
    coverage: float

    @property
    def label(self) -> str:
        """The anchor's label (core form)."""
        return label_core(self.lst.items[self.index])


def _table_rows(text: str) -> list[list[str]]:
    rows: list[list[str]] = []
    for line in text.splitlines():
        s = line.strip()
        if not s.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in s.strip("|").split("|")]
        if all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c):
            continue
        rows.append(cells)
    return rows


def _list_label(item: str) -> str:
    bold = _BOLD.search(item)
    if bold:
        return bold.group(1)
    head = item.split(":", 1)[0]
    if ":" in item and len(head.split()) <= 8:
        return head
    return " ".join(item.split()[:8])


def item_lists(chunks: Sequence[Chunk]) -> list[ItemList]:
    """Every ordered list (≥ 2 items) in ``chunks`` (one or more documents, any order)."""
    out: list[ItemList] = []
    by_parent: dict[tuple[str, tuple[str, ...]], list[tuple[int, int, str]]] = {}
    for i, ch in enumerate(chunks):
        if ch.section_path:
            key = (ch.doc_id, tuple(ch.section_path[:-1]))
            by_parent.setdefault(key, []).append((ch.ordinal, i, ch.section_path[-1]))
        rows = _table_rows(ch.text)
        if len(rows) >= 3:  # header + 2 body rows
            firsts = tuple(r[0] for r in rows[1:] if r and r[0])
            if len(firsts) >= 2:
                out.append(ItemList("table", firsts, ch.doc_id, ch.path, i))
        run: list[str] = []
        for line in [*ch.text.splitlines(), ""]:
            m = _BULLET.match(line)
            if m:
                run.append(_list_label(m.group(1)))
                continue
            if len(run) >= 2:
                out.append(ItemList("list", tuple(run), ch.doc_id, ch.path, i))
            run = []
    paths = {ch.doc_id: ch.path for ch in chunks}
    out.extend(_numbered_lists(chunks, paths))
    for (doc_id, _parent), entries in by_parent.items():
        seen: dict[str, set[int]] = {}
        first = min(e[1] for e in entries)
        for _ordinal, i, title in sorted(entries):
            seen.setdefault(title, set()).add(i)
        if len(seen) >= 2:
            out.append(ItemList("heading", tuple(seen), doc_id, paths[doc_id], first,
                                tuple(frozenset(v) for v in seen.values())))
    return out


def _numbered_lists(chunks: Sequence[Chunk], paths: dict[str, str]) -> list[ItemList]:
    """Per document and label kind, the numbered labels opening a line of its chunks or
    heading titles (≥ 2), in number order, each with the chunks that hold it."""
    found: dict[tuple[str, str], dict[tuple[int, ...], tuple[Label, set[int]]]] = {}
    for i, ch in enumerate(chunks):
        for label in line_labels("\n".join([*ch.section_path, ch.text])):
            by_number = found.setdefault((ch.doc_id, label.kind), {})
            by_number.setdefault(label.number, (label, set()))[1].add(i)
    out = []
    for (doc_id, _kind), by_number in found.items():
        if len(by_number) >= 2:
            order = sorted(by_number)
            out.append(ItemList("numbered", tuple(by_number[n][0].text for n in order), doc_id,
                                paths[doc_id], min(min(v[1]) for v in by_number.values()),
                                tuple(frozenset(by_number[n][1]) for n in order)))
    return out


def find_anchors(question: str, lists: Sequence[ItemList], *, min_coverage: float = 1.0,
                 must_contain: str | None = None, cited: int = 0) -> list[Anchor]:
    """The items ``question`` names, best first: every content word of the item's core label
    in the question (or ``min_coverage`` of them). An item held by one of the first ``cited``
    chunks (those the previous answer cited) ranks first; then more of its words, then lists
    read from earlier chunks. An item whose words are a strict subset of another named item's
    of the same list is dropped; when the question names a code (backticked text, ``#name``,
    an acronym, a letters-and-digits code) the item must hold one. ``must_contain``: only lists
    that also hold an item naming this text."""
    qw = set(words(question))
    ranked: list[tuple[tuple[float, ...], Anchor]] = []
    for lst in lists:
        if must_contain is not None and find_anchor(must_contain, [lst]) is None:
            continue
        for idx, item in enumerate(lst.items):
            iw = words(label_core(item))
            if not iw:
                continue
            cov = sum(w in qw for w in iw) / len(iw)
            if cov < min_coverage or cov == 0:
                continue
            rank = (float(any(h < cited for h in lst.held_by(idx))), cov, len(iw),
                    -lst.source)
            ranked.append((rank, Anchor(lst, idx, cov)))
    # an item whose words are all inside another named item's of the same list ("Group
    # Channels" inside "Working Group Channels") is not the one the question names
    sets = [(id(a.lst), frozenset(words(label_core(a.lst.items[a.index])))) for _, a in ranked]
    keep = [r for r, (lid, ws) in zip(ranked, sets, strict=True)
            if not any(lid == ol and ws < other for ol, other in sets)]
    # ... and one inside a named item of another list ranks after the items it is not inside
    keep = [((float(not any(ws < other for _, other in sets)), *r[0]), r[1])
            for r, (_, ws) in zip(keep, [sets[ranked.index(k)] for k in keep], strict=True)]
    # a code the question names (`#payroll`, FW-301, CFO) must be in the item
    codes = set(words(" ".join(_CODE.findall(question))))
    if codes:
        keep = [r for r in keep if codes & set(words(label_core(r[1].lst.items[r[1].index])))]
    keep.sort(key=lambda r: r[0], reverse=True)
    return [a for _, a in keep]


def find_anchor(question: str, lists: Sequence[ItemList], *, min_coverage: float = 1.0,
                must_contain: str | None = None, cited: int = 0) -> Anchor | None:
    """The best of :func:`find_anchors`, or ``None``."""
    found = find_anchors(question, lists, min_coverage=min_coverage,
                         must_contain=must_contain, cited=cited)
    return found[0] if found else None


def move(anchor: Anchor, step: int | str) -> str | None:
    """The label (core form) ``step`` items from the anchor (``"first"``/``"last"`` for the
    ends), or ``None`` past either end."""
    items = anchor.lst.items
    if step == "first":
        idx = 0
    elif step == "last":
        idx = len(items) - 1
    else:
        idx = anchor.index + int(step)
    if idx < 0 or idx >= len(items) or idx == anchor.index:
        return None
    return label_core(items[idx])
