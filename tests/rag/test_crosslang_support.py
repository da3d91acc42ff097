"""The answer-support refusal (``rag.decision.AnswerDecider``, step 5) is not applied to a
question in another script than its passages: its coverage features count the question's own
words, which those passages cannot write (the 30 zh-PDF dev questions asked in English on the
8 zh PDFs: 8 refused at p 0.00-0.01; evidence hit 56.7 % -> 63.3 % without it). The same
answer to a question in the passages' script is still refused."""

from __future__ import annotations

from pathlib import Path

from corpus.answer_support import SUPPORT_FEATURES, SupportModel
from corpus.chunker import chunk_document
from corpus.citations import make_citation
from corpus.parsers import parse_file
from corpus.tokenizer import Tokenizer
from rag.decision import AnswerDecider
from rag.steps import drive_inline
from rag.types import Confidence, ConfidenceFeatures, Retrieval, RetrievedChunk

TOK = Tokenizer()
POLICY = """# 绩效考核管理制度

## 考核结果运用

P3/M3 职级：绩效工资占比为总薪酬的20%；P4/M4 及以上职级：绩效工资占比为总薪酬的25%。
"""
N = len(SUPPORT_FEATURES)
#: a model refusing every answer: p = sigmoid(0) = 0.5 under a threshold of 0.9
STRICT = SupportModel(SUPPORT_FEATURES, (0.0,) * N, (0.0,) * N, (1.0,) * N, 0.0, 0.9, {})


def _decide(tmp_path: Path, question: str) -> tuple[bool, tuple[str, ...]]:
    path = tmp_path / "policy.md"
    path.write_text(POLICY, encoding="utf-8")
    chunks = chunk_document(parse_file(path), rel_path=path.name)
    items = tuple(RetrievedChunk((c,), 1.0 / (i + 1)) for i, c in enumerate(chunks))
    r = Retrieval(question, "c", items, Confidence(0.9, ConfidenceFeatures()), "keyword",
                  key_terms=tuple(TOK.key_terms(question)))
    decider = AnswerDecider(TOK, None, make_citation=make_citation, support_model=STRICT)
    d = drive_inline(decider.flow(r))
    return d.found, d.flags


def test_an_english_question_on_chinese_passages_is_not_refused_by_support(
        tmp_path: Path) -> None:
    found, flags = _decide(tmp_path, "What share of total pay is performance pay for job grade "
                                     "P3/M3? (绩效 工资)")
    assert found and not any(f.startswith("unsupported:") for f in flags), flags


def test_the_same_answer_to_a_chinese_question_is_still_refused(tmp_path: Path) -> None:
    found, flags = _decide(tmp_path, "P3/M3职级的绩效工资占总薪酬的比例是多少？")
    assert not found and "unsupported:0.50" in flags, flags
