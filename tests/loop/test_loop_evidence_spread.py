"""The offline policy's answer ranking inside one document: a key term every chunk read holds
(the product or organisation the question names) weighs less, a heading's or list item's
number is no figure, and a unit is embedded under its chunk's headings — so a table row with
the asked value outranks prose that names the subject again (issue 16: Chinese multi-part
parts cited from another page of the right datasheet or policy)."""

from __future__ import annotations

from corpus.evidence import holds_figure_unit
from corpus.tokenizer import Tokenizer
from corpus.types import Chunk
from loop.evidence import TermMatcher, best_evidence, spread_weights
from loop.policies.offline_rank import passage_text


def _chunk(i: int, text: str, section: tuple[str, ...]) -> Chunk:
    return Chunk(chunk_id=f"d-{i:05d}", doc_id="d", path="a.pdf", title="修订历史",
                 section_path=section, page_start=i + 1,
                 page_end=i + 1, line_start=1, line_end=3, char_start=0,
                 char_end=len(text), text=text, ordinal=i)


# the real text of the ESP32-PICO-D4 datasheet (../shared zh PDFs): p.11 prose, p.13 the
# absolute-maximum-ratings table under the page's running title, p.6 the specification
# table; the PDF's title metadata is "修订历史"
_PROSE = _chunk(0, "3.1 CPU 和片上存储\n\nESP32-PICO-D4 片上存储包括：\n\n• 448 KB 的 ROM",
                ("3 功能描述", "3.1 CPU 和片上存储"))
_TABLE = _chunk(1, "ESP32-PICO-D4 技术规格书\n\n| 符号 | 参数 | 最小值 | 最大值 | 单位 |\n"
                   "| --- | --- | --- | --- | --- |\n| Tstore | 存储温度 | –40 | 150 | °C |",
                ("4 电气特性", "4.1 绝对最大额定值"))
_SPEC = _chunk(2, "ESP32-PICO-D4 技术规格书\n\n| 类别 | 项目 | 产品规格 |\n| --- | --- | --- |\n"
                  "| 硬件 | 工作电压/供电电压 | 3.0 V ~ 3.6 V |", ("1 概述",))


def test_a_term_every_chunk_read_holds_weighs_less(tokenizer: Tokenizer):
    m = TermMatcher(["esp32-pico-d4", "存储", "温度", "最高"], tokenizer)
    w = spread_weights(m, [_PROSE, _TABLE, _SPEC], discount=0.75)
    assert w is not None
    base = dict(zip(m.terms, m.weights, strict=True))
    # the code is in every chunk read: a quarter of its weight is left
    assert w["esp32-pico-d4"] == base["esp32-pico-d4"] * 0.25
    # 最高 is stated by one chunk of three: the table's 最大值 column (corpus.evidence.bounds)
    assert w["温度"] < base["温度"] and w["最高"] == base["最高"] * (1 - 0.75 / 3)
    assert spread_weights(m, [_PROSE, _TABLE], discount=0.75) is None  # under 3 chunks read


def test_the_value_row_outranks_prose_naming_the_subject(tokenizer: Tokenizer):
    chunks = [_PROSE, _SPEC, _TABLE]
    # the offline policy's rank prior: the prose chunk was read first, the table last
    # (0.3 / (1 + 0.5 rank))
    prior = {c.chunk_id: 0.3 / (1 + 0.5 * i) for i, c in enumerate(chunks)}
    # the question's 最高 is covered by the table's 最大值 column (corpus.evidence.bounds), so
    # the row is first under the matcher's own weights already; without it, only the spread
    # weights put the row before the prose
    m = TermMatcher(["esp32-pico-d4", "存储", "温度", "最高"], tokenizer)
    assert "Tstore" in best_evidence(chunks, m, bonus=prior, number_bonus=0.2,
                                     figure_rows=True)[0].text
    m = TermMatcher(["esp32-pico-d4", "存储", "温度"], tokenizer)
    plain = best_evidence(chunks, m, bonus=prior, number_bonus=0.2, figure_rows=True)
    spread = best_evidence(chunks, m, bonus=prior, number_bonus=0.2, figure_rows=True,
                           rank_weights=spread_weights(m, chunks, 0.75))
    assert plain[0].text == "ESP32-PICO-D4 片上存储包括："  # the matcher's own weights
    assert "Tstore" in spread[0].text
    # the coverage (what the floors read) is the matcher's either way
    row = {e.text: e.coverage for e in plain}
    assert spread[0].coverage == row[spread[0].text]


