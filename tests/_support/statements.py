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
