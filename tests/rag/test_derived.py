"""Derived figures (issue 15 item 3): a change or a defined ratio is computed from the rows
the question names, and every row used is cited verbatim."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from corpus.chunker import chunk_document
from corpus.citations import make_citation
from corpus.derived import derived_answer, looked_up_answer, looks_up
from corpus.derived._asked import asked_formula
from corpus.formula import RATIOS, BinOp, Item, definitions, ratio, standard
from corpus.parsers import parse_file
from corpus.tokenizer import Tokenizer
from corpus.types import Citation
from rag.expand import QueryExpander
from tests._support.statements import BALANCE_SHEET, OPERATIONS

TOK = Tokenizer()
EXP = QueryExpander(TOK.query_terms, TOK.normalize)

SHEET = BALANCE_SHEET + "\n" + OPERATIONS


def _figure(step: Callable[..., tuple[str, list[Citation]] | None], question: str,
            path: Path) -> tuple[str, list[str]] | None:
    """``(answer text, quotes of its citations)`` of the figure ``step`` (``derived_answer`` or
    ``looked_up_answer``) on the chunks of the one document ``path``; ``None`` when it gives
    none."""
    chunks = chunk_document(parse_file(path), rel_path=path.name)
    got = step(question, [chunks], TOK.key_terms, TOK.normalize, make_citation, EXP.phrases)
    return None if got is None else (got[0], [c.quote for c in got[1]])


def _answer(question: str, path: Path) -> tuple[str, list[str]] | None:
    return _figure(derived_answer, question, path)


def _acme_10k(folder: Path, text: str) -> Path:
    path = folder / "acme_2021_10k.md"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture()
def sheet(tmp_path: Path) -> Path:
    return _acme_10k(tmp_path, SHEET)


def test_a_defined_ratio_is_computed_from_both_cited_rows(sheet: Path) -> None:
    got = _answer("What is ACME's FY2021 working capital ratio? Define working capital ratio as "
                  "total current assets divided by total current liabilities. Round your answer "
                  "to two decimal places.", sheet)
    assert got is not None
    text, quotes = got
    assert text.startswith("1.73 = Total current assets 2021 1,001 / Total current liabilities")
    assert quotes == ["Total current assets 1,001 705", "Total current liabilities 577 334"]


def test_a_change_between_two_years_reads_the_named_row(sheet: Path) -> None:
    """"revenue" names "Total net sales" through the field vocabulary (rag/expansions.json)."""
    got = _answer("What is ACME's year-over-year change in revenue from FY2020 to FY2021 (in "
                  "units of percents and round to one decimal place)?", sheet)
    assert got is not None and got[0].startswith("30.8% change in Total net sales")
    assert got[1] == ["Total net sales 107,006 135,987 177,866"]
    rate = _answer("How much has ACME's effective tax rate changed between FY2020 and FY2021?",
                   sheet)
    assert rate is not None and rate[0].startswith("-1.5 percentage points")


def test_a_growth_rate_of_one_year_is_the_change_from_the_year_before(sheet: Path) -> None:
    """mmlongbench:1081 "What is the growth rate of advertising and merchandising cost for 3M in
    FY2018? Answer in percentage term" was answered with the "Cost of sales, 2018" row looked
    up: a rate of change asked of one year is FY2017 -> FY2018; a change asked otherwise is no
    lookup of the year's own figure."""
    got = _answer("What is ACME's revenue growth rate in FY2021 (in percent, one decimal)?", sheet)
    assert got is not None and got[0].startswith("30.8% change in Total net sales from 2020 to "
                                                 "2021")
    assert not looks_up("How much did ACME's net income increase in 2021?")
    assert looks_up("What is ACME's FY2021 net income in USD millions?")


def test_a_difference_between_two_years_is_the_later_cell_less_the_earlier(sheet: Path
                                                                           ) -> None:
    """New-user trial: "What is the difference between Netflix's 2017 and 2016 revenues?" was
    answered by the raw row; a difference asked (not as a rate) is the later cell less the
    earlier one, both cited."""
    got = _answer("What is the difference between ACME's 2021 and 2020 net sales?", sheet)
    assert got is not None and got[0].startswith(
        "41,879 million difference in Total net sales between 2021 and 2020: 177,866 − 135,987")
    higher = _answer("How much higher was ACME's net income in 2021 than in 2020?", sheet)
    # in the statement's scale (a helper's trial read a bare "6" for Best Buy's $6 million)
    assert higher is not None and higher[0].startswith("662 million difference in Net income")
    rate = _answer("What is the percentage difference between ACME's 2021 and 2020 net sales?",
                   sheet)
    assert rate is not None and rate[0].startswith("30.8% change")


