"""Which dictionary headwords a cross-language question keeps
(:meth:`gateway.conversation.crosslang.CrossLanguage.terms_for`): the collection is searched
for each candidate (:class:`TermSearch`), the document holding the most of the question's units
is the one asked about (:func:`focus_document`), and the longest glossed runs keep at most two
headwords that document holds (:func:`choose_terms`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gateway.conversation.english_terms import Span

__all__ = ["CrossTerms", "Found", "TermSearch", "choose_terms", "focus_document"]

@dataclass(frozen=True, slots=True)
class CrossTerms:
    """Terms added to a question: ``terms`` in the documents' language, ``units`` the question
    units they translate, ``coverage`` the share of the question's units translated."""

    terms: tuple[str, ...]
    units: tuple[str, ...]
    coverage: float
    #: the document the question names by its file name (``(doc_id, path)``), when sure:
    #: retrieval then runs inside it
    document: tuple[str, str] | None = None
    #: the text appended to the question in place of ``terms`` (an LLM's translation of it)
    phrase: str | None = None
    #: the phrase is routed alone, in place of the question (a collection mostly in the
    #: phrase's language: the question's own words match none of its passages)
    alone: bool = False



#: a headword the collection holds: its glossed run, the headword, the documents holding it
Found = tuple[Span, str, frozenset[str]]


class TermSearch:
    """The documents whose chunks hold a term (a keyword search of one collection, each term
    searched once)."""

    def __init__(self, search: Callable[[str, str], Sequence[tuple[str, str]]],
                 collection: str) -> None:
        self.search, self.collection = search, collection
        self._memo: dict[str, frozenset[str]] = {}

    def docs_of(self, term: str) -> frozenset[str]:
        """The ids of the documents among the hits for ``term`` whose text holds it."""
        if term not in self._memo:
            t = term.lower()
            self._memo[term] = frozenset(d for d, text in self.search(self.collection, term)
                                         if t in text)
        return self._memo[term]


def focus_document(found: list[Found], question_codes: list[str], search: TermSearch,
           named: tuple[str, str] | None) -> tuple[str | None, set[str]]:
    """The document asked about and the question's units (``run:index`` cells, codes) it
    holds: the named one, else the one holding the most of them when it holds two or more."""
    per_doc: dict[str, set[str]] = defaultdict(set)
    for sp, _h, where in found:
        for d in where:
            per_doc[d].update(f"{sp.run}:{i}" for i in range(sp.start, sp.start + sp.size))
    for code in question_codes:
        for d in search.docs_of(code):
            per_doc[d].add(code)
    best_doc, best_cells = max(per_doc.items(), key=lambda kv: len(kv[1]))
    if named is not None:
        return named[0], per_doc.get(named[0], set())
    return (best_doc if len(best_cells) >= 2 else None), best_cells


def choose_terms(spans: list[Span], found: list[Found], focus: str | None
            ) -> tuple[list[str], list[str], set[tuple[int, int]]]:
    """Longest glossed runs first: at most two headwords each that the (focus) document holds;
    a shorter run inside a kept one is not read again, one whose headwords the document lacks
    leaves its words to shorter runs. Returns ``(terms, units, cells taken)``."""
    chosen: list[str] = []
    units: list[str] = []
    taken: set[tuple[int, int]] = set()
    for sp in sorted(spans, key=lambda x: (-x.size, x.run, x.start)):
        cells = {(sp.run, i) for i in range(sp.start, sp.start + sp.size)}
        if cells & taken:
            continue
        heads = [h for s2, h, where in found
                 if s2 is sp and (focus is None or focus in where)][:2]
        if not heads:
            continue
        taken |= cells
        units.append(sp.unit)
        chosen.extend(h for h in heads if h not in chosen)
    return chosen, units, taken
