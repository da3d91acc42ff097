"""Keyword tokenizer: the right values of cases 06 (Chinese segmentation) and 08 (numbers, units,
codes, dates, full width), Traditional/Simplified folding, BM25 vectors and key terms."""

from __future__ import annotations

import pytest

from corpus.tokenizer import BM25_K1, Tokenizer, term_index


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    t = Tokenizer()
    t.warm_up()
    return t


# --- case 06: segmentation -------------------------------------------------------------------
def test_index_keeps_search_mode_subwords(tok: Tokenizer) -> None:
    terms = tok.terms("设备健康检查每月一次。本产品不支持热插拔。")
    assert {"健康", "检查", "健康检查", "插拔", "热插拔"} <= set(terms)


@pytest.mark.parametrize(
    ("query", "doc"),
    [
        ("保修期", "设备保修期为三年，自验收之日起计算。"),
        ("健康", "设备健康检查每月一次。"),
        ("插拔", "本产品不支持热插拔。"),
        ("机房温度要求", "数据中心机房温度应保持在18至27摄氏度"),
        ("审批金额", "采购申请需经部门经理审批，金额超过五万元需总经理签字。"),
    ],
)
def test_chinese_query_terms_overlap_document_terms(tok: Tokenizer, query: str, doc: str) -> None:
    assert set(tok.query_terms(query)) & set(tok.terms(doc))


def test_whitespace_tokenizer_failure_is_fixed(tok: Tokenizer) -> None:
    # case 06 "observed": a \w tokenizer makes the clause one token, so 保修期 never matched
    assert "保修期" in tok.terms("设备保修期为三年，自验收之日起计算。")


def test_english_is_stemmed(tok: Tokenizer) -> None:
    assert tok.terms("Warranties") == tok.terms("warranty")
    assert tok.query_terms("warranty period") == ["warranti", "period"]
    assert "the" not in tok.terms("the warranty period")


# --- case 08: numbers, units, codes, dates, width -----------------------------------------------
def test_codes_are_whole_and_distinct(tok: Tokenizer) -> None:
    t301 = tok.terms("型号FW-301的额定功率为8kW")
    t3010 = tok.terms("型号FW-3010的额定功率为10.5kW")
    assert "fw-301" in t301 and "fw-3010" not in t301
    assert "fw-3010" in t3010 and "fw-301" not in t3010
    assert "fw-301" in tok.query_terms("FW-301 的额定功率？")


@pytest.mark.parametrize("text", ["8kW", "8 kW", "8KW", "8 kw", "8千瓦"])
def test_number_with_unit_is_canonical(tok: Tokenizer, text: str) -> None:
    assert "8kw" in tok.terms(text)


def test_decimal_with_unit_is_not_split(tok: Tokenizer) -> None:
    terms = tok.terms("峰值功率10.5kW")
    assert "10.5kw" in terms and "5" not in terms


@pytest.mark.parametrize("text", ["2024年1月1日", "2024-01-01", "2024/1/1", "2024 年 1 月 1 日"])
def test_dates_are_canonical(tok: Tokenizer, text: str) -> None:
    assert "2024-01-01" in tok.terms(text)


def test_date_spellings_match_each_other(tok: Tokenizer) -> None:
    assert "2025-12-31" in set(tok.query_terms("有效期到2025年12月31日吗？"))
    assert "2025-12-31" in tok.terms("有效期至2025-12-31。")
    # a month-day question matches a full date in the text (jieba alone cut 1/月/1/日起)
    assert "01-01" in set(tok.query_terms("1月1日起生效的是什么？")) & set(
        tok.terms("本价格表自2024年1月1日起生效")
    )


def test_versions_stay_whole(tok: Tokenizer) -> None:
    assert "2.3.1" in tok.terms("当前固件版本v2.3.1")
    assert "2.3.0" not in tok.terms("当前固件版本v2.3.1")
    assert tok.query_terms("v2.3.1") == ["2.3.1"]


def test_full_width_equals_half_width(tok: Tokenizer) -> None:
    assert tok.terms("型号ＦＷ－３０５，重量３５ｋｇ") == tok.terms("型号FW-305，重量35kg")
    assert "400-800-1234" in tok.terms("客服电话：４００－８００－１２３４。")
    assert "400-800-1234" in tok.query_terms("400-800-1234 是什么电话")