def test_no_computation_without_a_form_or_a_row(sheet: Path) -> None:
    assert _answer("What is ACME's FY2021 net income?", sheet) is None  # a lookup
    assert _answer("What is the change in headcount from FY2020 to FY2021?", sheet) is None
    assert _answer("What is ACME's FY2018 working capital ratio? Define working capital ratio "
                   "as total current assets divided by total current liabilities.", sheet) is None


@pytest.mark.parametrize(("pdf", "pages", "question", "starts"), [
    ("AMAZON_2017_10K.pdf", (37, 38),
     "What is Amazon's year-over-year change in revenue from FY2016 to FY2017 (in units of "
     "percents and round to one decimal place)? Calculate what was asked by utilizing the line "
     "items clearly shown in the statement of income.", "30.8% change in Total net sales"),
    ("BLOCK_2016_10K.pdf", (67, 68),
     "Considering the data in the balance sheet, what is Block's (formerly known as Square) "
     "FY2016 working capital ratio? Define working capital ratio as total current assets "
     "divided by total current liabilities. Round your answer to two decimal places.", "1.73 ="),
    # ratios named without a definition, read by their textbook definitions (corpus.formula.
    # RATIOS): MMLongBench-Doc dev questions 1037 (gold 2.72), 1036 (97.40), 1032 (3.46),
    # 1044 (0.023)
    ("NIKE_2021_10K.pdf", (59, 61),
     "What is current ratio in FY2021 for Nike?  Round your answer to two decimal places.",
     "2.72 = Total current assets 2021 26,291 / Total current liabilities 2021 9,674"),
    ("NIKE_2021_10K.pdf", (59, 61),
     "What is  cash conversion cycle in FY2021 for Nike? Round your answer to two decimal "
     "places.", "97.40 = days inventory outstanding 105.6"),
    ("NIKE_2021_10K.pdf", (59, 61),
     "what is the FY2021 inventory turnover ratio for Nike?Round your answer to two decimal "
     "places.", "3.46 = Cost of sales 2021 24,576 / average of Inventories 2020 7,367 and "
     "2021 6,854"),
    ("AMAZON_2017_10K.pdf", (38, 40),
     "what is Amazon's FY2017 return on asset ? round your answer to three decimal",
     "0.023 = Net income 2017 3,033 / Total assets 2017 131,310"),
])
def test_financebench_derived_figures(eval_dir: Path, pdf: str, pages: tuple[int, int],
                                      question: str, starts: str) -> None:
    """FinanceBench dev questions financebench_id_08135 (gold 30.8%) and _04660 (gold 1.73),
    and MMLongBench-Doc ratios, computed from the statement pages of the filing."""
    path = eval_dir / "en/docs/financebench" / pdf
    if not path.exists():
        pytest.skip(f"{path} absent (../shared/eval)")
    chunks = [c for c in chunk_document(parse_file(path), rel_path=pdf)
              if c.page_start <= pages[1] and c.page_end >= pages[0]]
    got = derived_answer(question, [chunks], TOK.key_terms, TOK.normalize, make_citation,
                         EXP.phrases)
    assert got is not None and got[0].startswith(starts), got
    assert all(c.page in pages for c in got[1])


def test_a_ratio_named_without_a_definition_is_read_by_its_textbook_definition(
        sheet: Path) -> None:
    """"current ratio" = total current assets / total current liabilities (CFA curriculum);
    a line item of a textbook definition needs a row whose label begins with its words:
    with no "Total assets" row, "Total current assets" does not stand in for it and nothing is
    computed (the extractive answer stands)."""
    got = _answer("What is ACME's current ratio in FY2021?", sheet)
    assert got is not None and got[0].startswith(
        "1.73 = Total current assets 2021 1,001 / Total current liabilities 2021 577"), got
    assert _answer("What is ACME's return on assets in FY2021?", sheet) is None


