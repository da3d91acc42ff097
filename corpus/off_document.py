"""An answer whose document is about something else: it holds under a fifth of the question's
key-term weight (``doc_cov`` of ``corpus.answer_support``). The fitted support model weighs that
feature with the others and, for Chinese, even against it (its weight came out negative on the
dev runs); this floor refuses such an answer whatever the probability
(``corpus.answer_support.SupportModel.threshold_for``), on both paths.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["DOC_COV_FLOOR", "off_document"]

#: Share of the question's key-term weight below which the answer's whole document is about
#: something else (:func:`off_document`). On the 547 dev questions (whole eval collection) the
#: lowest share of an answer citing the gold place was 0.22 (LoopAgent) and 0.32 (RAG); a new
#: user's question on a deleted law ("网络运营者应当留存相关的网络日志不少于多久？") was answered
#: from a contract holding 0.14 of it, found at support 0.88.
DOC_COV_FLOOR = 0.2


def off_document(features: Mapping[str, float]) -> bool:
    """True when the answer's document holds under :data:`DOC_COV_FLOOR` of the question's
    key-term weight (``doc_cov``, asked of the keyword index) and the answer is in the
    question's own script (``other_script`` 0: a cross-language answer shares no words with its
    question): the document is about something else, whatever the fitted probability says
    (``corpus.answer_support.SupportModel.threshold_for`` then refuses). ``False`` when
    ``doc_cov`` was not asked."""
    return (float(features.get("doc_cov", 1.0)) < DOC_COV_FLOOR
            and not float(features.get("other_script", 0.0)))
