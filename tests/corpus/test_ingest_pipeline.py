"""The parallel ingest pipeline (issue 19 item 1): worker processes parse and embed with their
share of the ONNX threads, at most ``2 × workers`` documents in flight, and the vectors are the
ones the in-process embedder computes (to 1e-5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus._ingest_prepare import Prepared
from corpus._ingest_worker import embed_prepared, run_prepare
from corpus.ingest import Ingestor
from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer
from corpus.types import ParsedDocument

pytestmark = pytest.mark.integration

TOK = Tokenizer()


def _docs(folder: Path, n: int) -> Path:
    """``n`` small Markdown documents of different lengths, Chinese and English."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        body = "\n\n".join(
            f"## Part {j}\n\n设备 {i} 的保修期是 {j + 1} 年。The warranty of device {i} lasts "
            f"{j + 1} years; returns within {7 * (j + 1)} days." + " More detail." * (j * 7 % 30)
            for j in range(1 + i % 4))
        (folder / f"doc{i:02d}.md").write_text(f"# Device {i}\n\n{body}\n", encoding="utf-8")
    return folder


def marking_parse(path: Path) -> ParsedDocument:
    """The default parser, leaving ``<file>.started`` behind when a worker starts a file."""
    from corpus.parsers import parse_file

    Path(str(path) + ".started").touch()
    return parse_file(path)


def test_at_most_two_jobs_per_worker_are_in_flight(tmp_path: Path) -> None:
    docs = _docs(tmp_path / "docs", 12)
    jobs = [(str(p), p.name) for p in sorted(docs.glob("*.md"))]
    consumed = 0
    for _, result in run_prepare(jobs, workers=2, parse=marking_parse):
        assert isinstance(result, Prepared) and result.dense is None  # no embed factory
        consumed += 1
        started = len(list(docs.glob("*.started")))
        assert started <= consumed + 4  # the consumer's pace bounds the work ahead of it
    assert consumed == 12 and len(list(docs.glob("*.started"))) == 12


