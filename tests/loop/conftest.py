"""Fixtures of the LoopAgent tests: a real embedded Qdrant store (qdrant-edge-py in tmp_path)
holding case 22's knowledge base, the corpus tokenizer, and a keyword search backend."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from corpus.chunker import chunk_document
from corpus.parsers import parse_file
from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer
from corpus.types import Chunk, DocumentInfo
from loop import LLMConfig, LoopAgent, LoopConfig, LoopResult, StoreKeywordSearch


@dataclass
class KB:
    """A collection in a real store: ``store``, ``collection``, its ``chunks`` and ``docs``."""

    store: QdrantChunkStore
    collection: str
    chunks: list[Chunk]
    docs: list[DocumentInfo]
    search: StoreKeywordSearch

    def list_documents(self, collection: str) -> list[DocumentInfo]:
        """DocumentDirectory protocol."""
        return list(self.docs)

    def chunk(self, path: str) -> Chunk:
        """The first chunk of the document at ``path``."""
        return next(c for c in self.chunks if c.path == path)


def ingest(store: QdrantChunkStore, tok: Tokenizer, collection: str, root: Path,
           files: list[Path]) -> KB:
    """Parse, chunk and write ``files`` keyword-only (real parser, chunker, tokenizer, store)."""
    store.ensure_collection(collection, dense_dim=None, embed_model=None)
    chunks: list[Chunk] = []
    docs: list[DocumentInfo] = []
    for f in files:
        doc = parse_file(f)
        rel = str(f.relative_to(root))
        cs = chunk_document(doc, rel_path=rel)
        store.upsert_chunks(collection, cs, [tok.sparse(c.context_text()) for c in cs])
        chunks += cs
        docs.append(DocumentInfo(doc.doc_id, rel, doc.title, doc.media_type, doc.page_count,
                                 len(cs)))
    store.flush()
    return KB(store, collection, chunks, docs, StoreKeywordSearch(store, tok.sparse_query))


def zh_pdf_kb(factory: pytest.TempPathFactory, tok: Tokenizer, eval_dir: Path, name: str,
              collection: str) -> Iterator[KB]:
    """One PDF of ``../shared/eval/zh/docs/pdf`` in its own real embedded store (a generator
    for a module fixture: yields the :class:`KB`, closes the store after)."""
    store = QdrantChunkStore.embedded(factory.mktemp(f"qdrant-{collection}"))
    yield ingest(store, tok, collection, eval_dir, [eval_dir / "zh" / "docs" / "pdf" / name])
    store.close()


def text_kb(factory: pytest.TempPathFactory, tok: Tokenizer, collection: str,
            files: dict[str, str]) -> Iterator[KB]:
    """Text files (name → text) in their own real embedded store (a generator for a module
    fixture: yields the :class:`KB`, closes the store after)."""
    root = factory.mktemp(collection)
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    store = QdrantChunkStore.embedded(root / "qdrant")
    yield ingest(store, tok, collection, root, [root / name for name in sorted(files)])
    store.close()


def text_kb_fixture(collection: str, files: dict[str, str]) -> Any:
    """A module fixture of :func:`text_kb` over ``files`` (name → text) in ``collection``; it
    takes the name it is assigned to (``contract_kb = text_kb_fixture("contract", {…})``)."""

    @pytest.fixture(scope="module")
    def kb(tmp_path_factory: pytest.TempPathFactory, tokenizer: Tokenizer) -> Iterator[KB]:
        yield from text_kb(tmp_path_factory, tokenizer, collection, files)

    return kb


def run_agent(kb: KB, llm: LLMConfig | None, question: str, config: LoopConfig | None = None,
              **run_kw: Any) -> LoopResult:
    """One run of a LoopAgent over ``kb`` (``llm`` None: offline), closed after the run."""
    async def go() -> LoopResult:
        agent = LoopAgent(kb.store, kb.search, llm=llm, config=config, documents=kb)
        try:
            return await agent.run_async(question, kb.collection, **run_kw)
        finally:
            await agent.aclose()
    return asyncio.run(go())


def scripted_llm(base_url: str, protocol: str, **kw: Any) -> LLMConfig:
    """The LLM config of a scripted server: 5 s timeout, no retries (``kw`` overrides)."""
    return LLMConfig(base_url=base_url, model="scripted", protocol=protocol,  # type: ignore[arg-type]
                     **{"timeout_s": 5.0, "max_retries": 0, "backoff_s": 0.01, **kw})


def zh_pdf_question(eval_dir: Path, qid: str) -> dict:
    """The question ``qid`` of ``../shared/eval/zh/questions_pdf.jsonl``."""
    lines = (eval_dir / "zh" / "questions_pdf.jsonl").read_text(encoding="utf-8").splitlines()
    return next(q for q in map(json.loads, lines) if q["id"] == qid)


@pytest.fixture(scope="session")
def tokenizer() -> Tokenizer:
    """The corpus tokenizer (loaded once)."""
    tok = Tokenizer()
    tok.warm_up()
    return tok


@pytest.fixture(scope="module")
def case22_dir(cases_dir: Path) -> Path:
    """../shared/cases/22-agent-repeated-search-loop (skips when absent)."""
    d = cases_dir / "22-agent-repeated-search-loop"
    if not (d / "kb" / "warranty.md").exists():
        pytest.skip(f"case 22 not found at {d}")
    return d


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, tokenizer: Tokenizer,
       case22_dir: Path) -> Iterator[KB]:
    """Case 22's kb/ (warranty.md, returns.md) in a real embedded Qdrant store."""
    store = QdrantChunkStore.embedded(tmp_path_factory.mktemp("qdrant-kb"))
    root = case22_dir / "kb"
    yield ingest(store, tokenizer, "kb", root, sorted(root.glob("*.md")))
    store.close()
