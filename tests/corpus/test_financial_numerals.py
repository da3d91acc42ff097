"""An amount written in Chinese financial (uppercase, 大写) numerals is a figure
(``corpus.tokenizer.FINANCIAL_NUMERAL``): "技术开发合同的研究开发经费和报酬一共多少万元？" over a
contract whose sum reads "贰佰伍拾 万元" was answered with a run of schedule dates, the only
unit holding digits (a new-user trial on the zh PDFs' tech_dev_contract.pdf)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus.evidence import holds_figure_unit
from corpus.tokenizer import FINANCIAL_NUMERAL, holds_figure
from tests._support.ingest import keyword_rag_answer

CONTRACT = """# 技术开发合同

三、研究开发计划

2020.3.2-2020.3.15 需求分析
2020.3.16-2020.5.24 设计与编码
2020.5.25-2020.6.28 测试与试运行

四、研究开发经费、报酬及其支付或结算方式

（一）研究开发经费是指完成项目研究开发工作所需的成本，报酬是指本项目开发成果的使用费和研究开发人员的科研补贴。

本项目研究开发经费和报酬（大写） 贰佰伍拾 万元，其中经费 壹佰玖拾 元，报酬 陆拾 元。

（二）支付方式：一次总付 贰佰伍拾 万元，时间：2020 年10 月2 日。
"""


@pytest.mark.parametrize(("text", "figure"), [
    ("本项目研究开发经费和报酬（大写） 贰佰伍拾 万元", True),
    ("经费 壹佰玖拾 元", True),
    ("报酬 陆拾 元", True),
    ("叁万元整", True),
    ("拾元", True),
    ("伍先生负责验收", False),  # a surname
    ("拾取样品后送检", False),  # a verb
    ("统一管理，一般规定", False),  # ordinary numerals are words too: not counted
])
def test_financial_numerals(text: str, figure: bool) -> None:
    assert (FINANCIAL_NUMERAL.search(text) is not None) is figure
    assert holds_figure(text, []) is figure
    assert holds_figure_unit(text, text, []) is figure


def test_the_rag_answer_is_the_sum_in_financial_numerals(tmp_path: Path) -> None:
    got = keyword_rag_answer(tmp_path, {"tech_dev_contract.md": CONTRACT},
                             "技术开发合同的研究开发经费和报酬一共多少万元？")
    want = "本项目研究开发经费和报酬（大写） 贰佰伍拾 万元"
    assert got.found and got.answer.startswith(want), got.answer