def test_a_ratio_reads_an_expense_written_in_parentheses_as_its_amount(tmp_path: Path) -> None:
    """Interest coverage = operating income / interest expense; the income statement writes
    the expense "(25)": the ratio is 8.00, not -8.00."""
    path = _acme_10k(tmp_path, "# Consolidated Statements of Operations\n\nYear Ended "
                     "December 31,\n\n2020 2021\n\nOperating income 150 200\n\n"
                     "Interest expense (20) (25)\n\nNet income 100 130\n")
    got = _answer("What is ACME's interest coverage ratio in FY2021?", path)
    assert got is not None and got[0].startswith(
        "8.00 = Operating income 2021 200 / Interest expense 2021 25"), got


def test_ratio_names() -> None:
    for name in RATIOS:
        assert ratio(name) is not None, name
    assert ratio("ROA") == ratio("return on asset") == ratio("Return on total assets")
    assert ratio("days payable outstanding (DPO)") == ratio("dpo")
    assert ratio("sales to stockholder equity ratio") == BinOp(
        "/", Item("sales"), Item("stockholder equity"))
    assert ratio("net income") is None and ratio("ratio") is None
    assert standard("unadjusted EBITDA") is not None and ratio("unadjusted EBITDA") is None
    # a formula the question defines wins over the textbook one
    got = asked_formula("What is the FY2019 cash conversion cycle (CCC)? CCC is defined as: "
                        "DIO + DSO - DPO.", definitions("What is the FY2019 cash conversion "
                                                        "cycle (CCC)? CCC is defined as: DIO + "
                                                        "DSO - DPO."))
    assert got is not None and not got.standard and got.node == BinOp(
        "-", BinOp("+", Item("DIO"), Item("DSO")), Item("DPO"))


def test_a_ratio_takes_both_rows_from_one_document(tmp_path: Path) -> None:
    """Two filings in the retrieval: the denominator comes from the numerator's document even
    when another filing's row is listed first."""
    other = tmp_path / "other_2021_10k.md"
    other.write_text("# Balance Sheets\n\nDecember 31, 2021 2020\n\n"
                     "Total current liabilities 100 90\n", encoding="utf-8")
    mine = _acme_10k(tmp_path, SHEET)
    groups = [chunk_document(parse_file(p), rel_path=p.name) for p in (other, mine)]
    got = derived_answer("What is ACME's FY2021 working capital ratio? Define working capital "
                         "ratio as total current assets divided by total current liabilities.",
                         groups, TOK.key_terms, TOK.normalize, make_citation, EXP.phrases)
    assert got is not None and got[0].startswith("1.73 =")
    assert {c.path for c in got[1]} == {"acme_2021_10k.md"}


def _lookup(question: str, path: Path) -> tuple[str, list[str]] | None:
    return _figure(looked_up_answer, question, path)


def _assert_lookups(path: Path, expected: dict[str, str | None]) -> None:
    """Each question of ``expected`` looked up in ``path``: an answer starting with its text,
    or no lookup where it maps to ``None``."""
    for question, starts in expected.items():
        got = _lookup(question, path)
        if starts is None:
            assert got is None, (question, got)
        else:
            assert got is not None and got[0].startswith(starts), (question, got)


def test_one_year_s_figure_is_looked_up_in_the_row_the_question_names_wholly(sheet: Path
                                                                             ) -> None:
    got = _lookup("Using only the balance sheet, how much cash and cash equivalents did ACME "
                  "hold at the end of FY2020? Answer in USD millions.", sheet)
    assert got == ("Cash and cash equivalents, 2020: $ 461 — Cash and cash equivalents $ 452 "
                   "$ 461", ["Cash and cash equivalents $ 452 $ 461"])
    _assert_lookups(sheet, {
        # the column follows the header's order (2019 2020 2021 here)
        "What was ACME's net income in FY2019 in USD millions?": "Net income, 2019: 596 — ",
        # "net sales" names "Total net sales" through the field vocabulary (rag/expansions.json)
        "What were ACME's net sales in FY2021 in USD millions?":
            "Total net sales, 2021: 177,866 — ",
        # a label only partly named ("Property and equipment, net") is no lookup; nor is a year
        # without a column, two years, a computable form, or a question asking no figure
        "What was ACME's property in FY2021 in USD millions?": None,
        "How much net income did ACME make in FY2018?": None,
        "How much net income did ACME make in FY2020 and FY2021?": None,
        "What is ACME's year-over-year change in net income from FY2020 to FY2021?": None,
        "Who audited ACME's net income for FY2021?": None,
    })


