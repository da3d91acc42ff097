"""The debt securities a US filer has registered to trade on an exchange, read off the cover
page of its 10-K or 10-Q: the table under "Securities registered pursuant to Section 12(b) of
the Act" (SEC Forms 10-K and 10-Q, cover page; one line per class: title, trading symbol,
exchange).

"Which debt securities are registered to trade on a national securities exchange under American
Express' name as of 2022?" (FinanceBench dev; gold "There are none") was answered with the
cover-page sentence listing the common shares: the answer is the classes of notes, debentures
or bonds in that table, and "there are none" when it lists none — which no retrieved sentence
says. Asked of a document whose cover page holds no such table, nothing is answered here.
Pure functions over chunks; the caller reads the document's chunks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from corpus.citations import make_citation
from corpus.period_scope import other_period
from corpus.types import Chunk, Citation

__all__ = ["Table", "asks_registered_debt", "debt_rows", "registered_debt_answer"]

# "which debt securities / notes / bonds … registered (to trade) …", "… listed on an exchange",
# "… traded on the NYSE"; not "interest expense on notes", "the registered agent"
_DEBT = r"(?:debt\s+securities|notes|bonds|debentures)"
_LISTED = r"(?:registered|listed\s+(?:on|with)|trade[sd]?\s+on|trading\s+on)"
_ASK = re.compile(rf"\b{_DEBT}\b.*\b{_LISTED}|\b{_LISTED}\b.*\b{_DEBT}\b", re.I | re.S)
_BLOCK_START = re.compile(r"registered\s+pursuant\s+to\s+section\s+12\s*\(\s*b\s*\)", re.I)
# the table ends where section 12(g)'s line, a check-box line or a note begins
_BLOCK_END = re.compile(r"section\s+12\s*\(\s*g\s*\)|indicate\s+by\s+check\s+mark|^\s*note\b",
                        re.I | re.M)
_BLOCK_CHARS = 4000  # the longest cover table read (Verizon lists ~30 classes of notes)
# a class of debt: "1.500% Notes due 2026", "Floating Rate Notes due 2020", "5.50% Notes Due
# November 2024", "1.125% Guaranteed Senior Notes Due 2027", "Alerian MLP Index ETNs due May
# 24, 2024", "Guarantee of Callable Step-Up Fixed Rate Notes due April 26, 2028 of …"
_DEBT_WORD = r"\b(?:notes?|debentures?|bonds?|etns?)\b"
_DEBT_ROW = re.compile(rf"^[^\n]*?{_DEBT_WORD}[^\n]{{0,40}}?\bdue\b[^\n]*$", re.I | re.M)
# where a debt title starts inside a line that also holds another class (a table row the PDF
# merged: "| Ordinary Shares, par value $0.01 per share 1.125% Guaranteed Senior Notes Due 2027 |")
_TITLE_START = re.compile(r"\d+(?:\.\d+)?\s*%|\b(?:floating|fixed)\s+rate\b|\bguarantee\b",
                          re.I)
_EQUITY = re.compile(r"\b(?:common|ordinary|preferred|preference)\s+(?:stock|shares?)\b", re.I)
# a title running on to the next line ("… due April 26, 2028 of JPMorgan Chase" / "Financial
# Company LLC JPM/28 The New York Stock Exchange") ends on the line naming an exchange
_EXCHANGE = re.compile(r"exchange|\bnyse\b|nasdaq|\bmarket\b|\blse\b", re.I)
_PERIOD_LINE = re.compile(r"(?:fiscal\s+year|quarterly\s+period|period)\s+ended\s+([^\n]{0,40})",
                          re.I)
_COVER_CHUNKS = 6  # the first chunks of a document searched for its cover page


def asks_registered_debt(question: str) -> bool:
    """True when ``question`` asks which debt securities (notes, bonds, debentures) are
    registered ("Which debt securities are registered to trade on a national securities exchange
    under 3M's name as of 2022?")."""
    return _ASK.search(question) is not None


def _end(text: str, pos: int) -> int | None:
    """Where the Section 12(b) table ends in ``text`` from ``pos`` on (the start of the line
    that ends it), or ``None`` when it runs to the end of ``text`` (into the next chunk)."""
    m = _BLOCK_END.search(text, pos, min(len(text), pos + _BLOCK_CHARS))
    if m is None:
        return None if len(text) - pos < _BLOCK_CHARS else pos + _BLOCK_CHARS
    return len(text[: text.rfind("\n", 0, m.start()) + 1].rstrip())


Row = tuple[int, int, str]  # (start, end) of a debt class's lines in a chunk's text, its title


def _row(text: str, m: re.Match[str], stop: int) -> Row:
    """The debt class of the line ``m`` matched in ``text``: its lines (the next one or two too
    while none names an exchange and the next is no other class) and its title (from the debt
    title's start when the line also holds an equity class, table rules dropped)."""
    end = m.end()
    for _ in range(2):
        if (_EXCHANGE.search(text, m.start(), end) or end >= stop
                or re.search(r"(?:19|20)\d\d\W*$", text[m.start():end])):
            break  # the line names its exchange, or ends at the due date: the title is whole
        nxt = text.find("\n", end + 1)
        nxt = stop if nxt < 0 or nxt > stop else nxt
        following = text[end:nxt]
        if _DEBT_ROW.search(following) or _EQUITY.search(following):
            break  # the next class: this one's exchange is written apart (a column of its own)
        end = nxt
    line = text[m.start():end]
    debt = re.search(_DEBT_WORD, line, re.I)
    begin = 0
    if debt is not None and _EQUITY.search(line, 0, debt.start()):
        starts = [t.start() for t in _TITLE_START.finditer(line, 0, debt.start())]
        begin = starts[-1] if starts else 0
    title = " ".join(line[begin:].replace("|", " ").split())
    return m.start(), end, title


class Table(NamedTuple):
    """The Section 12(b) table of a document: the ``cover`` chunk it starts in, ``start`` /
    ``end`` of its part in that chunk's text (heading line included; ``end`` the chunk's end
    when it runs on), ``heading`` where its heading's words start, and per chunk it spans (it
    may run into the next two) its debt classes (:data:`Row`; none listed: no pairs)."""

    cover: Chunk
    start: int
    end: int
    heading: int
    parts: list[tuple[Chunk, list[Row]]]


def debt_rows(chunks: Sequence[Chunk]) -> Table | None:
    """The Section 12(b) table in ``chunks`` (one document's, in order), or ``None`` when no
    chunk holds such a table."""
    for i, chunk in enumerate(chunks):
        m = _BLOCK_START.search(chunk.text)
        if m is None:
            continue
        out: list[tuple[Chunk, list[Row]]] = []
        pos, cover_end = m.end(), len(chunk.text)
        for part in chunks[i : i + 3]:
            end = _end(part.text, pos)
            stop = len(part.text) if end is None else end
            if part is chunk:
                cover_end = stop
            rows = [_row(part.text, r, stop) for r in _DEBT_ROW.finditer(part.text, pos, stop)]
            if rows:
                out.append((part, rows))
            if end is not None:
                break
            pos = 0
        return Table(chunk, chunk.text.rfind("\n", 0, m.start()) + 1, cover_end, m.start(), out)
    return None


def _other_period(question: str, before: Sequence[Chunk], table: Table) -> bool:
    """True when ``question`` pins years and the filing's period line ("For the fiscal year
    ended December 31, 2022"), read in the chunks before its Section 12(b) table, states none of
    them: the filing is of another period."""
    m = _PERIOD_LINE.search("\n".join([*(c.text for c in before),
                                       table.cover.text[: table.heading]]))
    return m is not None and other_period(question, m.group(1)) is not None


def registered_debt_answer(
    question: str, chunks: Sequence[Chunk], document_chunks: Callable[[str], list[Chunk]]
) -> tuple[str, list[Citation]] | None:
    """The answer to :func:`asks_registered_debt` from the cover page of the document of the
    first of ``chunks`` (the retrieved or read chunks, best first): the debt classes its
    Section 12(b) table lists, or "There are none" with the table quoted; cited verbatim, one
    citation per chunk the table spans. ``None`` when the question asks no such thing, that
    document's first six chunks hold no such table, or its period line states none of the
    years the question pins ("as of 2020" of a 2022 10-K: ``corpus.period_scope``).

    :param document_chunks: ``doc_id -> every chunk of that document`` in document order
        (blocking; the store's ``document_chunks``; its errors are raised).
    :returns: ``("The debt securities registered …: 1.500% Notes due 2026 MMM26 New York
        Stock Exchange; …", citations)``.
    """
    if not asks_registered_debt(question) or not chunks:
        return None
    first = document_chunks(chunks[0].doc_id)[:_COVER_CHUNKS]
    table = debt_rows(first)
    if table is None or _other_period(question, first[: first.index(table.cover)], table):
        return None
    parts = table.parts
    if not parts:
        cit = make_citation(table.cover, table.cover.text[table.start : table.end])
        if cit is None:
            return None
        return ("There are none: no notes, debentures or bonds are among the securities "
                f"registered pursuant to Section 12(b) of the Act — {cit.quote}", [cit])
    cits = [c for part, rows in parts
            if (c := make_citation(part, part.text[rows[0][0]:rows[-1][1]])) is not None]
    if not cits:
        return None
    titles = [title for _, rows in parts for *_, title in rows]
    return ("The debt securities registered pursuant to Section 12(b) of the Act: "
            + "; ".join(titles), cits)
