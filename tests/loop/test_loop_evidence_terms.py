"""Evidence scoring details of the offline policy: compound-term partial credit, revision
histories, figures, and the relevance-feedback search — on real text and a real datasheet."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from conftest import KB, zh_pdf_kb, zh_pdf_question

from corpus.citations import make_citation
from corpus.tokenizer import Tokenizer
from corpus.tuning import TUNING
from corpus.types import Chunk
from loop import (
    LoopAgent,
    LoopConfig,
    LoopState,
    OfflinePolicy,
    StepEvent,
    ToolCall,
    ToolContext,
)
from loop.evidence import (
    TermMatcher,
    asks_revision,
    best_evidence,
    is_revision_history,
    split_units,
)


def _chunk(text: str, section: tuple[str, ...] = ("1 概述",)) -> Chunk:
    return Chunk(chunk_id="d-00001", doc_id="d", path="a.pdf", title="",
                 section_path=section, page_start=1, page_end=1, line_start=1, line_end=3,
                 char_start=0, char_end=len(text), text=text)


def test_compound_term_gets_partial_credit_from_its_sub_words(tokenizer: Tokenizer):
    # zhpdf:60 asks 申请专利; the contract says 专利申请权 (jieba: 申请 + 专利 in search mode)
    m = TermMatcher(["申请专利"], tokenizer)
    part = TUNING.evidence.part_credit
    assert m.coverage("合同技术成果专利申请权归甲方所有") == pytest.approx(part)
    assert m.coverage("专利代理") == pytest.approx(part * 0.5)
    assert m.coverage("申请专利的一方") == 1.0
    assert m.coverage("技术秘密的使用权") == 0.0
    # codes get no partial credit: ESP32 is not ESP32-PICO-D4
    assert TermMatcher(["esp32-pico-d4"], tokenizer).coverage("ESP32 技术规格书") == 0.0
    # a term only partly present somewhere still counts as known (keeps its weight)
    known = TermMatcher(["申请专利", "这颗"], tokenizer).known(["专利申请权归甲方所有"])
    assert known.weights == [8.0, 4.0 * 0.25]


def test_revision_history_sections_and_questions():
    assert is_revision_history(_chunk("更新工作电压", ("修订历史", "2019.12 V1.7")))
    assert is_revision_history(_chunk("x", ("第22 章 修改记录",)))
    assert is_revision_history(_chunk("x", ("9. Revision History",)))
    assert is_revision_history(_chunk("x", ("Revision History",)))
    assert is_revision_history(_chunk("x", ("Change Log",)))
    assert not is_revision_history(_chunk("x", ("5 电气特性", "5.2 建议工作条件")))
    assert asks_revision("ESP32-PICO-D4的供电电压范围在哪个版本中被修改？")
    assert asks_revision("What changed in version 1.7?")
    assert not asks_revision("ESP32-PICO-D4的工作电压范围是多少？")


def test_figure_bonus_ignores_the_questions_own_code(tokenizer: Tokenizer):
    m = TermMatcher(tokenizer.key_terms("ESP32-PICO-D4允许的最高存储温度是多少？"), tokenizer)
    c = _chunk("ESP32-PICO-D4 存储器说明。\n\n| 存储温度 | –40 | 150 | °C |")
    plain = {e.text: e for e in best_evidence([c], m, limit=5, number_bonus=0.0)}
    ranked = best_evidence([c], m, limit=5, number_bonus=1.0)
    # only the row with a figure of its own moves up; the code's digits are no figure
    assert ranked[0].text.startswith("| 存储温度")
    assert plain["| 存储温度 | –40 | 150 | °C |"].coverage == ranked[0].coverage


@pytest.fixture(scope="module")
def esp32_kb(tmp_path_factory: pytest.TempPathFactory, tokenizer: Tokenizer, eval_dir: Path):
    """The ESP32-PICO-D4 datasheet (Chinese, 24 pages) in a real embedded store."""
    yield from zh_pdf_kb(tmp_path_factory, tokenizer, eval_dir, "esp32_pico_d4_datasheet_cn.pdf",
                         "esp32")


def test_offline_prefers_the_specification_over_the_revision_history(
        esp32_kb: KB, tokenizer: Tokenizer, eval_dir: Path):
    # 工作电压/供电电压范围 → p.6, not the change log p.23
    q = zh_pdf_question(eval_dir, "zhpdf:08")
    agent = LoopAgent(esp32_kb.store, esp32_kb.search, key_terms=tokenizer)
    res = asyncio.run(agent.run_async(q["question"], esp32_kb.collection))
    assert res.found and res.citations
    # the specification table leads; the change log (p.23) may follow, never first
    assert res.citations[0].page == 6, [c.page for c in res.citations]
    assert "3.0 V ~ 3.6 V" in res.answer.splitlines()[0]


def test_offline_searches_again_with_the_terms_the_corpus_holds(
        esp32_kb: KB, tokenizer: Tokenizer, eval_dir: Path):
    q = zh_pdf_question(eval_dir, "zhpdf:55")  # a paraphrase: 这颗, 过炉 are in no chunk
    events: list[StepEvent] = []
    agent = LoopAgent(esp32_kb.store, esp32_kb.search, key_terms=tokenizer)
    asyncio.run(agent.run_async(q["question"], esp32_kb.collection, on_event=events.append))
    queries = [e.arguments["query"] for e in events if e.kind == "tool" and e.tool == "search"]
    assert len(queries) == 3, queries
    terms = tokenizer.key_terms(q["question"])
    third = queries[2].split()
    assert set(third) < set(terms) and "这颗" not in third and "模组" in third


def test_the_first_search_asks_the_callers_search_query(
        esp32_kb: KB, tokenizer: Tokenizer, eval_dir: Path):
    """The router searches a relative period with its year ("the quarter that preceded the
    current one (2025)") and a follow-up with its earlier turn; the LoopAgent's first search
    asked the bare question (GitLab temporal questions: the year's fiscal calendar page never
    searched). Given ``search_query``, the first search asks it; the key-term search asks the
    question's own terms, and the year the query was dated with."""
    q = zh_pdf_question(eval_dir, "zhpdf:08")["question"]
    agent = LoopAgent(esp32_kb.store, esp32_kb.search, key_terms=tokenizer)
    terms = " ".join(tokenizer.key_terms(q))
    for given, first, second in ((None, q, terms), (q + " (2025)", q + " (2025)", terms + " 2025"),
                                 (q, q, terms)):
        events: list[StepEvent] = []
        asyncio.run(agent.run_async(q, esp32_kb.collection, on_event=events.append,
                                    search_query=given))
        queries = [e.arguments["query"] for e in events if e.kind == "tool" and e.tool == "search"]
        assert queries[0] == first, (given, queries)
        assert queries[1] == second, queries


def test_a_code_matches_whatever_separates_its_parts(tokenizer: Tokenizer):
    """The datasheet's title writes ESP32-PICO-D4 with soft hyphens and its file name with
    underscores (read as spaces): both name the product; ESP32 alone or a longer code does
    not."""
    m = TermMatcher(tokenizer.key_terms("ESP32-PICO-D4允许的最高存储温度是多少？"), tokenizer)
    assert "esp32-pico-d4" in m.matched("ESP32\u00adPICO\u00adD4 技术规格书")
    assert "esp32-pico-d4" in m.matched("esp32 pico d4 datasheet cn")
    assert "esp32-pico-d4" not in m.matched("ESP32 技术规格书 PICO")
    assert m.matched("| Tstore | 存储温度 | –40 | 150 | °C |") == ("存储", "温度")


def test_offline_reads_the_table_that_does_not_name_the_product(
        esp32_kb: KB, tokenizer: Tokenizer, eval_dir: Path):
    """zhpdf:10: the storage-temperature row (p.13) sits in a table chunk that never names
    ESP32-PICO-D4, which every other candidate does: the second-turn search leaves the product
    code out and the row is cited."""
    q = zh_pdf_question(eval_dir, "zhpdf:10")
    events: list[StepEvent] = []
    agent = LoopAgent(esp32_kb.store, esp32_kb.search, key_terms=tokenizer)
    res = asyncio.run(agent.run_async(q["question"], esp32_kb.collection,
                                      on_event=events.append))
    queries = [e.arguments["query"] for e in events if e.kind == "tool" and e.tool == "search"]
    assert "esp32-pico-d4" not in queries[2].split(), queries
    assert res.found
    assert any(c.page == 13 and "存储温度" in c.quote and "150" in c.quote
               for c in res.citations), [(c.page, c.quote) for c in res.citations]


def test_offline_pages_from_a_table_caption_to_its_table(
        esp32_kb: KB, tokenizer: Tokenizer, eval_dir: Path):
    """zhpdf:08: the chunker ends the p.6 overview with the caption 表 1: … 产品规格 and puts the
    specification table in the next chunk. Once the overview is read, the policy pages
    forward to the table, which holds the answer row."""
    q = zh_pdf_question(eval_dir, "zhpdf:08")
    cap = next(c for c in esp32_kb.chunks
               if c.page_start == 6 and c.text.rstrip().endswith("产品规格"))
    ctx = ToolContext(esp32_kb.store, esp32_kb.search, esp32_kb.collection, LoopConfig())
    ctx.seen[cap.chunk_id] = ctx.read[cap.chunk_id] = cap
    state = LoopState(q["question"], ctx,
                      TermMatcher(tokenizer.key_terms(q["question"]), tokenizer), turn=2)
    policy = OfflinePolicy()
    policy.searches, policy.refined, policy.paged = [q["question"]], True, True
    calls = asyncio.run(policy.propose(state)).calls
    assert ToolCall("next_chunk", {"chunk_id": cap.chunk_id}) in calls, calls
    table = esp32_kb.store.neighbour(esp32_kb.collection, cap.chunk_id, 1)
    assert table is not None and "工作电压/供电电压 | 3.0 V ~ 3.6 V" in table.text
    # once paged, not again; a chunk ending in an ordinary sentence is no caption
    assert not any(c.name == "next_chunk" for c in asyncio.run(policy.propose(state)).calls)
    plain = OfflinePolicy()
    plain.searches, plain.refined, plain.paged = [q["question"]], True, True
    ctx.read.clear()
    other = next(c for c in esp32_kb.chunks if c.text.rstrip().endswith("。") and c.next_id)
    ctx.seen[other.chunk_id] = ctx.read[other.chunk_id] = other
    assert not any(c.name == "next_chunk" for c in asyncio.run(plain.propose(state)).calls)


@pytest.fixture(scope="module")
def contract_kb(tmp_path_factory: pytest.TempPathFactory, tokenizer: Tokenizer, eval_dir: Path):
    """The Chinese technology-development contract (8 pages) in a real embedded store."""
    yield from zh_pdf_kb(tmp_path_factory, tokenizer, eval_dir, "tech_dev_contract.pdf",
                         "contract")


class _Counting:
    """The real e5 embedder, counting the passages it embeds."""

    def __init__(self, inner) -> None:  # noqa: ANN001
        self.inner, self.passages = inner, 0

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)

    def embed_passages(self, texts):  # noqa: ANN001, ANN201
        self.passages += len(texts)
        return self.inner.embed_passages(texts)