# --- Traditional / Simplified ---------------------------------------------------------------
def test_traditional_folds_to_simplified(tok: Tokenizer) -> None:
    assert tok.terms("設備保修期間為三年") == tok.terms("设备保修期间为三年")
    assert tok.normalize("夜柔吠陀與阿闥婆吠陀") == "夜柔吠陀与阿闼婆吠陀"


# --- sparse vectors ----------------------------------------------------------------------------
def test_sparse_vector_is_sorted_uint32_and_bm25_saturated(tok: Tokenizer) -> None:
    vec = tok.sparse("热插拔 热插拔 健康")
    assert list(vec.indices) == sorted(set(vec.indices))
    assert all(0 <= i < 2**32 for i in vec.indices)
    w = dict(zip(vec.indices, vec.values, strict=True))
    once, twice = w[term_index("健康")], w[term_index("热插拔")]
    assert once < twice < 2 * once and twice < BM25_K1 + 1
    long_doc = tok.sparse("健康 " + "设备 " * 400)
    assert dict(zip(long_doc.indices, long_doc.values, strict=True))[term_index("健康")] < once


def test_query_vector_never_empty_for_words(tok: Tokenizer) -> None:
    assert not tok.sparse_query("保修期").is_empty()
    assert not tok.sparse_query("的").is_empty()  # all stopwords: kept rather than empty
    assert tok.sparse_query("？？ ……").is_empty()
    assert tok.sparse("").is_empty()


# --- key terms ------------------------------------------------------------------------------
def test_key_terms_put_codes_numbers_and_names_first(tok: Tokenizer) -> None:
    keys = tok.key_terms("What is the rated power of FW-301 at Acme in 2024年1月1日?")
    assert keys[:2] == ["fw-301", "2024-01-01"]
    assert "what" not in keys and "the" not in keys
    assert "acm" in keys  # a capitalised name, stemmed like the index terms


def test_key_terms_chinese_accurate_mode(tok: Tokenizer) -> None:
    keys = tok.key_terms("设备健康检查多久做一次？")
    assert "健康检查" in keys and "多久" not in keys
    assert "什么" not in tok.key_terms("保修期是什么？")
    assert set(tok.key_terms("保修期是什么？")) <= set(tok.terms("设备保修期为三年"))


def test_quoted_phrases(tok: Tokenizer) -> None:
    assert tok.quoted_phrases('What does "Health Score" mean?') == ["health score"]
    assert tok.quoted_phrases("「熱插拔」是什麼") == ["热插拔"]


def test_terminal_escapes_and_controls_are_no_terms(tok: Tokenizer) -> None:
    """A question pasted from a coloured terminal (fresh-user trial: a key term ``31m``)."""
    assert tok.key_terms("\x1b[31mWhat is the warranty period?\x1b[0m") == tok.key_terms(
        "What is the warranty period?")
    assert tok.terms("保修\x00期\x1b]0;title\x07两年") == tok.terms("保修 期 两年")


def test_answer_format_instructions_are_no_key_terms(tok: Tokenizer) -> None:
    """FinanceBench-style wrapping ("primarily using …", "round to two decimal places",
    "calculate what was asked") says how to answer, not where: only the asked words remain,
    and the same question without the wrapping has the same key terms."""
    wrapped = ("Assume that you are an analyst. What is the FY2018 net PPNE for 3M? Round your "
               "answer to two decimal places. Calculate what was asked by utilizing the line "
               "items clearly shown in the balance sheet; base your judgment on it.")
    keys = tok.key_terms(wrapped)
    for w in ("assum", "round", "decim", "place", "calcul", "util", "clear", "judgment"):
        assert w not in keys, w
    assert {"fy2018", "3m", "ppne", "net", "balanc", "sheet", "analyst"} <= set(keys)
    # instruction words stay in the query terms (BM25 of the whole question)
    assert "round" in tok.query_terms(wrapped)


def test_ascii_text_skips_nfkc_and_opencc(tok: Tokenizer) -> None:
    # normalize only lower-cases ASCII text: NFKC and OpenCC leave every ASCII string as it is
    # (all one- and two-character strings checked, and runs of every printable character)
    import string
    import unicodedata

    from corpus.tokenizer import _CONTROL, _engines

    def full(text: str) -> str:
        text = _CONTROL.sub(" ", text)
        return str(_engines()[0].convert(unicodedata.normalize("NFKC", text).lower()))  # type: ignore[attr-defined]

    chars = [chr(i) for i in range(128)]
    samples = [a + b for a in chars for b in chars] + [string.printable * 3, "Tai-Pei IS 42"]
    assert all(tok.normalize(s) == full(s) for s in samples)
