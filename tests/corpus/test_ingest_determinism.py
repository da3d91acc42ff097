"""Two builds of the same files give the same index and the same retrieval (issue 19).

(1) Real filings ingested twice — two parse and two embed worker processes, largest file first
and written as they finish, against one process reading the files in reverse order — store the
same points: the same ids, payloads, dense and BM25 vectors (exactly) and catalogue entries
(all but their times). (2) Points of equal score rank by chunk id, whatever order they were
written in: Qdrant returns equal scores in an order of its own, which differed between two
builds of the same points and changed the fused top-k."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import qdrant_edge as qe

from corpus.ingest import Ingestor
from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer
from corpus.types import SparseVector
from tests._support.chunks import make_chunk

pytestmark = pytest.mark.integration

FILES = (
    "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf",
    "PEPSICO_2023_8K_dated-2023-05-05.pdf",
    "AMCOR_2022_8K_dated-2022-07-01.pdf",  # two chunks of the same text: equal vectors
    "ULTABEAUTY_2023Q4_EARNINGS.pdf",
    "AMCOR_2023Q4_EARNINGS.pdf",
)
_TIMES = {"ingested_at", "created_at", "updated_at"}


def _points(root: Path, collection: str) -> dict[str, dict[str, Any]]:
    """Every point of an embedded collection by id: payload (times left out) and vectors."""
    shard = qe.EdgeShard.load(str(root / collection))
    out: dict[str, dict[str, Any]] = {}
    offset = None
    try:
        while True:
            page, offset = shard.scroll(
                qe.ScrollRequest(offset=offset, limit=256, with_payload=True, with_vector=True)
            )
            for r in page:
                vectors = {
                    k: (list(v.indices), list(v.values)) if hasattr(v, "indices") else list(v)
                    for k, v in (r.vector or {}).items()
                }
                out[str(r.id)] = {"payload": _untimed(r.payload), "vectors": vectors}
            if offset is None:
                return out
    finally:
        shard.close()


def _untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in _TIMES}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def test_worker_count_and_file_order_do_not_change_the_stored_index(
    eval_dir: Path, embed_model_path: Path, tmp_path: Path, no_ocr: None
) -> None:
    from rag.embedder import FastEmbedEmbedder

    docs = [eval_dir / "en/docs/financebench" / name for name in FILES]
    root = eval_dir / "en/docs/financebench"
    embedder = FastEmbedEmbedder(model_path=embed_model_path, threads=2, batch_size=1)
    builds = {"workers": (2, docs), "one_reversed": (1, docs[::-1])}
    for name, (workers, paths) in builds.items():
        store = QdrantChunkStore.embedded(tmp_path / name)
        try:
            report = Ingestor(store, Tokenizer(), embedder, workers=workers).ingest_paths(
                paths, "c", root=root
            )
            assert report.counts["ingested"] == len(FILES), report.to_dict()
            written = [f.path for f in report.files]
            print(f"\n{name}: written in the order {written}")
        finally:
            store.close()
    one, two = (_points(tmp_path / name, "c") for name in builds)
    assert len(one) > 100
    assert sorted(one) == sorted(two)
    differ = [k for k in one if one[k] != two[k]]
    assert differ == [], [one[k]["payload"].get("_kind", "chunk") for k in differ]


def _dense_store(tmp_path: Path, order: list[int]) -> QdrantChunkStore:
    """Six chunks of one text (equal vectors), written in ``order``."""
    store = QdrantChunkStore.embedded(tmp_path / "q")
    store.ensure_collection("t", dense_dim=4, embed_model="test")
    chunks = [make_chunk("doc" + "0" * 13, i, "the same boilerplate sentence") for i in order]
    sparse = [SparseVector((7, 11), (0.8, 0.5)) for _ in chunks]
    store.upsert_chunks("t", chunks, sparse, [[0.5, 0.5, 0.5, 0.5] for _ in chunks])
    other = make_chunk("zzz" + "0" * 13, 0, "a better match")
    store.upsert_chunks("t", [other], [SparseVector((7,), (9.0,))], [[1.0, 0.0, 0.0, 0.0]])
    return store


@pytest.mark.parametrize("order", [[0, 1, 2, 3, 4, 5], [5, 3, 1, 4, 0, 2]])
def test_equal_scores_rank_by_chunk_id_whatever_the_write_order(
    tmp_path: Path, order: list[int]
) -> None:
    store = _dense_store(tmp_path, order)
    try:
        dense = store.dense_search("t", [1.0, 0.2, 0.2, 0.2], 4)
        keyword = store.keyword_search("t", SparseVector((7, 11), (1.0, 1.0)), 4)
    finally:
        store.close()
    tied = ["doc0000000000000-00000", "doc0000000000000-00001", "doc0000000000000-00002"]
    assert [h.chunk.chunk_id for h in dense] == ["zzz0000000000000-00000", *tied]
    assert [h.chunk.chunk_id for h in keyword] == ["zzz0000000000000-00000", *tied]
    assert len({h.score for h in dense[1:]}) == 1  # a real tie, cut inside it