def test_dense_similarity_ranks_evidence_with_the_real_embedder(
        contract_kb: KB, tokenizer: Tokenizer, eval_dir: Path, embed_model_path: Path):
    """zhpdf:60 asks who may apply for a patent in colloquial words: with the e5 similarity of
    the units (at most ``dense_units`` of them embedded, on the answer turn only) the first
    citation is 专利申请权归甲方所有 on p.5, verified."""
    from rag.embedder import FastEmbedEmbedder

    q = zh_pdf_question(eval_dir, "zhpdf:60")
    emb = _Counting(FastEmbedEmbedder(model_path=embed_model_path))
    agent = LoopAgent(contract_kb.store, contract_kb.search, key_terms=tokenizer, embedder=emb)
    res = asyncio.run(agent.run_async(q["question"], contract_kb.collection))
    assert res.found and "专利申请权归甲方所有" in res.citations[0].quote
    assert res.citations[0].page == 5
    assert 0 < emb.passages <= 60
    chunks = {c.chunk_id: c for c in contract_kb.chunks}
    assert all(make_citation(chunks[c.chunk_id], c.quote) is not None for c in res.citations)


class _Broken:
    """An embedder whose model fails at run time (a corrupt ONNX file, out of memory)."""

    def embed_query(self, text: str) -> list[float]:
        raise RuntimeError("onnxruntime: model failed")

    def embed_passages(self, texts):  # noqa: ANN001, ANN201
        raise RuntimeError("onnxruntime: model failed")


