"""Page navigation inside resolved documents (issue 15 item 2): page heads read from a real
10-K (../shared/eval/en/docs/financebench/3M_2018_10K.pdf, 160 pages) ingested into the real
embedded store, the statement a question asks for, and retrieval that reaches the statement page
that BM25 alone ranks below the top five."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from corpus.ingest import Ingestor
from corpus.page_titles import page_heads, title_lines
from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer
from corpus.types import Chunk
from rag.expand import QueryExpander
from rag.fusion import fuse
from rag.pages import PageNavigator, StatementVocabulary, squash
from rag.resolve import ProfileSource
from rag.retriever import HybridRetriever
from rag.types import RetrievalConfig

TOK = Tokenizer()


def test_title_lines_stop_at_the_first_row_or_sentence() -> None:
    lines = [
        "3M Company and Subsidiaries",
        "Consolidated Balance Shee t",
        "At December 31",
        "(Dollars in millions, except per share amount) 2018 2017",
        "Cash and cash equivalents $ 2,853 $ 3,053",
    ]
    assert title_lines(lines) == lines[:4]
    assert title_lines(["Note 6 - Restructuring", "The Company's restructuring activities in the "
                        "three months were primarily comprised of exits."]) == [
        "Note 6 - Restructuring"
    ]
    assert title_lines(["Total current assets 13,709 14,277"]) == []


def test_page_heads_follow_the_line_map_across_chunks() -> None:
    a = "Total other 153 222\n\nAcme Corp\nConsolidated Balance Sheets\n"
    b = "Cash and cash equivalents $ 2,853\nInventories 4,366\n"
    c1 = Chunk("d-0", "d", "x.pdf", "x", (), 57, 58, 2, 3, 0, len(a), a, ordinal=0,
               line_map=((0, 57, 2), (21, 58, 1), (31, 58, 2)))
    c2 = Chunk("d-1", "d", "x.pdf", "x", (), 58, 58, 4, 5, 0, len(b), b, ordinal=1,
               line_map=((0, 58, 4), (34, 58, 5)))
    heads = {h.page: h for h in page_heads([c2, c1])}
    assert heads[58].title == "Acme Corp / Consolidated Balance Sheets"
    assert heads[58].chunk_ids == ("d-0", "d-1")
    assert heads[57].title == ""  # the page starts with a table row


def test_statements_named_or_implied() -> None:
    v = StatementVocabulary()
    names = [s.name for s in v.statements]
    want = lambda q: {names[i]: w for i, w in v.wanted(q)}  # noqa: E731
    assert want("Using the balance sheet, what is net PP&E?") == {"balance sheet": 2.0}
    assert want("What is 3M's FY2018 capital expenditure?") == {"cash flow statement": 1.0}
    assert set(want("What is Amazon's FY2017 days payable outstanding (DPO)?")) == {
        "balance sheet", "income statement"}
    assert want("Who is the chief executive officer?") == {}
    bs = names.index("balance sheet")
    assert v.holds(bs, "3M Company and Subsidiaries / Consolidated Balance Shee t / At December 31")
    assert v.holds(bs, "Statements of Financial Position")
    assert not v.holds(bs, "Notes to Consolidated Financial Statements / NOTE 1.")
    assert squash("Balance Shee t,  (in millions)") == "balancesheetinmillions"


def test_the_page_list_is_a_third_rrf_source() -> None:
    mk = lambda i: Chunk(f"c{i}", "d", "x.pdf", "x", (f"s{i}",), i, i, 1, 1, 0, 1, f"t{i}",  # noqa: E731
                         ordinal=i)
    from corpus.types import SearchHit

    kw = [SearchHit(mk(i), 10.0 - i) for i in range(10)]
    page = [SearchHit(mk(8), 2.0)]
    plain = [it.chunk.chunk_id for it in fuse([], kw, top_k=3, merge=False)]
    paged = [it.chunk.chunk_id for it in fuse([], kw, top_k=3, merge=False, pages=page)]
    assert plain == ["c0", "c1", "c2"] and paged[0] == "c8"


@pytest.fixture(scope="module")
def store(eval_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[QdrantChunkStore]:
    docs = tmp_path_factory.mktemp("fin10k")
    src = eval_dir / "en" / "docs" / "financebench"
    shutil.copy(src / "3M_2018_10K.pdf", docs / "3M_2018_10K.pdf")
    st = QdrantChunkStore.embedded(tmp_path_factory.mktemp("pages") / "qdrant")
    Ingestor(st, TOK, None, workers=1).ingest_paths([docs], "fin", root=docs)
    yield st
    st.close()


@pytest.mark.eval
def test_statement_pages_of_a_real_10k(store: QdrantChunkStore) -> None:
    nav = PageNavigator(store)
    res = ProfileSource(store, TOK.terms).resolve("fin", "3M FY2018", TOK.name_terms("3M FY2018"))
    assert res.sure and len(res.doc_ids) == 1
    assert store.record("fin", "pages", res.doc_ids[0])  # written at ingest
    heads = {h.page: h.title for h in nav.heads("fin", res.doc_ids[0])}
    assert "Consolidated Balance Shee" in heads[58] and "Cash Flow" in heads[60]
    from corpus.catalogue import Catalogue

    assert Catalogue(store).page_heads("fin", res.doc_ids[0]) == nav.heads("fin", res.doc_ids[0])
    hits = nav.page_hits("fin", res.doc_ids, "Using the balance sheet, what is 3M's net PP&E?")
    assert hits and hits[0].chunk.page_start <= 58 <= hits[0].chunk.page_end
    assert {h.chunk.page_start for h in hits} <= {57, 58, 59}  # the sheet and its continuation


@pytest.mark.eval
def test_retrieval_reaches_the_cash_flow_statement(store: QdrantChunkStore) -> None:
    q = "What is the FY2018 capital expenditure amount (in USD millions) for 3M?"
    kw = dict(resolver=ProfileSource(store, TOK.terms),
              expander=QueryExpander(TOK.query_terms, TOK.normalize))
    slow = RetrievalConfig(search_timeout_s=60.0)  # a loaded CI machine: no step times out
    with_pages = HybridRetriever(store, TOK, None, config=slow, pages=PageNavigator(store), **kw)
    without = HybridRetriever(
        store, TOK, None, config=RetrievalConfig(page_weight=0.0, search_timeout_s=60.0), **kw
    )

    def pages(r: HybridRetriever) -> set[int]:
        return {p for c in r.run(q, "fin").chunks for p in range(c.page_start, c.page_end + 1)}

    assert 60 in pages(with_pages)
    assert 60 not in pages(without)  # measured: BM25 inside the filing ranks it lower


def test_page_support_feature_says_the_top_item_came_from_the_page_list() -> None:
    from corpus.types import SearchHit
    from rag.confidence import compute_features

    mk = lambda i: Chunk(f"c{i}", "d", "x.pdf", "x", (f"s{i}",), i, i, 1, 1, 0, 1, f"t{i}",  # noqa: E731
                         ordinal=i)
    kw = [SearchHit(mk(i), 10.0 - i) for i in range(6)]
    page = [SearchHit(mk(5), 2.0)]
    items = fuse([], kw, top_k=3, merge=False, pages=page)
    assert compute_features([], kw, items, ["t5"], pages=page).page_support == 1.0
    plain = fuse([], kw, top_k=3, merge=False)
    assert compute_features([], kw, plain, ["t5"], pages=page).page_support == 0.0
    assert compute_features([], kw, plain, ["t5"]).page_support == 0.0
