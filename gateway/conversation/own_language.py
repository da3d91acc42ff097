"""The question's own language (for :mod:`gateway.conversation.crosslang`): its script
(:func:`is_latin`), a collection's share of documents in a language (:func:`language_share`),
and how many of the question's own words one document holds (:func:`own_best`) — a document in
the question's language that holds them is what it asks about, so no other-language key terms
are added. Pure over a keyword-search callable; no index of its own.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Collection, Sequence

import rjieba

from gateway.conversation.cedict import ZH_QUESTION_WORDS
from gateway.conversation.english_terms import STOP_WORDS, codes

__all__ = ["is_latin", "language_share", "own_best"]

_EN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_HAN = re.compile(r"[\u4e00-\u9fff]")


def is_latin(question: str) -> bool:
    """Whether ``question`` is in Latin script (fewer than 30 % of its characters Han, each
    counted three times): its other-language documents are then the Chinese ones."""
    return len(_HAN.findall(question)) * 3 < len(question.strip()) * 0.3


def language_share(counts: dict[str, int], language: str) -> float:
    """The share of the collection's documents (``counts``: per language) in ``language``."""
    return counts.get(language, 0) / (sum(counts.values()) or 1)


def own_best(question: str, latin: bool, search: Callable[[str], Sequence[tuple[str, str]]],
             own: Collection[str] | None = None) -> tuple[int, int]:
    """``(most of the question's own words one document holds, words searched)`` (blocking):
    its Chinese words of two characters or more (rjieba), or its English content words of three
    letters or more (eight at most searched).

    :param latin: :func:`is_latin` of ``question``.
    :param search: ``term -> [(doc_id, text), …]``, a keyword search of the collection.
    :param own: the doc ids of the collection's documents in the question's own language, or
        ``None`` (every document counts). Given, the question's codes (CH583) are searched
        too — a code names a document in any language — and only those documents count.
    """
    if latin:
        words = [w.lower() for w in _EN_WORD.findall(question)
                 if len(w) >= 3 and w.lower() not in STOP_WORDS]
    else:
        words = [w for w in rjieba.cut(question)
                 if len(w) >= 2 and _HAN.search(w) and w not in ZH_QUESTION_WORDS]
    if own is not None:
        words += [c.lower() for c in codes(question)]
    words = list(dict.fromkeys(words))[:8]
    if len(words) < 2:
        return 0, len(words)
    per_doc: dict[str, int] = defaultdict(int)
    for w in words:
        for d in {d for d, t in search(w) if w in t.lower()}:
            if own is None or d in own:
                per_doc[d] += 1
    # one search for all the words: a passage holding many of them (a word's own ten best
    # hits can all be elsewhere in a large collection)
    together = max((sum(w in t.lower() for w in words)
                    for d, t in search(" ".join(words))
                    if own is None or d in own), default=0)
    return max(max(per_doc.values(), default=0), together), len(words)