def test_a_heading_or_list_number_is_no_figure():
    for unit in ("7.1.1 RS232C 接口简介", "2.1.10 基本精度", "2、行政人事部为固定薪酬",
                 "（3）使用考核工具", "第三章 面板说明", "第3条 总则"):
        assert not holds_figure_unit(unit, unit.lower(), ["rs232c"]), unit
    for unit in ("2.1.10 基本精度 0.1%", "3.3 V", "1.5 倍", "最大传输距离：15m。",
                 "1. 模组的 IO 输出总电流的测试条件为 25 °C", "• 448 KB 的 ROM"):
        assert holds_figure_unit(unit, unit.lower(), []), unit


def test_a_unit_is_embedded_under_its_headings():
    from loop.evidence import Evidence
    row = "| Tstore | 存储温度 | –40 | 150 | °C |"
    text = passage_text(Evidence(_TABLE, row, 0.5, ("存储",), 0))
    assert text.splitlines() == [
        "a > 修订历史 > 4 电气特性 > 4.1 绝对最大额定值",
        "| 符号 | 参数 | 最小值 | 最大值 | 单位 |", row]


def test_not_found_is_decided_on_the_key_terms_own_weights():
    # an unanswerable question (zhpdf:64 kind): under the spread weights a unit naming none
    # of the subject terms ranks first and covers the floor, but the unit best by the
    # key terms' own weights is weak and none is strong: say not found, as before
    from corpus.tuning import TUNING
    from loop.evidence import Evidence
    from loop.policies.offline_rank import ranked_evidence
    t = TUNING.offline
    weak = Evidence(_PROSE, "ESP32-PICO-D4 片上存储包括：", 0.35, ("存储",), 0, score=0.5,
                    plain=0.9)
    other = Evidence(_SPEC, "| 硬件 | 工作电压/供电电压 | 3.0 V ~ 3.6 V |", 0.45, (), 1,
                     score=0.8, plain=0.6)
    assert ranked_evidence(t, 0.4, None, [other, weak]) == []
    # without plain scores the ranking score decides, as it always did
    same = [Evidence(o.chunk, o.text, o.coverage, o.matched, o.rank, o.score)
            for o in (other, weak)]
    assert [e.text for e in ranked_evidence(t, 0.4, None, same)] == [other.text]


def test_a_link_target_or_url_is_no_figure():
    # a trial: "How long does the CEO shadow program last?" got a line whose link ends in a number
    for unit in ("The CEO Shadows maintain a project called [CEO Shadow Tasks]"
                 "(https://gitlab.com/gitlab-com/ceo-shadow/tasks/-/boards/1385894).",
                 "See https://example.com/page/42 for details", "Visit www.site2.com today"):
        assert not holds_figure_unit(unit, unit.lower(), []), unit
    for unit in ("Currently, a rotation is [two weeks](#rotation) or 10 days",
                 "The fee is 30 USD ([pricing](/handbook/pricing/))"):
        assert holds_figure_unit(unit, unit.lower(), []), unit


def test_a_column_scale_in_zeros_is_no_figure():
    # mmlongbench:1016 "How much shares did COSTCO repurchase in FY2021?" was answered by a
    # table's heading whose only digits are its "(000's)" scale
    for unit in ("The following table summarizes the Company’s stock repurchase activity: Shares "
                 "Repurchased Average Price per (000’s)", "Revenue (000s omitted)",
                 "Salaries ($000)", "Total (in 000's)"):
        assert not holds_figure_unit(unit, unit.lower(), []), unit
    for unit in ("During 2021 and 2020, we repurchased 1,358,000 and 643,000 shares",
                 "Revenue (000s omitted) 4,512", "a 1,000's-strong crowd"):
        assert holds_figure_unit(unit, unit.lower(), []), unit