FLOWS = """# Consolidated Balance Sheets

(in millions)

May 26,
2021

May 27,
2020

Inventories 1,559 1,642

Receivables 1,680 1,684

Accounts payable 2,854 2,746

# Consolidated Statements of Earnings

Fiscal Year 2021 2020 2019

Net sales 16,865 15,740 15,620

Cost of sales 11,108 10,305 10,052

Operating profit 2,516 2,420 2,492

# Consolidated Statements of Cash Flows

Fiscal Year 2021 2020 2019

Depreciation and amortization 620 619 603

Purchases of property, plant and equipment (538) (623) (684)
"""


@pytest.fixture()
def flows(tmp_path: Path) -> Path:
    return _acme_10k(tmp_path, FLOWS)


def test_a_defined_formula_with_named_parts_is_computed_from_cited_rows(flows: Path) -> None:
    """CCC = DIO + DSO - DPO, each defined in the question; the balance-sheet header is one
    date a line. Worked by hand: DIO 365*1600.5/11108 = 52.591, DSO 365*1682/16865 = 36.403,
    DPO 365*2800/(11108 - 83) = 92.698 -> -3.70."""
    got = _answer(
        "What is the FY2021 cash conversion cycle (CCC) for ACME? CCC is defined as: DIO + DSO - "
        "DPO. DIO is defined as: 365 * (average inventory between FY2020 and FY2021) / (FY2021 "
        "COGS). DSO is defined as: 365 * (average accounts receivable between FY2020 and "
        "FY2021) / (FY2021 Revenue). DPO is defined as: 365 * (average accounts payable between "
        "FY2020 and FY2021) / (FY2021 COGS + change in inventory between FY2020 and FY2021). "
        "Round your answer to two decimal places.", flows)
    assert got is not None
    text, quotes = got
    assert text.startswith("-3.70 = DIO 52.59 (= 365 × average of Inventories 2020 1,642 and "
                           "2021 1,559 / Cost of sales 2021 11,108)")
    assert quotes == ["Inventories 1,559 1,642", "Cost of sales 11,108 10,305 10,052",
                      "Receivables 1,680 1,684", "Net sales 16,865 15,740 15,620",
                      "Accounts payable 2,854 2,746"]


def test_a_change_between_two_year_ends_reads_the_balance_not_the_cash_flow_row(
        tmp_path: Path) -> None:
    """"change in inventory between FY2020 and FY2021" is the difference of two balance-sheet
    year-ends (1,559 - 1,642 = -83), not the cash-flow statement's "Inventories" row of the same
    label, which is already a year's change (financebench_id_04103: that row gave DPO 91.69 and a
    CCC of -2.69 instead of the gold -3.7). The cash-flow statement comes first here, so a tie
    on the label goes to it unless the two year-ends are preferred."""
    cash_flow_first = ("# Consolidated Statements of Cash Flows\n\nFiscal Year 2021 2020 2019"
                       "\n\nInventories 54 16 (62)\n\n" + FLOWS)
    got = _answer(
        "What is the FY2021 days payable outstanding (DPO) for ACME? DPO is defined as: 365 * "
        "(average accounts payable between FY2020 and FY2021) / (FY2021 COGS + change in "
        "inventory between FY2020 and FY2021). Round your answer to two decimal places.",
        _acme_10k(tmp_path, cash_flow_first))
    assert got is not None
    assert got[0].startswith("92.70 = 365 × average of Accounts payable 2020 2,746 and 2021 "
                             "2,854 / (Cost of sales 2021 11,108 + change in Inventories from "
                             "2020 1,642 to 2021 1,559)"), got[0]
    assert "Inventories 1,559 1,642" in got[1] and "Inventories 54 16 (62)" not in got[1]


def test_an_asked_difference_subtracts_an_outflow_by_its_amount(flows: Path) -> None:
    """"EBITDA less capex": capex is written as an outflow (538); 2,516 + 620 - 538 = 2,598."""
    got = _answer("What is the FY2021 unadjusted EBITDA less capex for ACME? Define unadjusted "
                  "EBITDA as unadjusted operating income + depreciation and amortization [from "
                  "cash flow statement]. Answer in USD millions.", flows)
    assert got is not None and got[0].startswith("2598.00 = unadjusted EBITDA 3,136")
    assert len(got[1]) == 3


