"""The cross-language key terms an LLM gives (gateway.conversation.llm): the words of its
translation of the question, numbers and codes left out; without a reply the dictionary's terms
stand. No model needed (the parsing is pure)."""

from __future__ import annotations

from gateway.conversation.llm import MAX_TERMS, translation_phrase, translation_terms

QUESTION = "What is the factory default GPIB address of the TH2817B?"


def test_terms_are_the_translations_chinese_words() -> None:
    assert translation_terms("ESP32-PICO-D4 的最大存储温度是多少？", "x", "zh") == (
        "最大", "存储", "温度")  # the code, 的 / 是 and the question word 多少 left out


def test_an_invented_answer_gives_no_number() -> None:
    # the model answered instead of translating: its number is no term, and the phrase
    # searched with the question leaves it out; the question's own numbers and codes stay
    assert translation_terms("TH2817B的默认GPIB地址是12。", QUESTION, "zh") == ("默认", "地址")
    assert translation_phrase("TH2817B的默认GPIB地址是12。", QUESTION) == \
        "TH2817B的默认GPIB地址是。"
    assert translation_phrase("RS232C串口在 25 °C 下传输 15 米", "RS232C at 25 °C?") == \
        "RS232C串口在 25 °C 下传输 米"
    # numbers in Chinese numerals too, against the question's in any script (new-user trial:
    # the model's answer 六个月 was searched with the question); ordinals and the question's
    # own quantities stay, and so do words holding a numeral character (统一, 一般)
    q = "How long may the probation period be for a contract of three years or more?"
    assert translation_phrase("三年以上劳动合同的试用期不得超过六个月。", q) == \
        "三年以上劳动合同的试用期不得超过。"
    assert translation_phrase("第三条规定的统一标准一般是两倍吗", "Is it twice under article 3?") == \
        "第三条规定的统一标准一般是两倍吗"


def test_english_terms_leave_out_stop_words_and_the_questions_own_words() -> None:
    got = translation_terms("How long must network operators keep the network logs?",
                            "网络运营者应当留存网络日志多久？ network", "en")
    assert "network" not in got and "the" not in got
    assert {"operators", "logs", "keep"} <= set(got)


def test_empty_or_long_replies() -> None:
    assert translation_terms("", QUESTION, "zh") == ()
    long = "，".join(f"术语{chr(0x4e00 + i)}{chr(0x4e80 + i)}" for i in range(40))
    got = translation_terms(long, QUESTION, "zh")
    assert 0 < len(got) <= MAX_TERMS
