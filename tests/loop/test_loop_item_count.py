"""The LoopAgent answers how many articles a document has as the RAG path does
(``corpus.item_count`` in ``loop.dated_check``): counted from the labels, the last article
cited; the reading policy's answer goes to ``related``. Real ingest into an embedded store,
the offline policy, no LLM."""

from __future__ import annotations

from conftest import KB, run_agent, text_kb_fixture

rules_kb = text_kb_fixture("rules", {"rules.md": "# 门禁管理规定\n\n" + "\n\n".join(
    f"第{n}条 门禁卡{what}。" for n, what in zip("一二三四五六", [
        "由行政部统一发放", "不得转借他人", "遗失后应当当日挂失", "损坏的按成本价赔偿",
        "离职时应当交回", "本规定自发布之日起施行"], strict=True)) + "\n"})


def test_the_articles_of_the_rules_are_counted(rules_kb: KB) -> None:
    res = run_agent(rules_kb, None, "门禁管理规定一共有多少条？")
    assert res.found and res.computed, res.answer
    assert res.answer.startswith("共6条（第一条至第六条）"), res.answer
    assert res.citations[0].quote.startswith("第六条"), res.citations[0].quote


cover_kb = text_kb_fixture("covers", {"zenith_10k.md": "\n".join([
    "# Zenith Industries", "", "FORM 10-K", "",
    "Securities registered pursuant to Section 12(b) of the Act:", "",
    "Title of each class Trading Symbol(s) Name of each exchange on which registered",
    "Common Stock, Par Value $.01 Per Share ZEN New York Stock Exchange",
    "1.500% Notes due 2026 ZEN26 New York Stock Exchange", "",
    "Securities registered pursuant to section 12(g) of the Act: None", "",
    "## Item 1. Business", "", "Zenith Industries makes widgets.", ""])})


def test_the_registered_debt_securities_are_read_off_the_cover(cover_kb: KB) -> None:
    """As the RAG path (``corpus.registered_securities`` in ``loop.dated_check``)."""
    res = run_agent(cover_kb, None, "Which debt securities are registered to trade on a "
                                    "national securities exchange under Zenith's name?")
    assert res.found and res.computed, res.answer
    assert res.answer.endswith(": 1.500% Notes due 2026 ZEN26 New York Stock Exchange"), res.answer
    assert res.citations[0].quote == "1.500% Notes due 2026 ZEN26 New York Stock Exchange"