def test_a_formula_parses_words_and_symbols() -> None:
    from corpus.formula import BinOp, Item, Num, definitions, parse

    assert parse("365 * (average X between FY2016 and FY2017) / (FY2017 COGS + Y)") == BinOp(
        "/", BinOp("*", Num(365.0), Item("average X between FY2016 and FY2017")),
        BinOp("+", Item("FY2017 COGS"), Item("Y")))
    assert parse("total current assets divided by total current liabilities") == BinOp(
        "/", Item("total current assets"), Item("total current liabilities"))
    assert parse("(a + b") is None and parse("a +") is None
    assert definitions("Define the year-over-year rate as revenue.") == []  # no operator
    assert [n for n, _ in definitions("What is X? Quick ratio is defined as: (A - B) / C.")] == [
        "quick ratio"]


def test_a_margin_and_a_share_averaged_over_years_are_computed(flows: Path) -> None:
    """EBITDA by its standard definition (operating income + D&A): (2,516 + 620) / 16,865 =
    18.59 %; cost of sales as a % of net sales, averaged over 2019-2021: 64.35, 65.47, 65.86 ->
    65.2 % (one decimal asked)."""
    got = _answer("What is the FY2021 unadjusted EBITDA % margin for ACME? Calculate unadjusted "
                  "EBITDA using unadjusted operating income and D&A (from cash flow statement).",
                  flows)
    assert got is not None and got[0].startswith(
        "18.59% = unadjusted EBITDA 3,136 (= Operating profit 2021 2,516 + Depreciation and "
        "amortization 2021 620) / Net sales 2021 16,865 × 100")
    got = _answer("What is ACME's three year average of cost of goods sold as a % of revenue "
                  "from FY2019 to FY2021? Answer in units of percents and round to one decimal "
                  "place.", flows)
    assert got is not None and got[0].startswith("65.2% = average of 2019: 64.35%")
    assert len(got[1]) == 2


def test_a_looked_up_cell_is_shown_in_the_asked_scale(tmp_path: Path) -> None:
    p = tmp_path / "acme_2020_10k.md"
    p.write_text("# Consolidated Statements of Cash Flows\n\n(In thousands)\n\nYear Ended "
                 "December 31,\n\n2020 2019 2018\n\nNet cash provided by operating activities "
                 "381,603 465,699 295,080\n\nNet cash provided by (used in) financing activities "
                 "2,315,195 (98,874) 515,755\n", encoding="utf-8")
    got = _lookup("Using the cash flow statement, how much did ACME generate in cash flow from "
                  "operating activities in FY2020? Answer in USD millions.", p)
    assert got is not None and got[0].startswith(
        "Net cash provided by operating activities, 2020: 381,603 (in thousands) ≈ 382 in "
        "millions — ")


# the same line item in a footnote table and in the cash-flow statement (FinanceBench dev
# financebench_id_04458: Netflix's deferred-tax "Depreciation and amortization (43,204)" was
# read for "D&A (from cash flow statement)", 3.87% instead of the gold 5.4%)
_TWO_TABLES = (
    "# Consolidated Statements of Operations\n\nYear ended December 31,\n\n2021 2020\n\n"
    "Revenues 1,000 900\n\nOperating income 100 80\n\n"
    "# Consolidated Statements of Cash Flows\n\nYear ended December 31,\n\n2021 2020\n\n"
    "Net income 70 60\n\n"
    "Depreciation and amortization of property, equipment and intangibles 20 18\n\n"
    "# Note 9 Income taxes\n\nDeferred tax assets:\n\n2021 2020\n\n"
    "Depreciation and amortization (43) (12)\n\nStock-based compensation 11 9\n")


def test_a_statement_the_question_names_is_read_before_a_footnote(tmp_path: Path) -> None:
    path = _acme_10k(tmp_path, _TWO_TABLES)
    asked = ("What is the FY2021 unadjusted EBITDA % margin for ACME? Calculate unadjusted "
             "EBITDA using unadjusted operating income and D&A (from cash flow statement).")
    got = _answer(asked, path)
    assert got is not None and got[0].startswith(
        "12.00% = unadjusted EBITDA 120 (= Operating income 2021 100 + Depreciation and "
        "amortization of property, equipment and intangibles 2021 20)"), got
    # naming no statement, the wholly named label wins, as before: the footnote's row
    plain = _answer("What is the FY2021 unadjusted EBITDA % margin for ACME? Calculate "
                    "unadjusted EBITDA using unadjusted operating income and D&A.", path)
    assert plain is not None and "Depreciation and amortization 2021 -43" in plain[0], plain


