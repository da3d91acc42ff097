"""Which financial statement a row sits in, and which statements a question names
(``corpus.derived``).

A filing writes the same line item in several tables: "Depreciation and amortization" is a
row of the cash-flow statement and of the deferred-tax footnote (Netflix's 2015 10-K: 62,283
on the statement, (43,204) in the footnote). A question that says where to read it
("D&A (from cash flow statement)", "using the balance sheet", "basing your answer on the
statement of income") is answered from a row of that statement when one names the item.

The three primary statements and their usual titles (US GAAP / IFRS presentation: ASC 205-10,
IAS 1 §10): the balance sheet (statement of financial position), the income statement
(statement of operations / earnings / income, P&L) and the cash-flow statement.
"""

from __future__ import annotations

import re

__all__ = ["BALANCE", "CASH_FLOWS", "INCOME", "named_statements", "statement_above",
           "title_kind"]

BALANCE, INCOME, CASH_FLOWS = "balance", "income", "cash_flows"

# a statement named in running text (a question, a definition)
_NAMED: tuple[tuple[str, re.Pattern[str]], ...] = (
    (CASH_FLOWS, re.compile(r"\bcash[\s-]*flows?\s+statements?\b|\bstatements?\s+of\s+"
                            r"(?:consolidated\s+)?cash[\s-]*flows?\b", re.I)),
    (INCOME, re.compile(r"\bincome\s+statements?\b|\bstatements?\s+of\s+(?:consolidated\s+)?"
                        r"(?:income|operations|earnings)\b|\bp\s*&\s*l\b", re.I)),
    (BALANCE, re.compile(r"\bbalance\s+sheets?\b|\bstatements?\s+of\s+(?:consolidated\s+)?"
                         r"financial\s+position\b", re.I)),
)

# a statement's title on a line of its own: "CONSOLIDATED STATEMENTS OF CASH FLOWS (in
# thousands)", "Consolidated Statement of Cash Flows PepsiCo, Inc. and Subsidiaries …",
# "Consolidated Balance Sheets"; not a sentence that mentions one ("… as reported in the
# consolidated statements of cash flows.")
_TITLE_WORDS = 30
# an excerpt of a statement in another table is no statement: "Consolidated Statements of
# Operations Data" heading the five-year Selected Financial Data (Regulation S-K Item 301)
_EXCERPT = re.compile(r"\s*(?:data|highlights|summary|information)\b", re.I)


def named_statements(question: str) -> frozenset[str]:
    """The statements ``question`` names (``{"cash_flows", "income"}`` for "basing your answers
    off of the statement of income and the statement of cash flows"); empty when none."""
    return frozenset(kind for kind, pattern in _NAMED if pattern.search(question))


def statement_above(text_before: str) -> str | None:
    """The statement a row belongs to: the kind of the last statement title in
    ``text_before`` (the text above the row in its chunk and the chunks merged before it)
    written on a line of its own that starts with the title and has at most ``_TITLE_WORDS``
    words (a title runs on with the company and the periods); ``None`` when no title stands
    above it there (a footnote table, or a title further up than was read)."""
    for line in reversed(text_before.splitlines()):
        kind = title_kind(line)
        if kind is not None:
            return kind
    return None


def title_kind(line: str) -> str | None:
    """The kind of the statement whose title ``line`` is (:func:`statement_above`'s test of
    one line), else ``None``."""
    line = line.strip(" |#*\r\n")
    if not line or len(line.split()) > _TITLE_WORDS:
        return None
    head = re.sub(r"^(?:consolidated|combined|condensed|\s)+", "", line, flags=re.I)
    for kind, pattern in _NAMED:
        m = pattern.match(head)
        if m is not None and not _EXCERPT.match(head[m.end():]):
            return kind
    return None
