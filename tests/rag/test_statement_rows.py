"""Statement rows written as text lines (issue 15 item 3): a row is read as label + period
cells, the asked period's cell is shown, and the row the question names is the answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus.chunker import chunk_document
from corpus.citations import make_citation
from corpus.parsers import parse_file
from corpus.statement_rows import label_cover, parse_row, period_header
from corpus.tokenizer import Tokenizer, asks_quantity
from rag.extractive import answer_text, extract_answer
from rag.types import Confidence, ConfidenceFeatures, Retrieval, RetrievedChunk

TOK = Tokenizer()

STATEMENT = """# Consolidated Statements of Operations

(in millions, except per share data)

Year Ended December 31,

2017 2018 2019

Net product sales $ 118,573 $ 141,915 $ 160,408

Total net sales 177,866 232,887 280,522

Operating income 4,106 12,421 14,541

Interest expense (848) (1,417) (1,600)

Net income $ 3,033 $ 10,073 $ 11,588

Diluted earnings per share $ 6.15 $ 20.14 $ 23.01

Net income grew in 2019 as net sales rose across segments, led by services.
"""


@pytest.mark.parametrize(("line", "label", "values"), [
    ("Net income $ 3,033 $ 10,073 $ 11,588", "Net income", [3033, 10073, 11588]),
    ("Interest expense (848) (1,417) (1,600)", "Interest expense", [-848, -1417, -1600]),
    ("Cash paid for operating leases — — 3,361", "Cash paid for operating leases",
     [None, None, 3361]),
    ("Net income (loss) $ (3.3) $ 1.2", "Net income (loss)", [-3.3, 1.2]),
    ("Gross margin 42.1 % 41.9 %", "Gross margin", [42.1, 41.9]),
    ("Property and equipment, net 72,705 97,846", "Property and equipment, net",
     [72705, 97846]),
])
def test_a_statement_line_reads_as_label_and_cells(line: str, label: str,
                                                   values: list[float | None]) -> None:
    row = parse_row(line)
    assert row is not None and row.label == label
    assert [c.value for c in row.cells] == values


@pytest.mark.parametrize("line", [
    "Net income increased 15% to $11,588 in 2019",  # a sentence with numbers
    "2017 2018 2019",  # a header, no label
    "Total 2019 revenue 5 6",  # a year inside the label
    "Revenue 5",  # one cell
])
def test_lines_that_are_no_statement_row(line: str) -> None:
    assert parse_row(line) is None


def test_period_header_is_the_nearest_line_with_as_many_years() -> None:
    above = "Year Ended December 31,\n\n2017 2018 2019\nNet product sales $ 1 $ 2 $ 3\n"
    assert period_header(above, 3) == ("2017", "2018", "2019")
    assert period_header("December 31, 2019 2018\nCash 5 6\n", 2) == ("2019", "2018")
    assert period_header(above, 2) is None


def test_label_cover_counts_the_label_words_the_question_names() -> None:
    terms = TOK.key_terms("What is ACME's FY2019 net income attributable to shareholders?")
    assert label_cover("Net income", terms, TOK.normalize) == 1.0
    assert label_cover("Net product sales", terms, TOK.normalize) == pytest.approx(1 / 3)
    assert label_cover("Property and equipment", terms, TOK.normalize) == 0.0


def test_units_and_rounding_ask_for_a_figure() -> None:
    assert asks_quantity("What is ACME's FY2019 net income (in USD millions)?")
    assert asks_quantity("Round your answer to two decimal places.")
    assert not asks_quantity("What drove the change in operating margin?")


def _retrieval(question: str, chunks: list) -> Retrieval:
    items = tuple(RetrievedChunk((c,), 1.0 / (i + 1)) for i, c in enumerate(chunks))
    return Retrieval(question, "c", items, Confidence(0.5, ConfidenceFeatures()), "keyword",
                     key_terms=tuple(TOK.key_terms(question)))


def test_the_named_row_answers_with_the_asked_year(tmp_path: Path) -> None:
    """A generated statement page: the net-income row, not the narrative sentence naming net
    income and 2019, answers; the answer leads with the 2019 cell read under its header."""
    doc = tmp_path / "acme_2019_10k.md"
    doc.write_text(STATEMENT, encoding="utf-8")
    chunks = chunk_document(parse_file(doc), rel_path=doc.name)
    q = "What is ACME's FY2019 net income attributable to shareholders (in USD millions)?"
    ev = extract_answer(_retrieval(q, chunks), TOK.key_terms(q), make_citation,
                        normalize=TOK.normalize)
    assert ev and ev[0].text == "Net income $ 3,033 $ 10,073 $ 11,588"
    assert ev[0].reading == "Net income, 2019: $ 11,588"
    assert answer_text(ev[0]).startswith("Net income, 2019: $ 11,588 — Net income $ 3,033")
    q = "What were ACME's FY2018 interest expenses in USD millions?"
    ev = extract_answer(_retrieval(q, chunks), TOK.key_terms(q), make_citation,
                        normalize=TOK.normalize)
    assert ev and ev[0].reading == "Interest expense, 2018: (1,417)"


def test_a_filing_statement_row_from_the_eval_pdf(eval_dir: Path) -> None:
    """FinanceBench AMAZON_2019_10K p. 38-39 (financebench_id_08286, gold $11588.00): the
    statement chunks of those pages, asked the dev question, answer with the net-income row and
    its 2019 cell; the period header is in the chunk merged before the row's."""
    pdf = eval_dir / "en/docs/financebench/AMAZON_2019_10K.pdf"
    if not pdf.exists():
        pytest.skip(f"{pdf} absent (../shared/eval)")
    chunks = [c for c in chunk_document(parse_file(pdf), rel_path=pdf.name)
              if c.page_start <= 39 and c.page_end >= 38]
    q = ("By drawing conclusions from the information stated only in the income statement, what "
         "is Amazon's FY2019 net income attributable to shareholders (in USD millions)?")
    r = _retrieval(q, [])
    r = Retrieval(q, "c", (RetrievedChunk(tuple(chunks), 1.0),), r.confidence, "keyword",
                  key_terms=r.key_terms)
    ev = extract_answer(r, r.key_terms, make_citation, normalize=TOK.normalize)
    assert ev and ev[0].text.startswith("Net income $ 3,033")
    assert ev[0].reading == "Net income, 2019: $ 11,588"
