"""The types of a derived figure (``corpus.derived``): a statement row found in a chunk, the
computed figure, and the callables the figure functions take."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from corpus.statement_rows import StatementRow
from corpus.types import Chunk, Citation

__all__ = ["CitationMaker", "Derived", "KeyTerms", "MoreRows", "Normalize", "RowAt", "TermsOf",
           "TextAbove"]


@dataclass(frozen=True, slots=True)
class RowAt:
    """A statement row found in a retrieved chunk: the ``unit`` (verbatim line), the parsed
    ``row``, the ``years`` heading its cells (``None`` when no header was found) and the
    ``chunk`` it is quoted from, the ``scale`` its statement writes cells in
    (``"millions"``, :func:`corpus.statement_rows.table_unit`; ``None`` when not written) and
    the ``statement`` whose title stands above it (``"balance"``, ``"income"``,
    ``"cash_flows"``: ``corpus.derived._statements``; ``None``: no title read above it)."""

    unit: str
    row: StatementRow
    years: tuple[str, ...] | None
    chunk: Chunk
    scale: str | None = None
    statement: str | None = None


@dataclass(frozen=True, slots=True)
class Derived:
    """A computed figure: ``text`` (result, then the cells and the arithmetic), ``value`` (the
    rounded result), ``rows`` (the rows used, each to be cited)."""

    text: str
    value: float
    rows: tuple[RowAt, ...]


#: text -> its key terms (``Tokenizer.key_terms``); text -> the key terms' normal form
#: (``Tokenizer.normalize``); text -> ``(key terms, key terms + field phrases)`` of a phrase
KeyTerms = Callable[[str], Sequence[str]]
Normalize = Callable[[str], str]
TermsOf = Callable[[str], tuple[Sequence[str], Sequence[str]]]

# chunk -> the text of the chunks before it in its document (a statement's period header and
# scale often sit a page part or three above the row: a table split into chunks)
TextAbove = Callable[[Chunk], str]


# (search text, document id or None) -> runs of adjacent chunks of that document holding it: the
# rows of a line item no retrieved chunk holds (the balance sheet when the income statement
# was retrieved), looked up inside the document the formula reads
MoreRows = Callable[[str, str | None], Sequence[Sequence[Chunk]]]

#: a quote verifier (``corpus.citations.make_citation``): ``(chunk, quote) -> Citation | None``
CitationMaker = Callable[[Chunk, str], Citation | None]
