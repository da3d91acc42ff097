"""Financial statement pages written as Markdown, for the derived-figure tests of rag/ and
loop/ (ACME's FY2021 10-K)."""

BALANCE_SHEET = """# Consolidated Balance Sheets

(in millions)

December 31, 2021 2020

Cash and cash equivalents $ 452 $ 461

Total current assets 1,001 705

Property and equipment, net 88 87

Total current liabilities 577 334
"""

OPERATIONS = """# Consolidated Statements of Operations

Year Ended December 31,

2019 2020 2021

Total net sales 107,006 135,987 177,866

Net income 596 2,371 3,033

Effective tax rate 24.6 % 23.1 % 21.6 %
"""

# the shape of the AmEx 2022 balance sheet as the PDF parser writes it: a Markdown table, a
# header row per section, a label holding digits (no statement row), subtotals
LIABILITIES = """# Consolidated Balance Sheets

December 31 (Millions) 2022 2021

| Assets |  |  |  |
|---|---|---|---|
| Cash and due from banks |  | 5,510 | 1,292 |
| Card Member loans |  | 104,217 | 85,257 |
| Total assets |  | 109,727 | 86,549 |
| Liabilities and Shareholders' Equity |  |  |  |
| Liabilities |  |  |  |
| Customer deposits |  | 110,239 | 84,382 |
| Accounts payable |  | 12,133 | 10,574 |
| Short-term borrowings |  | 1,348 | 2,243 |
| Long-term debt (includes debt of consolidated entities: 2022, $12,662) |  | 42,573 | 38,675 |
| Other liabilities |  | 37,350 | 30,497 |
| Total liabilities |  | 203,643 | 166,371 |
| Shareholders' Equity |  |  |  |
| Retained earnings |  | 16,279 | 13,474 |
"""
