"""The LoopAgent's answer gets the RAG answer's check (rag.decision): a question about an
organisation no document of the collection is by or about, answered from a filing of another
issuer, is "not found" (new-user trial: "What was Walmart's revenue in FY2020?" over Costco's,
Nike's and Amcor's filings was answered with Costco's list of competitors)."""

from __future__ import annotations

from types import SimpleNamespace

from corpus.types import Citation
from gateway.routing.escalation import _other_organisation
from gateway.routing.types import AnswerDraft, RagResult
from rag.resolve import Resolution

_COSTCO = Citation("c-7", "COSTCO_2021_10K.pdf", (), 7, (3, 4),
                   "Our competitors include Walmart, Target, Kroger and Amazon.",
                   doc_id="COSTCO_2021_10K")


def _rag(res: Resolution) -> RagResult:
    return RagResult(hits=[], confidence=0.5, raw=SimpleNamespace(resolution=res))


def test_another_issuers_filing_does_not_answer_for_an_unknown_organisation() -> None:
    res = Resolution(unknown_subjects=("walmart",), issuer_docs=frozenset({"COSTCO_2021_10K"}))
    draft = AnswerDraft(_COSTCO.quote, [_COSTCO], True, "loop-offline")
    got = _other_organisation(draft, _rag(res))
    assert got is not None and not got.found and got.citations == []
    assert got.related == [_COSTCO] and "other_organisation:walmart" in got.flags
    assert res.other_organisation("COSTCO_2021_10K") == "other_organisation:walmart"


def test_other_answers_stand() -> None:
    draft = AnswerDraft(_COSTCO.quote, [_COSTCO], True, "loop-offline")
    known = Resolution(issuer_docs=frozenset({"COSTCO_2021_10K"}))  # no unknown subject
    assert _other_organisation(draft, _rag(known)) is draft
    markdown = Resolution(unknown_subjects=("gitlab",), issuer_docs=frozenset())  # no issuer
    assert _other_organisation(draft, _rag(markdown)) is draft
    assert _other_organisation(draft, None) is draft