def test_statement_titles_and_named_statements() -> None:
    from corpus.derived._statements import named_statements, statement_above

    assert named_statements("basing your answers off of the statement of income and the "
                            "statement of cash flows") == {"income", "cash_flows"}
    assert named_statements("using the balance sheet") == {"balance"}
    assert named_statements("Using the P&L statement") == {"income"}
    assert named_statements("What is revenue in FY2021?") == frozenset()
    assert statement_above("x\nCONSOLIDATED STATEMENTS OF CASH FLOWS (in thousands)\n"
                           "Year ended December 31,") == "cash_flows"
    assert statement_above("Consolidated Statement of Cash Flows PepsiCo, Inc. and "
                           "Subsidiaries Fiscal years ended December 31, 2022, December 25, "
                           "2021 and December 26, 2020 (in millions)") == "cash_flows"
    assert statement_above("Consolidated Balance Sheets\nDecember 31,") == "balance"
    # the Selected Financial Data's excerpt of a statement is not the statement
    assert statement_above("Consolidated Statements of Operations Data:\n") is None
    # a sentence that mentions a statement is no title; the last title above wins
    assert statement_above("Amounts are shown in the consolidated statements of cash flows "
                           "as operating activities.") is None
    assert statement_above("Consolidated Statements of Operations\nRevenues 1 2\n"
                           "Consolidated Balance Sheets") == "balance"


def test_netflix_ebitda_margin_reads_d_and_a_from_the_cash_flow_statement(
        eval_dir: Path) -> None:
    """FinanceBench dev financebench_id_04458 (gold 5.4%): operating income (p. 40) plus the
    cash-flow statement's D&A (p. 42, 62,283), not the deferred-tax footnote's (p. 59)."""
    pdf = "NETFLIX_2015_10K.pdf"
    path = eval_dir / "en/docs/financebench" / pdf
    if not path.exists():
        pytest.skip(f"{path} absent (../shared/eval)")
    chunks = [c for c in chunk_document(parse_file(path), rel_path=pdf)
              if any(c.page_start <= p <= c.page_end for p in (40, 42, 59))]
    question = ("We want to calculate a financial metric. Please help us compute it by basing "
                "your answers off of the statement of income and the statement of cash flows. "
                "Here's the question: what is the FY2015 unadjusted EBITDA % margin for "
                "Netflix? Calculate unadjusted EBITDA using unadjusted operating income and "
                "D&A (from cash flow statement).")
    got = derived_answer(question, [[c for c in chunks if c.page_end == 59],
                                    [c for c in chunks if c.page_end != 59]],
                         TOK.key_terms, TOK.normalize, make_citation, EXP.phrases)
    assert got is not None and got[0].startswith("5.43% = "), got
    assert "62,283" in got[0] and sorted({c.page for c in got[1]}) == [40, 42]


def test_a_line_item_asked_by_name_is_the_row_of_that_label(tmp_path: Path) -> None:
    """New-user trial (Netflix 2017 10-K): "What was Netflix's interest expense in 2017?" asks
    no quantity word and was answered by "Interest and other income (expense)"; a line item
    named before its year is looked up, in the row whose label is that item, no word more."""
    path = _acme_10k(tmp_path, """# Consolidated Statements of Operations

Year Ended December 31,

2015 2016 2017

Operating income 305,826 379,793 838,679

Interest expense (132,716) (150,114) (238,204)

Interest and other income (expense) (31,225) 30,828 (115,154)
""")
    _assert_lookups(path, {
        "What was ACME's interest expense in 2017?": "Interest expense, 2017: (238,204) — ",
        "What was ACME's operating income in 2015?": "Operating income, 2015: 305,826 — ",
        # the item must be the whole label: "other income" is no row of its own
        "What was ACME's other income in 2017?": None,
        # an attribute of an item is not the item
        "What was the reason for ACME's interest expense in 2017?": None,
    })
