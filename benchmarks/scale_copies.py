"""An ``m``-times collection built from an ingested one without parsing or embedding again
(``benchmarks/scale.py --from-data``): every stored piece of every document copied ``m`` times
under new document names and ids.

A LoopGate collection on the embedded engine is one Qdrant shard (``<data_dir>/qdrant/<name>``,
schema in ``corpus._store_common``); everything a query reads lives in it as points:

- chunk points: the dense ``dense`` vector (e5), the sparse ``bm25`` vector (the keyword index:
  term frequencies, IDF applied by the engine at query time) and the chunk as payload
  (``chunk_id``, ``doc_id``, ``path``, ``prev_id`` / ``next_id``, text, pages, line map …);
- record points (no vectors): ``meta`` (embedding model, corpus version), ``document`` (the
  catalogue entry of a path: info, outline, profile), ``pages`` (page heads and their chunk
  ids, per ``doc_id``), ``directory`` / ``directory_part`` (per-chunk directory entries).

Outside the shard a data directory holds only ``directory-cache.sqlite3`` (LLM-written
directory entries by chunk content hash: a cache, not read by a query) and the lock files.

Copy 0 is every point as it is (same ids, names and vectors: the 1x collection rebuilt). Copy
``c >= 1`` of a point gets ``doc_id`` = sha256 of ``"<doc_id[:16]>:copy<c>"``, chunk ids with
that new prefix (``f"{doc_id[:16]}-{ordinal:05d}"`` keeps its ordinal part), ``path`` =
``copy<c>/<path>`` (same file name, so the same document name in the embedded text), the same
text, the same sparse vector, and its dense vector plus Gaussian noise of relative norm
``noise`` (default 0.02: cosine to the original about 0.9998), renormalised, so the dense index
holds distinct vectors, as the text-marker copies of ``--source`` would. Records are rewritten
with the new ids (catalogue info, profile, page heads, directory entries). The points are read
with the engine's own scroll (vectors included) and written through
:class:`corpus.qdrant_store.QdrantChunkStore` (``upsert_chunks``, ``put_record``), never by
copying files.

What it does not measure: parsing, chunking and embedding (ingest of an ``m``-times corpus is
not run); and a copy's keyword vectors are those of its original, so BM25 sees ``m`` equal
documents per original (term statistics scale together, scores tie among copies), where
``--source`` copies differ by a marker line.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

__all__ = ["copy_doc_id", "replicate"]

_PAGE = 256


def copy_doc_id(doc_id: str, c: int) -> str:
    """The ``doc_id`` of copy ``c`` of document ``doc_id`` (copy 0: the same)."""
    return doc_id if c == 0 else hashlib.sha256(f"{doc_id[:16]}:copy{c}".encode()).hexdigest()


def _chunk_id(chunk_id: str | None, c: int) -> str | None:
    """Copy ``c`` of a chunk id ``<doc_id[:16]>-<ordinal>``: the new document prefix."""
    if chunk_id is None or c == 0:
        return chunk_id
    return copy_doc_id(chunk_id[:16], c)[:16] + chunk_id[16:]


def _path(path: str, c: int) -> str:
    return path if c == 0 else f"copy{c:02d}/{path}"


def _perturbed(vecs: list[list[float]], seed: list[int], noise: float) -> list[list[float]]:
    """Each row plus Gaussian noise of norm ``noise`` x its own (in expectation), renormalised."""
    import numpy as np

    a = np.asarray(vecs, dtype=np.float64)
    rng = np.random.default_rng(seed)
    sigma = noise * np.linalg.norm(a, axis=1, keepdims=True) / np.sqrt(a.shape[1])
    out = a + rng.standard_normal(a.shape) * sigma
    out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
    return [[float(x) for x in row] for row in out.astype(np.float32)]


def _record(kind: str, key: str, data: dict[str, Any], c: int
            ) -> tuple[str, dict[str, Any]] | None:
    """Copy ``c`` of record ``(kind, key)``: its new key and data; ``None`` = not copied."""
    from corpus.catalogue_entry import CatalogueEntry
    from corpus.directory import DirectoryEntry
    from corpus.page_titles import PageHead, heads_from_data, heads_to_data

    if c == 0:
        return key, data
    if kind == "meta":
        return None  # one per collection
    if kind == "document":
        e = CatalogueEntry.from_data(data)
        doc = copy_doc_id(e.info.doc_id, c)
        new = {"doc_id": doc, "path": _path(e.info.path, c)}
        keys = {k: hashlib.sha256(f"{v}:copy{c}".encode()).hexdigest() if v else v
                for k, v in (("text_key", e.info.text_key), ("loose_key", e.info.loose_key))}
        e.info = replace(e.info, **new, **keys)
        e.source = _path(e.source, c) if e.source else ""
        if e.profile is not None:
            e.profile = replace(e.profile, **new)
        return _path(key, c), e.to_data()
    if kind == "pages":
        heads = heads_from_data(data)
        if heads is None:
            return None  # an older version: rebuilt from the chunks on first read
        return copy_doc_id(key, c), heads_to_data(
            [PageHead(h.page, h.title, tuple(str(_chunk_id(i, c)) for i in h.chunk_ids))
             for h in heads])
    if kind in ("directory", "directory_part"):
        doc, _, part = key.partition(":")
        rows = [DirectoryEntry.from_data(d) for d in data.get("entries") or []]
        out = {**data, "entries": [replace(r, chunk_id=str(_chunk_id(r.chunk_id, c))).to_data()
                                   for r in rows]}
        return copy_doc_id(doc, c) + (f":{part}" if part else ""), out
    raise SystemExit(f"scale_copies: no copy rule for record kind {kind!r}: add one")


def _points(shard: Any) -> Iterator[list[Any]]:
    """Every point of an edge shard, with payload and vectors, a page at a time."""
    import qdrant_edge as qe

    offset = None
    while True:
        recs, offset = shard.scroll(qe.ScrollRequest(offset=offset, limit=_PAGE,
                                                     with_payload=True, with_vector=True))
        if recs:
            yield list(recs)
        if offset is None or not recs:
            return


def replicate(src_data: Path, src_collection: str, dst_data: Path, m: int, *,
              dst_collection: str = "scale", noise: float = 0.02) -> dict[str, int]:
    """Write ``m`` copies of collection ``src_collection`` of data directory ``src_data`` (the
    embedded engine; nothing else may hold it) as ``dst_collection`` in ``dst_data``; returns
    the points read and written. ``src_data`` is only read."""
    import qdrant_edge as qe
    from filelock import FileLock

    from corpus.qdrant_store import QdrantChunkStore
    from corpus.types import Chunk, SparseVector

    root = src_data / "qdrant"
    claim = FileLock(root / ".locks" / f"{src_collection}.lock", timeout=0)
    claim.acquire()  # the same advisory lock as corpus._edge_backend: nobody else has it open
    shard = qe.EdgeShard.load(str(root / src_collection))
    dst = QdrantChunkStore.embedded(dst_data / "qdrant")
    read = written = 0
    try:
        src_meta = next(r.payload["data"] for page in _points(shard) for r in page
                        if (r.payload or {}).get("_kind") == "meta")
        dst.ensure_collection(dst_collection, dense_dim=src_meta.get("dense_dim"),
                              embed_model=src_meta.get("embed_model"))
        for n, page in enumerate(_points(shard)):
            read += len(page)
            for c in range(m):
                dense: list[tuple[Chunk, SparseVector, list[float]]] = []
                plain: list[tuple[Chunk, SparseVector]] = []
                for r in page:
                    pay, vec = dict(r.payload or {}), dict(r.vector or {})
                    if "_kind" in pay:
                        if pay["_kind"] == "publishing":
                            continue  # a document left half-published: hidden, not copied
                        got = _record(pay["_kind"], pay["key"], pay.get("data") or {}, c)
                        if got is not None:
                            if pay["_kind"] == "meta":
                                dst.update_meta(dst_collection, **got[1])
                            else:
                                dst.put_record(dst_collection, pay["_kind"], *got)
                            written += 1
                        continue
                    if pay.get("staged"):
                        continue  # an interrupted write: invisible, purged at the next ingest
                    ch = Chunk.from_payload(pay)
                    ch = replace(ch, chunk_id=str(_chunk_id(ch.chunk_id, c)),
                                 doc_id=copy_doc_id(ch.doc_id, c), path=_path(ch.path, c),
                                 prev_id=_chunk_id(ch.prev_id, c),
                                 next_id=_chunk_id(ch.next_id, c))
                    sv = vec.get("bm25")
                    sparse = SparseVector(tuple(sv.indices), tuple(sv.values)) if sv else \
                        SparseVector((), ())
                    if "dense" in vec:
                        dense.append((ch, sparse, list(vec["dense"])))
                    else:
                        plain.append((ch, sparse))
                if dense:
                    vecs = [x[2] for x in dense]
                    dst.upsert_chunks(dst_collection, [x[0] for x in dense],
                                      [x[1] for x in dense],
                                      vecs if c == 0 else _perturbed(vecs, [c, n], noise))
                if plain:
                    dst.upsert_chunks(dst_collection, [x[0] for x in plain],
                                      [x[1] for x in plain])
                written += len(dense) + len(plain)
        dst.flush()
    finally:
        dst.close()
        shard.close()
        claim.release()
    return {"points_read": read, "points_written": written}
