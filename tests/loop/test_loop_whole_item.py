"""The offline LoopAgent answers "第三十九条规定了什么？" with the article's whole text (its six
cases), as the RAG path does (``corpus.item_text``): a new-user trial got its first line only
in auto and loop modes."""

from __future__ import annotations

from conftest import KB, text_kb_fixture

from corpus.tokenizer import Tokenizer
from loop import LoopAgent
from tests.corpus.test_item_text import LAW

kb = text_kb_fixture("law", {"labor_law.md": LAW})


def test_the_loop_answers_what_an_article_says_with_the_whole_article(kb: KB,
                                                                       tokenizer: Tokenizer
                                                                       ) -> None:
    q = "劳动合同法第三十九条规定了什么？"
    res = LoopAgent(kb.store, kb.search, key_terms=tokenizer, documents=kb).run(q, kb.collection)
    assert res.found
    assert res.answer.startswith("第三十九条 劳动者有下列情形之一的")
    assert "（六）被依法追究刑事责任的。" in res.answer
    assert "第四十条" not in res.answer
