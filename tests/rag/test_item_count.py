"""How many articles a document has is counted from its item labels and cited at the last one
(``corpus.item_count``; the RAG decision's step 0, ``rag.dated``, flag ``item_count``). A trial
asked "共有多少条" of a regulation and was answered with its title. A real embedded store and
keyword index, the real tokenizer, no embedding model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from corpus.citations import make_citation
from corpus.item_count import asked_count, count_answer
from corpus.qdrant_store import QdrantChunkStore
from gateway.wiring import get_tokenizer
from rag.decision import AnswerDecider
from rag.steps import drive_inline
from rag.types import Confidence, ConfidenceFeatures, Retrieval, RetrievedChunk
from tests._support.files import write_texts
from tests._support.ingest import ingest_keyword_only

_ARTICLES = ["数据处理者应当建立数据安全管理制度", "重要数据应当每年开展一次风险评估",
             "个人信息的收集应当取得个人同意", "数据出境应当通过安全评估",
             "发生数据安全事件应当立即采取处置措施", "监管部门可以约谈数据处理者",
             "违反本办法的，由主管部门责令改正", "本办法自2024年1月1日起施行"]


def _regulation() -> str:
    lines = ["# 某市数据安全管理办法", "", "## 第一章 总则", ""]
    for n, text in enumerate(_ARTICLES, 1):
        if n == 5:
            lines += ["## 第二章 罚则", ""]
        lines += [f"第{'一二三四五六七八'[n - 1]}条 {text}。", ""]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[QdrantChunkStore]:
    root = tmp_path_factory.mktemp("count")
    docs = write_texts(root / "docs", {
        "regulation.md": _regulation(),
        "notice.md": "# 通知\n\n依照《刑法》第二百条的规定处理。各单位应当遵守数据安全管理办法。\n",
    })
    ingest_keyword_only(root / "data", docs, "laws")
    st = QdrantChunkStore.embedded(root / "data" / "qdrant")
    yield st
    st.close()


@pytest.mark.parametrize(("question", "kind"), [
    ("这部数据安全管理办法共有多少条？", "条"), ("该办法一共几章？", "章"),
    ("How many articles does the regulation have?", "article"),
    ("第二章共有多少条？", None),  # the items of one chapter: not counted here
    ("申请需要满足多少个条件？", None), ("有哪些条例？", None), ("How many days of leave?", None),
])
def test_what_count_is_asked(question: str, kind: str | None) -> None:
    assert asked_count(question) == kind


def _retrieval(store: QdrantChunkStore, question: str) -> Retrieval:
    tok = get_tokenizer()
    hits = store.keyword_search("laws", tok.sparse_query(question), 5)
    items = tuple(RetrievedChunk((h.chunk,), h.score) for h in hits)
    return Retrieval(question, "laws", items, Confidence(0.5, ConfidenceFeatures()), "hybrid",
                     key_terms=tuple(tok.key_terms(question)))


def test_the_articles_are_counted_and_the_last_is_cited(store: QdrantChunkStore) -> None:
    question = "数据安全管理办法共有多少条？"
    r = _retrieval(store, question)
    got = count_answer(question, r.chunks, lambda doc: store.document_chunks("laws", doc))
    assert got is not None
    answer, cit = got
    assert answer.startswith("共8条（第一条至第八条）") and cit.path == "regulation.md", answer
    assert cit.quote.startswith("第八条 本办法自2024年1月1日起施行")
    chapters = count_answer("数据安全管理办法一共几章？", r.chunks,
                            lambda doc: store.document_chunks("laws", doc))
    assert chapters is not None and chapters[0].startswith("共2章"), chapters


def test_the_rag_decision_answers_the_count(store: QdrantChunkStore) -> None:
    question = "这部数据安全管理办法共有多少条？"
    d = drive_inline(AnswerDecider(get_tokenizer(), store, make_citation=make_citation)
                     .flow(_retrieval(store, question)))
    assert d.found and "item_count" in d.flags and d.answer.startswith("共8条"), (d.answer,
                                                                                d.flags)


def test_a_document_citing_one_far_article_is_no_count(store: QdrantChunkStore) -> None:
    notice = [c for c in store.document_chunks("laws", next(
        h.chunk.doc_id for h in store.keyword_search("laws", get_tokenizer().sparse_query("刑法"),
                                                     5) if h.chunk.path == "notice.md"))]
    # 第二百条 is cited inside a sentence: no label opens a line, so nothing is counted
    assert count_answer("这份通知共有多少条？", notice, lambda doc: notice) is None