def test_workers_embed_the_same_vectors_as_this_process(
    store: QdrantChunkStore, tmp_path: Path, embed_model_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two collections from the same files: one embedded here as before (one ONNX thread,
    batches of 32), one by two worker processes (batches of 8, the new default); every chunk's
    vector agrees to 1e-5."""
    import corpus._ingest_run as run_mod
    from rag.embedder import FastEmbedEmbedder

    monkeypatch.setattr(run_mod, "POOL_MIN_BYTES", 0)  # small files, but through the pool
    docs = _docs(tmp_path / "docs", 6)
    here = FastEmbedEmbedder(model_path=embed_model_path, threads=1, batch_size=32,
                             max_length=128)
    Ingestor(store, TOK, here, workers=1).ingest_paths([docs], "one")
    two = FastEmbedEmbedder(model_path=embed_model_path, threads=2, batch_size=8,
                            max_length=128)
    report = Ingestor(store, TOK, two, workers=2).ingest_paths([docs], "two")
    assert report.counts["ingested"] == 6 and not report.keyword_only
    jobs = [(str(p), p.name) for p in sorted(docs.glob("*.md"))]
    worst = 0.0
    n = 0
    for i, prep in run_prepare(jobs, workers=2, embed=two.worker_factory(1)):
        assert isinstance(prep, Prepared) and prep.dense is not None
        expected = here.embed_passages([c.context_text() for c in prep.chunks])
        for got, want in zip(prep.dense, expected, strict=True):
            worst = max(worst, max(abs(a - b) for a, b in zip(got, want, strict=True)))
            n += 1
        assert jobs[i][1] == prep.chunks[0].path
    assert n >= 6 and worst <= 1e-5
    # and the collections written by either path answer a query alike
    q = here.embed_query("设备 3 的保修期是多久？")
    one = [(h.chunk.chunk_id, h.score) for h in store.dense_search("one", q, 5)]
    other = [(h.chunk.chunk_id, h.score) for h in store.dense_search("two", q, 5)]
    assert [c for c, _ in one] == [c for c, _ in other]
    assert all(abs(a - b) <= 1e-5 for (_, a), (_, b) in zip(one, other, strict=True))
    # more ONNX threads in this process: the same vectors too (float summation order only)
    texts = [c.context_text() for c in prep.chunks]
    for got, want in zip(two.embed_passages(texts), here.embed_passages(texts), strict=True):
        assert max(abs(a - b) for a, b in zip(got, want, strict=True)) <= 1e-5


def test_a_chunks_vector_does_not_depend_on_its_neighbours(
    tmp_path: Path, embed_model_path: Path
) -> None:
    """With the default batch size (1) the workers give every chunk of a long document of mixed
    chunk lengths the vector it has alone (unpadded, like a question) to 1e-5.
    Batched (8), the int8 model quantises the batch's activations together: the same chunks get
    vectors off by more than 1e-4 (why the default is 1)."""
    from rag.embedder import FastEmbedEmbedder

    folder = tmp_path / "long"
    folder.mkdir()
    parts = [f"## Clause {j}\n\n" + (f"第{j}条 设备保修期为{j}年。" if j % 2 else
             f"Clause {j}: the warranty lasts {j} years. ") * (1 + (j * 5) % 17)
             for j in range(1, 15)]
    (folder / "long.md").write_text("# Terms\n\n" + "\n\n".join(parts) + "\n", encoding="utf-8")
    default = FastEmbedEmbedder(model_path=embed_model_path, threads=1, max_length=128)
    assert default.batch_size == 1
    jobs = [(str(folder / "long.md"), "long.md")]
    ((_, prep),) = list(run_prepare(jobs, workers=2, embed=default.worker_factory(1)))
    assert isinstance(prep, Prepared) and prep.dense is not None
    texts = [c.context_text() for c in prep.chunks]
    assert len(texts) >= 10 and len({len(t) for t in texts}) >= 5
    alone = [default.embed_passages([t])[0] for t in texts]
    worst = max(abs(a - b) for got, want in zip(prep.dense, alone, strict=True)
                for a, b in zip(got, want, strict=True))
    assert worst <= 1e-5
    batched = FastEmbedEmbedder(model_path=embed_model_path, threads=1, batch_size=8,
                                max_length=128).embed_passages(texts)
    off = max(abs(a - b) for got, want in zip(batched, alone, strict=True)
              for a, b in zip(got, want, strict=True))
    assert off > 1e-4


def test_embed_workers_give_each_chunk_its_own_vector_in_parse_order(
    tmp_path: Path, embed_model_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parse workers without a model, then two embed workers with chunk tasks of 3 (a long
    document spread over both): documents come out in the order parsing gave them, each chunk
    with exactly the vector this process computes for it alone (same ONNX thread count: the
    same float operations, so equal, not only within 1e-5)."""
    import corpus._ingest_run as run_mod
    from rag.embedder import FastEmbedEmbedder

    monkeypatch.setattr(run_mod, "POOL_MIN_BYTES", 0)  # small files, but through the pool
    docs = _docs(tmp_path / "docs", 6)
    (docs / "long.md").write_text(
        "# Terms\n\n" + "\n\n".join(f"## Clause {j}\n\n" + f"第{j}条 设备保修期为{j}年。" * j
                                     for j in range(1, 16)) + "\n", encoding="utf-8")
    jobs = [(str(p), p.name) for p in sorted(docs.glob("*.md"))]
    here = FastEmbedEmbedder(model_path=embed_model_path, threads=1, max_length=128)
    parsed = list(run_prepare(jobs, workers=2))
    assert all(isinstance(r, Prepared) and r.dense is None for _, r in parsed)
    out = list(embed_prepared(iter(parsed), workers=2, embed=here.worker_factory(1), batch=3,
                              max_docs=2))
    assert [i for i, _ in out] == [i for i, _ in parsed]
    n = 0
    for _, prep in out:
        assert isinstance(prep, Prepared) and prep.dense is not None
        assert len(prep.dense) == len(prep.chunks)
        for chunk, got in zip(prep.chunks, prep.dense, strict=True):
            assert got == here.embed_passages([chunk.context_text()])[0]
            n += 1
    assert n >= 20
