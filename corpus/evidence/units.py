"""Text units of a chunk: sentences and table rows, Chinese and English, each a verbatim
substring of the chunk (so it can be quoted and verified by ``corpus.citations``).

One splitter, two styles (:data:`UnitStyle`), because the two readers want different units:

- ``"quote"`` (the RAG path's extractive answer, ``rag.extractive``): whole sentences shown as
  the answer — 12 characters or more (6 for non-ASCII text), at most 600; a sentence ends after
  ``. ! ? ;`` + space, after ``。！？；``, at a blank line or before a line opening a list item,
  heading or clause (``- …``, ``1. …``, ``第三条``); a piece ending mid-sentence (after
  ``，、：,:`` or a word, as a PDF line break leaves it) joins the next one; Markdown heading
  lines and the chunk's own section-path lines are boundaries, never units. In a table chunk
  (or one with 3 or more ``|`` lines) the body rows are units; its header row and ``---``
  separator are not.
- ``"scan"`` (the LoopAgent, ``loop.evidence``): short units ranked by key-term coverage — 4
  characters or more, cut at ``max_len``; a sentence also ends at ``；;`` and a line break
  inside the joined paragraph, and between English sentences; every Markdown row (header row
  included) and every statement row written as a text line (``Net income $ 3,033 $ 10,073``,
  :func:`corpus.statement_rows.parse_row`) is a unit of its own — and, under a line of its
  own naming its columns (:func:`grid_header`: an unruled grid), also one with that line in
  front, so the values are read with their column names; a paragraph whose last line is
  wrapped (20+ characters, no sentence end) continues into the next one, a PDF block break not
  being a paragraph end.

In both styles a unit never runs across an injection line (``corpus.injection``).
The two styles stay apart so that answers stay identical (issue 18): on the dev questions the
RAG path's evidence hit and the LoopAgent's were measured with these units.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from corpus.injection import clean_segments
from corpus.statement_rows import parse_row
from corpus.types import Chunk

__all__ = ["CJK", "UnitStyle", "grid_header", "join_lines", "quote_sentences", "row_line",
           "split_units", "through_next"]

UnitStyle = Literal["quote", "scan"]

#: one CJK ideograph (the unified block and extension A)
CJK = re.compile(r"[\u3400-\u9fff]")

# --- "quote": sentence ends, blank lines, and line starts that open a list item, heading or
# clause; a single line break (a PDF's hard wrap) stays inside the sentence
_Q_SENT = re.compile(
    r"(?<=[.!?;])\s+|(?<=[。！？；])\s*|\n\s*\n\s*"
    r"|\n(?=\s*(?:[-*•#]|\d{1,3}[.)、]\s|第[一二三四五六七八九十百零〇\d]{1,6}[条章节款]))"
)
# an English clause label, alone or with its run-in title of up to five words ("Clause 4.",
# "Article 12. Refund method."): it starts a unit and the sentence after it joins it, so the
# label stays with its text ("What is Clause 4?"; a new-user trial saw "Clause 4." and
# "Refund method." cut off)
_Q_LABEL = r"(?:clause|article|section|art\.|sec\.|§|rule|regulation)\s*\d+[a-z]?(?:\.\d+)*"
_Q_RUNIN = re.compile(r"\s*" + _Q_LABEL + r"\.?(?:(?:\s+[^\s.!?;]+){1,5}[.:])?\s*$", re.I)
_Q_HEADING = re.compile(r"(?m)^[ \t]*#{1,6}[ \t][^\n]*$")
_Q_LINE = re.compile(r"(?m)^[^\n]*$")
_Q_OPEN_END = re.compile(r"(?:[，、：,:（(]|[^\W\d_])$")
_Q_ITEM_START = re.compile(
    r"\s*(?:[-*•#|]|\d{1,3}[.)、]\s|第[一二三四五六七八九十百零〇\d]{1,6}[条章节款]|"
    + _Q_LABEL + r"\.(?:\s|$))", re.I
)
_Q_TABLE_SEP = re.compile(r"^\|?\s*:?-{2,}")
# a period that ends a word's abbreviation, not a sentence ("PepsiCo, Inc. (“PepsiCo”) held …",
# "Mr. Smith", "Addendum No. 1"): the span goes on (a new-user trial saw "PepsiCo, Inc." cut
# off). Initials ("U.S.", "N.J.", "S.A.") end sentences too often to be joined: measured on the
# dev questions, joining them made long units that out-scored the answering sentence.
_Q_ABBREV_END = re.compile(
    r"(?:\b(?:Inc|Corp|Co|Ltd|Nos?|Mr|Mrs|Ms|Dr|Jr|Sr|vs|Figs?|Dept|approx)\."
    r"|\be\.g\.|\bi\.e\.)$")
_Q_MIN, _Q_MAX = 12, 600
_Q_TAIL = 16  # characters of a span's end read by _Q_OPEN_END / _Q_ABBREV_END (8 needed)

# --- "scan": sentence ends and line breaks; English sentence boundaries inside a piece
_S_SENT = re.compile(r"[^。！？；!?;\n]+(?:[。！？；!?;]|$)|[^\n]+", re.M)
_S_EN_SENT = re.compile(r"(?<=[a-z0-9\)][.!?])\s+(?=[A-Z])")
_S_SENT_END = tuple('。！？.!?;；:：”"’)）】」')
_S_WRAPPED = 20  # characters: a shorter last line is a heading or label, not a wrapped line
_S_MIN = 4


def split_units(chunk: Chunk, style: UnitStyle, max_len: int = 300) -> list[str]:
    """Units of ``chunk`` in document order, in ``style`` (module
    docstring). ``max_len``: the ``"scan"`` style's cut (characters); ``"quote"`` cuts at 600.

    :raises ValueError: for an unknown style.
    """
    if style == "quote":
        return _quote_units(chunk)
    if style == "scan":
        return _scan_units(chunk, max_len)
    raise ValueError(f"unknown unit style {style!r}")


def through_next(chunk: Chunk, unit: str, style: UnitStyle) -> str:
    """The verbatim passage of ``chunk`` from ``unit`` through the unit that follows it
    (:func:`split_units` in ``style``), for a unit that names what the next one says (a
    heading, a caption, a label); the next unit alone when the two are not written as one run
    (a list's units); ``unit`` when it is the last or not a unit of ``chunk``."""
    units, text = split_units(chunk, style), chunk.text
    at = next((i for i, u in enumerate(units) if u == unit), -1)
    if not 0 <= at < len(units) - 1:
        return unit
    after = units[at + 1]
    start = text.find(unit)
    end = text.find(after, start + len(unit)) if start >= 0 else -1
    return text[start:end + len(after)] if end >= 0 else after


def row_line(line: str) -> bool:
    """A table row: a Markdown ``| … |`` line, or a statement row written as a text line
    (``Net income $ 3,033 $ 10,073 $ 11,588``: a label and 2–8 period cells,
    :func:`corpus.statement_rows.parse_row`)."""
    return line.startswith("|") or parse_row(line) is not None


def join_lines(lines: Sequence[str]) -> str:
    """Join a paragraph's lines: no space where either side is CJK (PDF line breaks inside
    Chinese sentences), one space otherwise — equal to the chunk text under the citation
    check's whitespace normal form (``corpus.citations``)."""
    out = ""
    for ln in lines:
        if out and not (CJK.match(out[-1]) or CJK.match(ln[0])):
            out += " "
        out += ln
    return out


# ------------------------------------------------------------------ "quote" (RAG)


def _quote_units(chunk: Chunk) -> list[str]:
    units: list[str] = []
    heads = (chunk.title, *chunk.section_path)
    lines = chunk.text.splitlines()
    if chunk.kind == "table" or sum(1 for ln in lines if ln.lstrip().startswith("|")) >= 3:
        seen_header = False
        for ln in lines:
            s = ln.strip()
            if not s.startswith("|"):
                units.extend(quote_sentences(s, heads))
                continue
            if _Q_TABLE_SEP.match(s):
                continue
            if not seen_header:
                seen_header = True
                continue
            if len(s) >= 5:
                units.append(s)
        return units
    # sentences never run across an injection line (corpus.injection) into the text beside it
    return [u for seg in clean_segments(chunk.text) for u in quote_sentences(seg, heads)]


def quote_sentences(text: str, headings: Sequence[str] = ()) -> list[str]:
    """``"quote"``-style sentences of ``text`` as verbatim substrings (line breaks inside
    kept). Markdown heading lines and lines equal to one of ``headings`` are boundaries, never
    units; a run-on longer than 600 characters falls back to its lines."""
    heads = {h.strip() for h in headings if h.strip()}
    bounds = [(m.start(), m.end()) for m in _Q_HEADING.finditer(text)]
    if heads:  # parsers keep heading text without its ``#``: match the chunk's section path
        bounds += [
            (m.start(), m.end()) for m in _Q_LINE.finditer(text) if m.group(0).strip() in heads
        ]
    out: list[str] = []
    pos = 0
    for a, b in sorted(bounds):
        if a >= pos:
            out.extend(_quote_segment(text[pos:a]))
            pos = b
    out.extend(_quote_segment(text[pos:]))
    return out


def _quote_segment(text: str) -> list[str]:
    spans: list[tuple[int, int]] = []
    pos = 0
    for m in _Q_SENT.finditer(text):
        if m.start() > pos:
            spans.append((pos, m.start()))
        pos = m.end()
    if pos < len(text):
        spans.append((pos, len(text)))
    merged: list[tuple[int, int]] = []
    for a, b in spans:
        prev = ""
        if merged:  # the end of the span so far: both patterns read its last 8 characters
            start, end = merged[-1]
            while end > start and text[end - 1].isspace():
                end -= 1
            prev = text[max(start, end - _Q_TAIL) : end]
        if merged and not _Q_ITEM_START.match(text, a, b) and (
            _Q_OPEN_END.search(prev) or _Q_ABBREV_END.search(prev)
            or _Q_RUNIN.fullmatch(text, merged[-1][0], merged[-1][1])
        ):
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    out = []
    for a, b in merged:
        s = text[a:b].strip()
        pieces = [ln.strip() for ln in s.splitlines()] if len(s) > _Q_MAX else [s]
        for p in pieces:
            if len(p) >= _Q_MIN or (p and not p.isascii() and len(p) >= 6):
                out.append(p[:_Q_MAX])
    return out


# ------------------------------------------------------------------ "scan" (LoopAgent)


def grid_header(header: str, row: str) -> bool:
    """``header`` heads the statement row ``row`` of an unruled grid: a label and as many
    short cells, no digit in it (``考核等级 S A B C D`` over ``考核系数 1.5 1.25 1 0.75 0.5``)
    — the column names the row's values are read under, which a PDF without ruling lines
    leaves as a line of its own."""
    parsed = parse_row(row)
    cells = header.split()
    return (parsed is not None and len(cells) == len(parsed.cells) + 1
            and not any(ch.isdigit() for ch in header) and not header.startswith("|")
            and all(len(c) <= _GRID_CELL for c in cells[1:]))


_GRID_CELL = 8  # characters: a grid header's column name (S, 最小值, Typical)


def _scan_units(chunk: Chunk, max_len: int) -> list[str]:
    units: list[str] = []
    heads = frozenset((chunk.title, *chunk.section_path))  # cut at injection lines (corpus)
    prev: list[str] = []
    for lines in (p for seg in clean_segments(chunk.text) for p in _paragraphs(seg, heads)):
        above = [*prev[-1:], *lines]  # a grid header is a paragraph's line or one alone
        for i in range(1 if len(prev) == 1 else 2, len(above)):
            if grid_header(above[i - 1], above[i]):
                units.append(join_lines(above[i - 1 : i + 1])[:max_len])  # header + first row
        prev = lines
        text_lines: list[str] = []
        for ln in [*lines, ""]:
            if not ln or row_line(ln):
                if text_lines:
                    joined = join_lines(text_lines)
                    for m in _S_SENT.finditer(joined):
                        for piece in _S_EN_SENT.split(m.group(0)):
                            piece = piece.strip()
                            if len(piece) >= _S_MIN:
                                units.append(piece[:max_len])
                    text_lines = []
                if ln and not set(ln) <= set("|-: "):
                    units.append(ln)
            else:
                text_lines.append(ln)
    return units


def _paragraphs(text: str, headings: frozenset[str] = frozenset()) -> list[list[str]]:
    """Non-blank lines grouped by blank lines, except that a text paragraph whose last line is a
    wrapped line (at least 20 characters, not one of ``headings``) that does not end a sentence
    continues into the next text paragraph: a PDF text block can end mid-sentence
    (``…并按照规`` / ``定留存…``), and a unit must not start in the middle of a word."""
    out: list[list[str]] = []
    for para in re.split(r"\n\s*\n", text):
        lines = [ln.strip() for ln in para.split("\n") if ln.strip()]
        if not lines:
            continue
        prev = out[-1] if out else None
        if (
            prev
            and not row_line(prev[-1])
            and not row_line(lines[0])
            and len(prev[-1]) >= _S_WRAPPED
            and prev[-1] not in headings
            and lines[0] not in headings
            and not prev[-1].endswith(_S_SENT_END)
        ):
            prev.extend(lines)
        else:
            out.append(lines)
    return out