def test_a_failing_embedder_leaves_the_key_term_answer(
        esp32_kb: KB, tokenizer: Tokenizer, eval_dir: Path):
    q = zh_pdf_question(eval_dir, "zhpdf:08")
    plain = LoopAgent(esp32_kb.store, esp32_kb.search, key_terms=tokenizer)
    broken = LoopAgent(esp32_kb.store, esp32_kb.search, key_terms=tokenizer, embedder=_Broken())
    a = asyncio.run(plain.run_async(q["question"], esp32_kb.collection))
    b = asyncio.run(broken.run_async(q["question"], esp32_kb.collection))
    assert b.stop_reason == "answer" and b.found
    assert "model failed" in b.dense_error and a.dense_error == ""
    assert (b.answer, [c.chunk_id for c in b.citations]) == (a.answer,
                                                             [c.chunk_id for c in a.citations])


_STATEMENT = ("Consolidated Statements of Operations\n\nYear Ended December 31, 2017 2018 2019\n\n"
              "Net income $ 3,033 $ 10,073 $ 11,588\n"
              "Basic earnings per share $ 6.32 $ 20.68 $ 23.46\n\n"
              "In 2019 net sales rose 20 percent and operating income rose 17 percent.\n")


def test_statement_rows_are_units_of_their_own_and_weigh_more_for_a_figure(
        tokenizer: Tokenizer) -> None:
    # a PDF statement page writes its rows as text lines with no blank line between them: each
    # row is one unit (a quote), not glued to its neighbours into one 300-character unit
    c = _chunk(_STATEMENT, section=("Item 8",))
    units = split_units(c)
    assert "Net income $ 3,033 $ 10,073 $ 11,588" in units
    assert "Basic earnings per share $ 6.32 $ 20.68 $ 23.46" in units
    m = TermMatcher(tokenizer.key_terms("What was the net income in FY2019 in USD millions?"),
                    tokenizer)
    plain = best_evidence([c], m, number_bonus=0.2)
    rows = best_evidence([c], m, number_bonus=0.2, figure_rows=True)
    # same key-term coverage for the row and the sentence: only the row weight separates them
    # (corpus.statement_rows.row_weight: the row's label "Net income" is wholly named)
    assert plain[0].score == pytest.approx(plain[1].score)
    assert rows[0].text == "Net income $ 3,033 $ 10,073 $ 11,588"
    assert rows[0].coverage == plain[0].coverage
    assert rows[0].score == pytest.approx(2 * rows[0].coverage + 0.2, abs=1e-3)
