"""An article the texts read do not have is "not found" on the LoopAgent too (a trial: "园区管理办法
第十五条规定了什么？" of a ten-article regulation was answered by the regulation's title line, found;
the RAG scope check already said not found: ``rag.answerability``)."""

from __future__ import annotations

from conftest import KB, text_kb_fixture

from corpus.tokenizer import Tokenizer
from loop import LoopAgent

_NUMS = "一二三四五六七八九十"
REGULATION = "科技园区管理办法\n\n第一章 总则\n" + "\n".join(
    f"第{_NUMS[k - 1]}条 园区入驻企业应当遵守第{k}项管理要求，园区管理委员会负责监督检查。"
    for k in range(1, 11)) + "\n"
NOTICE = "园区通知\n\n园区管理委员会定期发布通知，入驻企业应当关注。\n"

kb = text_kb_fixture("rules", {"园区管理办法.txt": REGULATION, "通知.txt": NOTICE})


def test_an_article_the_regulation_lacks_is_not_found(kb: KB, tokenizer: Tokenizer) -> None:
    agent = LoopAgent(kb.store, kb.search, key_terms=tokenizer, documents=kb)
    res = agent.run("园区管理办法第十五条规定了什么？", kb.collection)
    assert not res.found and not res.citations, res.answer
    res = agent.run("园区管理办法第三条规定了什么？", kb.collection)
    assert res.found and res.citations[0].quote.startswith("第三条"), res.answer
