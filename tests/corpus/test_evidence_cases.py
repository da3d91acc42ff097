"""A question's extreme word and a text's bound (corpus.evidence.bounds), and a clause that
enumerates cases (corpus.evidence.cases), on the real 劳动合同法 PDF of ../shared/eval:
第十九条 states the longest probation for three contract lengths, one unit each.

Found by a new-user trial: "劳动合同的试用期最长不得超过多久？" was answered "…试用期不得超过
二个月；" (one case of three) at confidence 0.991, and on a collection of the zh PDFs alone
"非全日制用工劳动报酬结算支付周期最长不得超过十五日。" (it holds 最长 itself, not 试用期)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus.chunker import chunk_document
from corpus.citations import make_citation
from corpus.evidence import TermMatcher, split_units
from corpus.evidence.bounds import bound_direction, states_bound
from corpus.evidence.cases import asks_value, case_series, named_case
from corpus.parsers import parse_file
from corpus.tokenizer import Tokenizer
from corpus.types import Chunk

LAW = "zh/docs/pdf/labor_contract_law.pdf"
LONGEST = "劳动合同的试用期最长不得超过多久？"


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    return Tokenizer()


@pytest.fixture(scope="module")
def chunks(eval_dir: Path) -> list[Chunk]:
    return chunk_document(parse_file(eval_dir / LAW), rel_path=LAW)


@pytest.fixture(scope="module")
def article19(chunks: list[Chunk]) -> Chunk:
    return next(c for c in chunks if "三年以上固定期限和无固定期限的劳动合同" in c.text)


def _matcher(tok: Tokenizer, question: str, style: str = "quote") -> TermMatcher:
    if style == "quote":  # the RAG path's matcher (rag.extractive)
        return TermMatcher(tok.key_terms(question), normalize=tok.normalize, weighting="digits")
    return TermMatcher(tok.key_terms(question), tok)  # the LoopAgent's


def _case(chunk: Chunk, needle: str, style: str = "quote") -> str:
    return next(u for u in split_units(chunk, style) if needle in u.replace("\n", ""))  # type: ignore[arg-type]


def test_extreme_words_and_bounds() -> None:
    assert [bound_direction(t) for t in ("最长", "最少", "maximum", "shortest", "最低工资",
                                         "试用期")] == ["upper", "lower", "upper", "lower",
                                                         None, None]
    assert states_bound("试用期不得\n超过六个月。", "upper")  # a PDF line break inside
    assert states_bound("网络日志不少于六个月", "lower")
    assert states_bound("contracts of up to three years", "upper")
    assert not states_bound("依照以下规定执行", "upper")  # 以下 = "the following"
    assert not states_bound("试用期不得超过六个月。", "lower")


def test_a_clause_stating_the_bound_covers_the_extreme_word(tok: Tokenizer,
                                                            chunks: list[Chunk],
                                                            article19: Chunk) -> None:
    m = _matcher(tok, LONGEST)
    case = _case(article19, "不满三年的，试用期不得超过二个月")
    part_time = next(u for c in chunks for u in split_units(c, "quote")
                     if "支付周期最长不得超过十五日" in u.replace("\n", ""))
    # 试用期, 劳动合同 and the bound 不得超过 (for 最长): the whole question; the part-time
    # pay line holds 最长, 不得, 超过 only (before: 0.8 against 0.6, and the retrieval rank
    # of its chunk made it the answer)
    assert m.credits(case)["最长"] == 1.0
    assert m.coverage(case) == 1.0
    assert m.coverage(part_time) == pytest.approx(0.6)


@pytest.mark.parametrize("style", ["quote", "scan"])
def test_a_case_of_article_19_belongs_to_its_series(tok: Tokenizer, article19: Chunk,
                                                   style: str) -> None:
    unit = _case(article19, "一年以上不满三年", style)
    series = case_series(article19, unit, _matcher(tok, LONGEST, style), style)  # type: ignore[arg-type]
    assert series is not None and len(series.units) == 3 and series.index == 1
    flat = series.text.replace("\n", "")
    assert "不得超过一个月" in flat and "不得超过二个月" in flat and "不得超过六个月" in flat
    assert series.text in article19.text  # verbatim: it can be quoted
    assert make_citation(article19, series.text) is not None


@pytest.mark.parametrize(("question", "names"), [
    (LONGEST, None),  # names no case: every case is the answer
    ("劳动合同的试用期不得超过多久？", None),
    ("劳动合同期限三年以上的，试用期不得超过多久？", 2),
    ("劳动合同期限一年以上不满三年的，试用期不得超过多久？", 1),
    ("劳动合同期限三个月以上不满一年的，试用期不得超过多久？", 0),
])
def test_the_case_a_question_names(tok: Tokenizer, article19: Chunk, question: str,
                                   names: int | None) -> None:
    m = _matcher(tok, question)
    series = case_series(article19, _case(article19, "一年以上不满三年"), m)
    assert series is not None
    assert named_case(series, m.terms, tok.normalize) == names


def test_a_unit_alone_has_no_series(tok: Tokenizer, chunks: list[Chunk]) -> None:
    q = "劳动者在试用期内提前几日通知用人单位可以解除劳动合同？"
    m = _matcher(tok, q)
    chunk = next(c for c in chunks if "劳动者在试用期内提前三日通知用人单位" in c.text)
    unit = _case(chunk, "劳动者在试用期内提前三日通知用人单位")
    assert case_series(chunk, unit, m) is None


def test_only_a_question_asking_a_value_reads_cases(tok: Tokenizer) -> None:
    """A quantity or an extreme; "什么是生成文法？" is answered by its sentence, even when the
    next one is joined to it by ；"""
    for q in (LONGEST, "劳动合同期限三年以上的，试用期不得超过多久？",
              "What is the maximum probation period?"):
        assert asks_value(q, tok.key_terms(q)), q
    for q in ("什么是生成文法？", "关岛有四分之三的土地不是什么？"):
        assert not asks_value(q, tok.key_terms(q)), q
