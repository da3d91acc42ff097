"""The evidence layer: text units of a chunk, what a unit is (a figure, another code, an
order to a model, a revision history), key-term matching and the one scorer — shared by the
RAG path's extractive answer (``rag.extractive``) and the LoopAgent (``loop.evidence``).

- :mod:`corpus.evidence.units`: sentences and table rows, Chinese and English, verbatim
  substrings of a chunk; one splitter with two styles (``"quote"``: RAG, ``"scan"``: loop).
- :mod:`corpus.evidence.recognise`: figures, foreign codes, injection lines, revision histories.
- :mod:`corpus.evidence.terms`: :class:`TermMatcher` (key terms a text holds, their weights).
- :mod:`corpus.evidence.scorer`: :class:`UnitScorer` (key-term weight a unit covers with the
  context and chunk credits), rank prior, length norm.

Weights come from ``corpus.tuning.TUNING.evidence``. Pure functions and classes, no I/O.
"""

from corpus.evidence.recognise import (
    asks_history,
    asks_revision,
    excluded,
    flat_code,
    holds_figure_unit,
    opens_revision_history,
    under_revision_heading,
)
from corpus.evidence.scorer import (
    ScoredUnit,
    UnitScorer,
    covered_weight,
    length_norm,
    rank_prior,
    unit_context,
)
from corpus.evidence.terms import TermMatcher, Weighting, nfkc_lower, term_weight
from corpus.evidence.units import UnitStyle, join_lines, quote_sentences, row_line, split_units

__all__ = [
    "ScoredUnit",
    "TermMatcher",
    "UnitScorer",
    "UnitStyle",
    "Weighting",
    "asks_history",
    "asks_revision",
    "covered_weight",
    "excluded",
    "flat_code",
    "holds_figure_unit",
    "join_lines",
    "length_norm",
    "nfkc_lower",
    "opens_revision_history",
    "quote_sentences",
    "rank_prior",
    "row_line",
    "split_units",
    "term_weight",
    "unit_context",
    "under_revision_heading",
]
