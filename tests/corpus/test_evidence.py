"""The shared evidence layer (``corpus.evidence``) on real chunks, Chinese and English: units
are verbatim and verify as citations, the two unit styles, the one scorer's context credit, the
recognisers (foreign codes, revision histories), and the tuning model it reads."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from corpus.chunker import chunk_document
from corpus.citations import make_citation
from corpus.evidence import (
    TermMatcher,
    UnitScorer,
    excluded,
    nfkc_lower,
    opens_revision_history,
    split_units,
    term_weight,
    under_revision_heading,
)
from corpus.parsers import parse_file
from corpus.tuning import TUNING, Tuning, tuning_record
from corpus.types import Chunk

ESP32 = "zh/docs/pdf/esp32_pico_d4_datasheet_cn.pdf"
EXPENSES = "en/docs/gitlab-handbook/content/handbook/finance/expenses.md"


def _chunks(path: Path, rel: str) -> list[Chunk]:
    return chunk_document(parse_file(path), rel_path=rel)


@pytest.fixture(scope="module")
def esp32(eval_dir: Path) -> list[Chunk]:
    """The ESP32-PICO-D4 datasheet (Chinese PDF, parameter tables, a revision history)."""
    return _chunks(eval_dir / ESP32, ESP32)


@pytest.fixture(scope="module")
def expenses(eval_dir: Path) -> list[Chunk]:
    """A GitLab handbook page (English Markdown)."""
    return _chunks(eval_dir / EXPENSES, EXPENSES)


@pytest.fixture(scope="module")
def inventory(cases_dir: Path) -> list[Chunk]:
    """A bilingual Markdown table of 80 nodes (case 14)."""
    path = next(cases_dir.glob("14-*")) / "node_inventory.md"
    return _chunks(path, "node_inventory.md")


@pytest.mark.parametrize("style", ["quote", "scan"])
@pytest.mark.parametrize("doc", ["esp32", "expenses"])
def test_every_unit_verifies_as_a_citation(doc: str, style: str,
                                           request: pytest.FixtureRequest) -> None:
    chunks: list[Chunk] = request.getfixturevalue(doc)
    n = 0
    for chunk in chunks:
        for unit in split_units(chunk, style):  # type: ignore[arg-type]
            n += 1
            if style == "quote":
                assert unit in chunk.text, unit  # quote units are verbatim
            assert make_citation(chunk, unit) is not None, (chunk.chunk_id, unit)
    assert n > 50  # real text, many units


def test_the_two_styles_differ_as_documented(esp32: list[Chunk], expenses: list[Chunk]) -> None:
    for chunks in (esp32, expenses):
        quote = [u for c in chunks for u in split_units(c, "quote")]
        scan = [u for c in chunks for u in split_units(c, "scan")]
        assert min(map(len, quote)) >= 6 and max(map(len, quote)) <= 600
        assert min(map(len, scan)) >= 4 and max(map(len, scan)) <= 300
    # Chinese sentences end at 。 in both styles
    zh = [u for c in esp32 for u in split_units(c, "scan") if "。" in u]
    assert zh and all(u.count("。") == 1 and u.endswith("。") for u in zh)


def test_table_rows_quote_skips_the_header_scan_keeps_it(inventory: list[Chunk]) -> None:
    table = next(c for c in inventory if "| node-07 |" in c.text)
    quote, scan = split_units(table, "quote"), split_units(table, "scan")
    row = next(u for u in scan if u.startswith("| node-07 |"))
    assert row in quote and row in scan
    header = next(u for u in scan if "管理地址" in u)
    assert header.startswith("| 节点") and header not in quote
    assert not any(set(u) <= set("|-: ") for u in quote + scan)  # no separator row


def test_scorer_credits_the_table_header_as_context(inventory: list[Chunk]) -> None:
    """A row names the node, its header names the asked column: the row covers the node's
    weight and the context credit of the column's (both paths' rule)."""
    table = next(c for c in inventory if "| node-07 |" in c.text)
    m = TermMatcher(["node-07", "管理地址"], normalize=nfkc_lower)
    scored = {u.text: u for u in UnitScorer(m, "quote").units(table)}
    row = next(t for t in scored if t.startswith("| node-07 |"))
    expect = term_weight("node-07") + TUNING.evidence.context_credit * term_weight("管理地址")
    assert scored[row].covered == pytest.approx(expect)
    assert max(scored.values(), key=lambda u: u.covered).text == row
    # the other nodes' rows are siblings of the asked code: never evidence
    assert not any(t.startswith("| node-08 |") for t in scored)
    assert excluded(table, next(u for u in split_units(table, "quote")
                                if u.startswith("| node-08 |")), ("node-07",), nfkc_lower)
    # the RAG weighting: a term holding a digit weighs 2, any other 1
    rag = TermMatcher(["node-07", "管理地址"], normalize=nfkc_lower, weighting="digits")
    assert rag.weights == [2.0, 1.0]


def test_chunk_credit_only_when_asked(expenses: list[Chunk]) -> None:
    chunk = next(c for c in expenses if "receipt" in c.text.lower() and len(c.text) > 400)
    m = TermMatcher(["receipt", "zzzunseen"], normalize=nfkc_lower)
    plain = list(UnitScorer(m, "scan").units(chunk))
    credited = list(UnitScorer(m, "scan", chunk_credit=True).units(chunk))
    assert [u.text for u in plain] == [u.text for u in credited]  # same units
    assert all(u.covered == term_weight("receipt") for u in plain)  # the unseen term: nothing


def test_revision_history_chunks_of_a_real_datasheet(esp32: list[Chunk]) -> None:
    history = [c for c in esp32 if under_revision_heading(c)]
    assert history, [c.section_path for c in esp32]
    assert all(opens_revision_history(c) for c in history
               if under_revision_heading(c) and "修订历史" in c.section_path[-1])
    spec = [c for c in esp32 if "工作电压" in c.text and not under_revision_heading(c)]
    assert spec and not any(opens_revision_history(c) for c in spec)


def test_tuning_is_one_frozen_sourced_record() -> None:
    for group in Tuning.model_fields:
        sub = getattr(TUNING, group)
        for name, field in type(sub).model_fields.items():
            assert field.description and "Source:" in field.description, (group, name)
    with pytest.raises(ValidationError):
        TUNING.evidence.context_credit = 0.5  # type: ignore[misc]
    record = tuning_record()
    assert record["evidence"]["context_credit"] == 0.6
    assert record["offline"]["strong_margin"] == 0.15
    assert Tuning.model_validate(record) == TUNING


def test_an_abbreviation_period_does_not_end_a_quote_sentence() -> None:
    """A new-user trial asked about the PepsiCo 8-K (FinanceBench PEPSICO_2023_8K, p. 2) and got
    "(“PepsiCo”) held its 2023 Annual Meeting …": the quote had been cut after "Inc."."""
    from corpus.evidence import quote_sentences

    text = ("PepsiCo, Inc. (“PepsiCo”) held its 2023 Annual Meeting of Shareholders on May 3, "
            "2023. At the meeting, Mr. Laguarta was elected. It sells in the U.S. Sales rose in 2023.")
    assert quote_sentences(text) == [
        "PepsiCo, Inc. (“PepsiCo”) held its 2023 Annual Meeting of Shareholders on May 3, 2023.",
        "At the meeting, Mr. Laguarta was elected.",
        "It sells in the U.S.",
        "Sales rose in 2023.",
    ]


def test_a_line_of_links_alone_is_never_the_answer(tmp_path: Path) -> None:
    """New-user trial: "What is GitLab's mission?" was answered with the handbook's navigation
    line "[Everyone can contribute with GitLab](/handbook/company/mission/…)" at confidence
    0.97, the mission's own sentence below it. A unit of Markdown links alone is navigation:
    no evidence on either path (``corpus.evidence.recognise.is_link_line``); a sentence
    holding a link still is."""
    from corpus.evidence.recognise import is_link_line
    from corpus.tokenizer import Tokenizer
    from rag.extractive import extract_answer
    from rag.types import Confidence, ConfidenceFeatures, Retrieval, RetrievedChunk

    assert is_link_line("- [Metrics](/handbook/sales/meddppicc/#metrics)")
    assert is_link_line("1. [A](/a), [B](/b)")
    assert not is_link_line("See [the mission page](/m) for the mission of GitLab.")
    md = tmp_path / "mission.md"
    md.write_text("# Mission\n\n- [Everyone can contribute with GitLab's mission](/handbook/"
                  "company/mission/#contribute)\n- [Values](/handbook/values/)\n\n"
                  "It is GitLab's mission to enable everyone to contribute to and co-create "
                  "the software that powers our world.\n", encoding="utf-8")
    tok = Tokenizer()
    q = "What is GitLab's mission?"
    chunks = chunk_document(parse_file(md), rel_path="mission.md")
    items = tuple(RetrievedChunk((c,), 1.0) for c in chunks)
    r = Retrieval(q, "c", items, Confidence(0.5, ConfidenceFeatures()), "keyword",
                  key_terms=tuple(tok.key_terms(q)))
    ev = extract_answer(r, tok.key_terms(q), make_citation, normalize=tok.normalize)
    assert ev and ev[0].text.startswith("It is GitLab's mission"), [e.text for e in ev]
    assert not any(is_link_line(e.text) for e in ev)


def test_an_english_clause_label_stays_with_its_text(tmp_path: Path) -> None:
    """A plain-text policy of numbered clauses ("Clause 4. Refund method. Refunds are …"): each
    clause is one quote unit that starts with its label (a new-user trial: "Clause 4." and
    "Refund method." were cut off, the title glued to "Clause 1.", and "What is Clause 4 of the
    return policy?" was answered with "… Policy Clause 1.")."""
    path = tmp_path / "return_policy.txt"
    path.write_text(
        "ACME Home Appliances - Return and Refund Policy\n\n"
        "Clause 1. Scope. This policy applies to all products bought in ACME stores.\n\n"
        "Clause 2. Return period. Customers may return a product within 30 days.\n\n"
        "Article 3. Refunds are paid within 14 days.\n\n"
        "Section 4.2: Gift cards cannot be returned.\n\n"
        "See Clause 2. It applies to every order.\n", encoding="utf-8")
    units = [u for c in chunk_document(parse_file(path), rel_path=path.name)
             for u in split_units(c, "quote")]
    assert units[:4] == [
        "ACME Home Appliances - Return and Refund Policy",
        "Clause 1. Scope. This policy applies to all products bought in ACME stores.",
        "Clause 2. Return period. Customers may return a product within 30 days.",
        "Article 3. Refunds are paid within 14 days."]
    assert "Section 4.2: Gift cards cannot be returned." in units
    # a label inside a sentence is a reference, not a clause's start
    assert "It applies to every order." in units
    assert not any(u.startswith("See Clause 2. It") for u in units)
