"""Answerability (rag.answerability): a code the question names must be in the evidence."""

from __future__ import annotations

from rag.answerability import codes_of, missing_codes


def test_codes_are_names_not_periods_quantities_or_versions() -> None:
    terms = ["esp32-pico-d4", "oper", "fy2018", "8kw", "q2", "2023", "fw-301", "v1.2", "2022-05"]
    assert codes_of(terms) == ["esp32-pico-d4", "fw-301"]


def test_a_code_matches_whole_across_separators_never_inside_a_longer_code() -> None:
    assert missing_codes(["fw-301"], ["FW-3010 保修 3 年"]) == ["fw-301"]
    assert missing_codes(["fw-301"], ["型号 FW-301。"]) == []
    assert missing_codes(["fw-301"], ["FW_301 warranty"]) == []
    # the ESP32 datasheet's title writes the name with soft hyphens (U+00AD)
    title = "ESP32\u00adPICO\u00adD4 技术规格书"
    assert missing_codes(["esp32-pico-d4"], ["工作电压 3.0 V", title]) == []
    assert missing_codes(["oper", "voltag"], ["anything"]) == []  # no code, nothing to check
    # a file name holds the code before a word (the table row itself names no product)
    row, path = "| 存储温度 | –40 | 150 |", "esp32_pico_d4_datasheet.pdf"
    assert missing_codes(["esp32-pico-d4"], [row, path]) == []
