"""Which script a text is written in — CJK characters or Latin letters — and whether a question
and the passages read for it are in different ones (a cross-language question: an English
question on Chinese documents, or the reverse). Scripts only, no language model: a question of
Latin letters (CJK under :data:`QUESTION_OTHER_MAX` of its letters: dictionary terms appended
to it are few) over passages mostly CJK (over :data:`PASSAGE_CJK_MIN`), or the reverse.

Used by the RAG path's cross-language evidence (``rag.cross_evidence``) and by the LoopAgent's
second opinion (``loop.second_opinion``): term-coverage features cannot cross scripts.
"""

from __future__ import annotations

import re

from corpus.evidence.units import CJK

__all__ = ["PASSAGE_CJK_MIN", "QUESTION_OTHER_MAX", "other_script", "script_share"]

_LATIN = re.compile(r"[A-Za-z]")
#: most CJK share of a question's letters still read as a Latin-script question
QUESTION_OTHER_MAX = 0.25
#: least CJK share of passages' letters read as Chinese passages (and, mirrored, the most for
#: English passages under a Chinese question: 1 - PASSAGE_CJK_MIN)
PASSAGE_CJK_MIN = 0.5


def script_share(text: str) -> float:
    """Share of CJK characters among the CJK characters and Latin letters of ``text`` (0..1;
    0.5 when it has neither)."""
    cjk, latin = len(CJK.findall(text)), len(_LATIN.findall(text))
    return cjk / (cjk + latin) if cjk + latin else 0.5


def other_script(question_share: float, passage_share: float) -> bool:
    """True when a question of CJK share ``question_share`` and passages of CJK share
    ``passage_share`` (:func:`script_share`) are in different scripts
    (:data:`QUESTION_OTHER_MAX`, :data:`PASSAGE_CJK_MIN`)."""
    if question_share <= QUESTION_OTHER_MAX:
        return passage_share >= PASSAGE_CJK_MIN
    if question_share >= 1.0 - QUESTION_OTHER_MAX:
        return passage_share <= 1.0 - PASSAGE_CJK_MIN
    return False
