"""Field-vocabulary query expansion (rag.expand): statement and line-item names."""

from __future__ import annotations

from corpus.tokenizer import Tokenizer, term_index
from rag.expand import QueryExpander

TOK = Tokenizer()


def test_capex_question_reaches_the_cash_flow_row_name() -> None:
    ex = QueryExpander(TOK.query_terms, TOK.normalize)
    q = "What is 3M's FY2018 capital expenditure in USD millions?"
    phrases = ex.phrases(q)
    assert "purchases of property, plant and equipment" in phrases
    assert "capital expenditure" not in phrases  # already in the question
    base = TOK.sparse_query(q)
    sparse, got = ex.expand(q, base)
    assert got == phrases
    weights = dict(zip(sparse.indices, sparse.values, strict=True))
    for i, v in zip(base.indices, base.values, strict=True):
        assert weights[i] == v  # the question's own terms keep their weight
    assert weights[term_index(TOK.query_terms("plant")[0])] == ex.weight


def test_whole_words_only_and_nothing_for_other_questions() -> None:
    ex = QueryExpander(TOK.query_terms, TOK.normalize)
    assert ex.phrases("网络运营者应当留存网络日志不少于多久？") == []
    assert ex.phrases("What is the recapex plan?") == []  # not the word "capex"
    assert "cost of sales" in ex.phrases("What is the FY2016 COGS for Microsoft?")
    q = "How long is the warranty?"
    sparse = TOK.sparse_query(q)
    assert ex.expand(q, sparse) == (sparse, [])


def test_evidence_terms_keep_only_phrases() -> None:
    terms = QueryExpander.terms_for_evidence(["capit"], ["capex", "cost of sales", "d&a"])
    assert terms == ["capit", "cost of sales", "d&a"]


def test_a_multi_word_phrase_written_without_spaces_still_expands() -> None:
    from corpus.tokenizer import Tokenizer
    from rag.expand import QueryExpander

    tok = Tokenizer()
    exp = QueryExpander(tok.query_terms, tok.normalize)
    got = exp.phrases("Does Adobe have an improving Free cashflow conversion as of FY2022?")
    assert "net cash provided by operating activities" in got
    assert exp.phrases("What is the cashier's name?") == []  # a word, not a squashed phrase
