"""Exact-code matching (issue 17 item 7): a code or number of the question never matches a
longer one, and a quote is not cited for a code it does not hold. Case 08
(../shared/cases/08-zh-numbers-units-codes) is read from the shared folder (skipped when absent);
the rest builds its inputs here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus.chunker import chunk_document
from corpus.citations import make_citation
from corpus.parsers import parse_file
from corpus.term_match import code_terms, foreign_code, holds_term
from corpus.tokenizer import Tokenizer
from loop.evidence import TermMatcher, best_evidence
from rag.extractive import extract_answer, score_unit
from rag.types import Confidence, ConfidenceFeatures, Retrieval, RetrievedChunk

TOK = Tokenizer()


@pytest.mark.parametrize(("term", "text", "held"), [
    ("fw-301", "型号fw-3010的额定功率", False),
    ("fw-301", "型号fw-301的额定功率", True),
    ("fw-301", "fw-301a 的参数", False),
    ("fw-301", "fw301。", True),
    # a question writing the code without its hyphen (a trial: "the Aquaflow AF220")
    ("af220", "the aquaflow af-220 comes with a 3-year warranty", True),
    ("af220", "the af-2200 model", False),
    ("fw301", "fw-301a 的参数", False),
    ("esp32-pico-d4", "esp32-pico-d4-v3 模组", False),
    ("esp32-pico-d4", "esp32\u00adpico\u00add4 技术规格书", True),
    ("esp32-pico-d4", "esp32 pico d4 datasheet.pdf", True),
    ("2.3.1", "当前固件版本v2.3.1，", True),
    ("2.3.1", "v2.3.10", False),
    ("10", "10.5kw", False),
    ("10", "峰值功率10kw", True),
    ("301", "1301 号", False),
    ("warranti", "warranties", True),
])
def test_holds_term_is_exact_for_codes_and_numbers(term: str, text: str, held: bool) -> None:
    assert holds_term(term, text) is held


def test_foreign_code_of_the_same_family() -> None:
    assert foreign_code("型号fw-3010的额定功率", ["fw-301"]) == "fw-3010"
    assert foreign_code("型号fw-30的额定功率为3千瓦", ["fw-301"]) == "fw-30"
    assert foreign_code("型号fw-301与fw-3010", ["fw-301"]) is None  # holds the question's code
    assert foreign_code("基于 esp32 芯片", ["esp32-pico-d4"]) is None  # the chip, not a sibling
    assert foreign_code("esp32-s3 的工作电压", ["esp32-pico-d4"]) == "esp32-s3"
    assert foreign_code("峰值功率10kw", ["fw-301"]) is None
    assert code_terms(TOK.key_terms("FW-301 的额定功率？")) == ("fw-301",)
    assert code_terms(["8kw", "2.3.1", "2024-01-01"]) == ()


def test_score_unit_does_not_credit_a_longer_code() -> None:
    terms = ["fw-301", "额定", "功率"]
    assert score_unit("型号FW-301的额定功率为8kW", terms) > score_unit(
        "型号FW-3010的额定功率为10.5kW", terms, normalize=TOK.normalize)
    m = TermMatcher(terms, TOK)
    assert "fw-301" not in m.matched("型号FW-3010的额定功率为10.5kW，峰值功率12 kW。")


@pytest.fixture(scope="module")
def case08(cases_dir: Path) -> Path:
    return cases_dir / "08-zh-numbers-units-codes"


def _chunks(path: Path) -> list:
    return chunk_document(parse_file(path), rel_path=path.name)


def _retrieval(question: str, chunks: list) -> Retrieval:
    items = tuple(RetrievedChunk((c,), 1.0 / (i + 1)) for i, c in enumerate(chunks))
    return Retrieval(question, "c", items, Confidence(0.5, ConfidenceFeatures()), "keyword",
                     key_terms=tuple(TOK.key_terms(question)))


def test_case08_code_questions_cite_only_their_code(case08: Path) -> None:
    """Every case-08 question on spec_zh.md: the RAG extractive answer and the LoopAgent's
    evidence cite the expected line first, and never a line in ``must_not_cite_line`` nor one
    naming only a longer or shorter code of the family (FW-3010, FW-30 for FW-301)."""
    chunks = _chunks(case08 / "spec_zh.md")
    queries = json.loads((case08 / "queries.json").read_text(encoding="utf-8"))
    checked = 0
    for q in queries:
        if q["cite"]["file"] != "spec_zh.md" or q.get("stretch_goal"):
            continue
        terms = TOK.key_terms(q["q"])
        ev = extract_answer(_retrieval(q["q"], chunks), terms, make_citation,
                            normalize=TOK.normalize)
        assert ev, q["q"]
        assert ev[0].citation.lines[0] <= q["cite"]["line"] <= ev[0].citation.lines[1], (
            q["q"], ev[0].text)
        loop_ev = best_evidence(chunks, TermMatcher(terms, TOK), limit=5)
        assert loop_ev and q["cite"]["line"] == _line_of(case08 / "spec_zh.md", loop_ev[0].text)
        codes = code_terms(terms)
        for e in ev:
            if "must_not_cite_line" in q:
                assert not (e.citation.lines[0] <= q["must_not_cite_line"]
                            <= e.citation.lines[1]), (q["q"], e.text)
            assert not foreign_code(TOK.normalize(e.text), codes), (q["q"], e.text)
        for e in loop_ev:
            assert not foreign_code(TOK.normalize(e.text), codes), (q["q"], e.text)
            if "must_not_cite_text" in q:
                assert q["must_not_cite_text"] not in e.text
        checked += 1
    assert checked >= 5


def _line_of(path: Path, unit: str) -> int:
    for i, ln in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if unit.strip() in ln:
            return i
    return -1


def test_generated_codes_never_cite_a_longer_code(tmp_path: Path) -> None:
    """A generated spec sheet with FW-301, FW-3010, FW-301A and ESP32-PICO-D4 / -V3 rows."""
    doc = tmp_path / "spec.md"
    doc.write_text(
        "# 规格\n\n型号FW-3010的待机功耗为5W。\n\n型号FW-301A的待机功耗为4W。\n\n"
        "型号FW-301的待机功耗为2W。\n\nESP32-PICO-D4-V3 的工作温度为 -40~105 °C。\n\n"
        "ESP32-PICO-D4 的工作温度为 -40~85 °C。\n", encoding="utf-8")
    chunks = _chunks(doc)
    for q, want in [("FW-301 的待机功耗", "2W"), ("ESP32-PICO-D4 的工作温度", "85")]:
        terms = TOK.key_terms(q)
        ev = extract_answer(_retrieval(q, chunks), terms, make_citation, normalize=TOK.normalize)
        assert [want in e.text for e in ev] == [True] * len(ev) and ev, (q, [e.text for e in ev])
        loop_ev = best_evidence(chunks, TermMatcher(terms, TOK))
        assert loop_ev and all(want in e.text for e in loop_ev), [e.text for e in loop_ev]


def test_a_code_in_a_file_name_followed_by_a_word() -> None:
    """zhpdf:10's table row names no product; its file name does: esp32_pico_d4_datasheet_cn.pdf
    must still hold esp32-pico-d4 (a word after the separator is not another code part)."""
    from corpus.term_match import holds_term

    assert holds_term("esp32-pico-d4", "zh/docs/pdf/esp32_pico_d4_datasheet_cn.pdf")
    assert not holds_term("esp32-pico-d4", "esp32-pico-d4-v3")
    assert not holds_term("fw-301", "fw-301-a")
