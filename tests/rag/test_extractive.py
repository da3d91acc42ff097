"""Evidence scoring of the extractive answer (pure functions)."""

from __future__ import annotations

from corpus.tokenizer import asks_quantity, holds_figure
from rag.extractive import score_unit


def test_table_row_gets_credit_for_terms_in_its_context() -> None:
    """ESP32-PICO-D4 datasheet (zh-pdf): the voltage row names neither the product nor the
    table; before, an overview sentence naming the product outscored it."""
    terms = ["esp32-pico-d4", "工作", "电压"]
    ctx = "esp32-pico-d4 技术规格书 > 1 概述 | 类别 | 项目 | 产品规格 |"
    row = score_unit("| 工作电压/供电电压 | 3.0 V ~ 3.6 V |", terms, context=ctx)
    overview = score_unit("表 1 列出了 ESP32-PICO-D4 的产品规格。", terms, context=ctx)
    assert row > overview > 0
    assert score_unit("| 尺寸 | 7 mm |", terms, context=ctx) == 0.0  # context alone is no evidence


def test_asks_quantity() -> None:
    assert asks_quantity("ESP32-PICO-D4 的工作电压范围是多少？")
    assert asks_quantity("How many employees did 3M have in 2018?")
    assert not asks_quantity("谁负责绩效申诉？")
    # "the amount of" asks for a figure (financebench_id_01491: the answer quoted a press
    # release's dateline before the line "$13.2 billion in cash proceeds")
    assert asks_quantity("What is the amount of the cash proceeds that JnJ realised?")
    assert asks_quantity("What were the GDP growth amounts for the third quarter?")
    # a date is a figure: 何时 / 什么时候 / "when was …" / "when does … take effect" (a new-user
    # trial: "劳动合同法什么时候开始施行？" quoted 第九十七条 "自本法施行后续订…", no date)
    assert asks_quantity("劳动合同法什么时候开始施行？")
    assert asks_quantity("网络安全法自何时起施行？")
    assert asks_quantity("When was the company founded?")
    assert asks_quantity("When does the Cybersecurity Law take effect?")
    # ... but "when must" asks a condition, and "what happens when" an event
    assert not asks_quantity("When must an employer pay double wages?")
    assert not asks_quantity("What will happen when you press the down button?")


def test_question_codes_are_no_figure() -> None:
    """A unit whose only digits are the question's own product code holds no figure (before,
    "ESP32-PICO-D4 是一款…模组" got the quantity bonus for its 32 and 4)."""
    terms = ["esp32-pico-d4", "工作", "电压"]
    assert not holds_figure("esp32-pico-d4 是基于 esp32 的模组", [*terms, "esp32"])
    assert not holds_figure("esp32-pico-d4 的产品规格", terms)
    assert holds_figure("esp32-pico-d4 工作电压 3.0 v ~ 3.6 v", terms)
    assert holds_figure("工作电压 3.3 v", [])


def test_a_revision_history_row_is_not_the_value_asked(tmp_path) -> None:
    """A datasheet's revision history names the asked quantity beside a version and a date
    ("V1.0 | 2020.12.22 | 微调蓝牙接收灵敏度"); the value is in the specification. Ranked first
    by retrieval, the history row was the answer (CH583 p.113); it is demoted unless the
    question asks about versions or changes."""
    from corpus.chunker import chunk_document
    from corpus.citations import make_citation
    from corpus.parsers import parse_file
    from corpus.tokenizer import Tokenizer
    from rag.extractive import extract_answer
    from rag.types import Confidence, ConfidenceFeatures, Retrieval, RetrievedChunk

    tok = Tokenizer()
    doc = tmp_path / "ch583.md"
    doc.write_text("# 第22章 修改记录\n\n| 版本 | 日期 | 说明 |\n|---|---|---|\n"
                   "| V1.0 | 2020.12.22 | 微调蓝牙接收灵敏度，微调睡眠电流 |\n\n"
                   "# 第1章 概述\n\n射频：接收灵敏度-98dBm，可编程发送功率。\n", encoding="utf-8")
    chunks = chunk_document(parse_file(doc), rel_path=doc.name)
    chunks.sort(key=lambda c: "修改记录" not in " ".join(c.section_path))  # history first

    def ask(q: str) -> str:
        items = tuple(RetrievedChunk((c,), 1.0 / (i + 1)) for i, c in enumerate(chunks))
        r = Retrieval(q, "c", items, Confidence(0.5, ConfidenceFeatures()), "keyword",
                      key_terms=tuple(tok.key_terms(q)))
        ev = extract_answer(r, tok.key_terms(q), make_citation, normalize=tok.normalize)
        return ev[0].text

    assert "-98dBm" in ask("蓝牙接收灵敏度是多少？")
    assert "V1.0" in ask("哪个版本微调了蓝牙接收灵敏度？")
