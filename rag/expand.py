"""Query expansion with a field vocabulary: a question that names one phrase of a group is also
searched with the group's other phrases (issue 15: "capital expenditure" is printed as
"Purchases of property, plant and equipment" in a cash-flow statement; "COGS" as "Cost of
sales"; the "balance sheet" as "Consolidated Balance Sheets").

The groups are data (``rag/expansions.json``: standard statement and line-item names of
financial filings; more fields can be added) and matching is on normalised text (NFKC, lower
case; whole words for Latin phrases). Expansion phrases are added to the keyword (BM25) query
at ``weight`` per term — below the question's own terms (weight = count ≥ 1) so they break ties
and reach rows that share no word with the question, without outvoting it — and offered to the
extractive answer as extra phrases a table row may hold.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path

from corpus.tokenizer import term_index
from corpus.types import SparseVector
from rag.pages import squash

__all__ = ["QueryExpander"]

_PACKAGED = Path(__file__).with_name("expansions.json")


@lru_cache(maxsize=4)
def _load(path: str) -> tuple[tuple[str, ...], ...]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return tuple(tuple(p.lower() for p in g) for g in data["groups"])


def _pattern(phrase: str) -> re.Pattern[str]:
    if phrase.isascii():
        return re.compile(r"(?<![a-z0-9])" + re.escape(phrase) + r"(?![a-z0-9])")
    return re.compile(re.escape(phrase))


class QueryExpander:
    """Expands questions with the groups of a vocabulary file.

    :param query_terms: the tokenizer's query analysis (``Tokenizer.query_terms``).
    :param normalize: the tokenizer's normaliser (``Tokenizer.normalize``).
    :param path: the vocabulary (default: the packaged ``rag/expansions.json``).
    :param weight: BM25 query weight of each expansion term (0..1, default 0.3).
    :raises OSError, ValueError: the vocabulary file is missing or malformed.
    """

    def __init__(
        self,
        query_terms: Callable[[str], list[str]],
        normalize: Callable[[str], str],
        *,
        path: Path | None = None,
        weight: float = 0.3,
    ) -> None:
        self._terms = query_terms
        self._normalize = normalize
        self.weight = weight
        self._groups = [  # (patterns, phrases, the multi-word phrases squashed)
            (tuple(_pattern(p) for p in g), g, tuple(squash(p) for p in g if " " in p))
            for g in _load(str(path or _PACKAGED))
        ]

    def phrases(self, question: str) -> list[str]:
        """Expansion phrases for ``question`` (normalised; none already in the question). A
        multi-word phrase also matches written without its spaces ("free cashflow", "cost of
        goodssold")."""
        text = self._normalize(question)
        flat = squash(text)
        out: list[str] = []
        for pats, group, squashed in self._groups:
            if any(p.search(text) for p in pats) or any(sq in flat for sq in squashed):
                out += [ph for ph, pat in zip(group, pats, strict=True) if not pat.search(text)]
        return list(dict.fromkeys(out))

    def expand(self, question: str, sparse: SparseVector) -> tuple[SparseVector, list[str]]:
        """``(sparse query with the expansion terms added, the expansion phrases)``; the query
        is returned unchanged when nothing expands."""
        phrases = self.phrases(question)
        if not phrases:
            return sparse, []
        acc = dict(zip(sparse.indices, sparse.values, strict=True))
        for term in dict.fromkeys(t for ph in phrases for t in self._terms(ph)):
            idx = term_index(term)
            if idx not in acc:
                acc[idx] = self.weight
        items = sorted(acc.items())
        return SparseVector(tuple(i for i, _ in items), tuple(v for _, v in items)), phrases

    @staticmethod
    def terms_for_evidence(key_terms: Sequence[str], phrases: Sequence[str]) -> list[str]:
        """Key terms plus the multi-word expansion phrases (a statement row such as
        "Purchases of property, plant and equipment" holds the phrase, not the question's
        words); single words are left out (too common to be evidence alone)."""
        return [*key_terms, *(p for p in phrases if " " in p or "&" in p)]
