"""Confidence signals that rank right from wrong *within* one collection (issue 15 item 5).

The first confidence features (``rag.confidence.compute_features``) mostly told collections
apart (Chinese passages from financial filings); within FinanceBench or the GitLab handbook
they hardly separated "the top-k holds the evidence" from not (AUROC 0.40 and 0.80 at
cf2ad60). These are computed at query time from the question, the two similarity lists and the
fused items, for any collection:

- :func:`phrase_coverage`: share of the question's adjacent term pairs ("effective tax rate"
  → ``effect tax``, ``tax rate``) that some top-k item holds as adjacent terms — a passage
  holding the asked-for phrase, not only its words scattered;
- :func:`top_ranks`: the top item's reciprocal rank in the dense and in the keyword list (the
  fused winner is also a winner of each list, or only of one);
- :func:`period_match`: the top item (its text, title, section or path) holds a year the
  question names (1 when the question names none);
- :func:`question_terms`: ``log1p`` of the number of distinct key terms (a question naming
  more specifics is found more often).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Sequence

from rag.types import RetrievedChunk

__all__ = ["period_match", "phrase_coverage", "question_terms", "top_ranks"]

_YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20[0-4]\d)(?!\d)")  # 1950..2049, FY2018 and 2018年 too
_SPLIT = re.compile(r"\W+")


def _default_terms(text: str) -> list[str]:
    return [t for t in _SPLIT.split(text.lower()) if t]


def _item_text(item: RetrievedChunk) -> str:
    return f"{item.chunk.title} {item.chunk.section} {item.text}"


def phrase_coverage(question: str, items: Sequence[RetrievedChunk],
                    terms: Callable[[str], list[str]] | None = None) -> float:
    """Share of the question's adjacent term pairs found adjacent in one top-k item (0..1).

    :param terms: the index-side analysis (``Tokenizer.terms``: normalised, stemmed, stopwords
        dropped, text order), applied to the question and to each item's title, section and
        text; default: lower-cased word split.
    :returns: 0 when the question has fewer than two terms or there are no items.
    """
    analyse = terms or _default_terms
    q = analyse(question)
    pairs = {(a, b) for a, b in zip(q, q[1:], strict=False) if a != b}
    if not pairs or not items:
        return 0.0
    held: set[tuple[str, str]] = set()
    for it in items:
        t = analyse(_item_text(it))
        held.update(zip(t, t[1:], strict=False))
    return len(pairs & held) / len(pairs)


def top_ranks(items: Sequence[RetrievedChunk]) -> tuple[float, float]:
    """``(1 / dense rank, 1 / keyword rank)`` of the top item; 0 where it is not in that list."""
    if not items:
        return 0.0, 0.0
    top = items[0]
    return (1.0 / top.dense_rank if top.dense_rank else 0.0,
            1.0 / top.keyword_rank if top.keyword_rank else 0.0)


def period_match(question: str, items: Sequence[RetrievedChunk]) -> float:
    """1 when the question names no year (1950–2049) or the top item's text, title, section or
    path holds one of them; 0 when it holds none (or there is no item)."""
    years = set(_YEAR.findall(unicodedata.normalize("NFKC", question)))
    if not years:
        return 1.0
    if not items:
        return 0.0
    top = items[0]
    held = set(_YEAR.findall(unicodedata.normalize("NFKC", f"{_item_text(top)} {top.chunk.path}")))
    return 1.0 if years & held else 0.0


def question_terms(key_terms: Sequence[str]) -> float:
    """``log1p`` of the number of distinct non-empty key terms."""
    return math.log1p(len({t for t in key_terms if t}))
