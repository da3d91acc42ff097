"""Derived figures computed from cited statement cells (issue 15, item 3).

A question asking for a change or a ratio ("year-over-year change in revenue from FY2016 to
FY2017", "working capital ratio … defined as total current assets divided by total current
liabilities") is answered by reading the rows it names in the retrieved statement tables
(``corpus.statement_rows``) and doing the arithmetic; the answer shows the cells and the
arithmetic, and cites every row it used, so every number in it traces to a cited cell.

Two forms, both read from the question's own words (no formula list fitted to questions):

- **change**: the question says *change*, *growth*, *increase*, *decrease* or *decline* and
  names two years; the row is the one whose label the question names best with a column for
  each year; the result is ``(later − earlier) / |earlier| × 100`` in percent, or the
  difference in percentage points for a row of rates (``24.6 %`` → ``21.6 %``).
- **formula**: the question defines one (``corpus.formula``: ``DPO is defined as: 365 *
  (average accounts payable between FY2016 and FY2017) / (FY2017 COGS + change in inventory
  between FY2016 and FY2017)``, ``Define working capital ratio as A divided by B``); each line
  item is one row (best label cover by the item's words) read at the item's own year or the
  question's year, every row from the first row's document; ``average X between Y1 and Y2`` is
  the mean of X's two cells, ``change in X between Y1 and Y2`` their difference; a name the
  question defines (``DIO + DSO - DPO``) is its own formula. An asked phrase ``A less B`` (``what
  is the FY2022 unadjusted EBITDA less capex``) is A minus B's amount (an outflow written in
  parentheses is subtracted, not added); so are ``A as a % of B`` (A / B in percent), ``A %
  margin`` (A / revenue in percent) and ``N year average of E from FY1 to FY2`` (E's mean over
  those years). A figure the question names without defining it is read by its standard
  definition (``corpus.formula.STANDARD``: EBITDA). A top-level division is shown in percent
  when the question asks for one (``%``, ``percent``) outside the formulas' names.

- **superlative**: the largest or smallest item of a kind ("the largest liability … in 2022")
  is the item row with the largest (smallest) cell of that year in the statement section the
  kind's header opens and its total closes; the items must account for the total.

Nothing is computed when a side has no row or no cell of its year: the extractive answer
stands. Rounding follows the question ("round … to two decimal places", else 2 for ratios
and 1 for percentages).
"""

from corpus.derived._answers import (
    computable,
    derive,
    derived_answer,
    looked_up_answer,
    looks_up,
    statement_figure,
)
from corpus.derived._numbers import converted
from corpus.derived._rows import adjacent_runs, chunks_above, document_search, statement_rows_of
from corpus.derived._superlative import asks_superlative, superlative_answer
from corpus.derived._types import Derived, MoreRows, RowAt, TextAbove

__all__ = ["Derived", "MoreRows", "RowAt", "TextAbove", "adjacent_runs", "asks_superlative",
           "chunks_above",
           "computable", "converted", "derive", "derived_answer", "document_search",
           "looked_up_answer", "looks_up", "statement_figure", "statement_rows_of",
           "superlative_answer"]
