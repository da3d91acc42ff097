"""Agreement between a legacy RAG answer and LoopGate's, and the migration log behind the dashboard.

Two measures, both in ``[0, 1]``:

- **citation overlap** — Jaccard overlap of the documents both sides point to (file name,
  case- and width-folded, directories ignored, since the two systems rarely share a path
  root), and, where both sides give pages, of the ``(document, page)`` pairs. The headline
  ``citation_overlap`` is the page-level figure when both sides gave pages, else the document
  level. ``None`` when neither side cited anything (nothing to agree on).
- **answer similarity** — lexical: rapidfuzz's normalised Indel similarity
  (``fuzz.ratio / 100``) of the two answers after NFKC, case folding and removal of
  punctuation and whitespace. It works character by character, so Chinese needs no
  segmentation. It is a screening figure (a generated legacy answer and an extractive
  LoopGate answer can agree in substance and still score ~0.3); read the examples in the log
  before trusting it.

:class:`MigrationLog` counts what was served by whom, shadow outcomes and agreement sums per
collection, and keeps the most recent records — in Redis (shared by every gateway replica) when
a URL is given, else in process.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import unicodedata
from collections import defaultdict, deque
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import PurePosixPath
from typing import Any

from prometheus_client import Counter as PromCounter
from prometheus_client import Histogram
from rapidfuzz import fuzz

__all__ = [
    "Agreement",
    "MigrationLog",
    "SourceRef",
    "answer_similarity",
    "citation_overlap",
    "compare",
]

_PUNCT = re.compile(r"[\W_]+", re.UNICODE)

MIGRATION_REQUESTS = PromCounter(
    "loopgate_migration_requests_total",
    "Questions handled under a migration mode, by collection, mode and the side that served.",
    ["collection", "mode", "served_by"],
)
MIGRATION_SHADOW = PromCounter(
    "loopgate_migration_shadow_total",
    "Background (shadow) LoopGate runs by outcome: ok, error, timeout, skipped.",
    ["collection", "outcome"],
)
_BUCKETS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
MIGRATION_OVERLAP = Histogram(
    "loopgate_migration_citation_overlap",
    "Citation overlap (Jaccard) between legacy and LoopGate answers.",
    ["collection"],
    buckets=_BUCKETS,
)
MIGRATION_SIMILARITY = Histogram(
    "loopgate_migration_answer_similarity",
    "Lexical answer similarity between legacy and LoopGate answers.",
    ["collection"],
    buckets=_BUCKETS,
)


@dataclass(frozen=True, slots=True)
class SourceRef:
    """A document (and optional 1-based page) an answer points to."""

    path: str
    page: int | None = None

    @property
    def doc_key(self) -> str:
        """File name, NFKC + case folded (directories dropped)."""
        name = PurePosixPath(self.path.replace("\\", "/")).name
        return unicodedata.normalize("NFKC", name).casefold()


@dataclass(frozen=True, slots=True)
class Agreement:
    """Agreement of two answers; every figure in ``[0, 1]`` or ``None`` when undefined."""

    citation_overlap: float | None
    document_overlap: float | None
    page_overlap: float | None
    answer_similarity: float
    found_agree: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form: every field by name, in declaration order."""
        return asdict(self)


def _jaccard(a: set[Any], b: set[Any]) -> float | None:
    """|a ∩ b| / |a ∪ b|, or None when both are empty."""
    union = a | b
    return len(a & b) / len(union) if union else None


def citation_overlap(
    left: Iterable[SourceRef], right: Iterable[SourceRef]
) -> tuple[float | None, float | None]:
    """Document-level and page-level Jaccard overlap of two citation lists.

    :returns: ``(document_overlap, page_overlap)``; page-level is ``None`` unless both sides
        gave at least one page; either is ``None`` when both sides are empty.
    """
    left, right = [r for r in left if r.path], [r for r in right if r.path]
    docs = _jaccard({r.doc_key for r in left}, {r.doc_key for r in right})
    lp = {(r.doc_key, r.page) for r in left if r.page is not None}
    rp = {(r.doc_key, r.page) for r in right if r.page is not None}
    pages = _jaccard(lp, rp) if lp and rp else None
    return docs, pages


def _norm(text: str) -> str:
    """NFKC, case fold, punctuation and whitespace removed (so ``24 个月`` equals ``24个月``)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return _PUNCT.sub("", text)


def answer_similarity(a: str, b: str) -> float:
    """Lexical similarity in ``[0, 1]`` (rapidfuzz Indel ratio; 1.0 when both are blank)."""
    na, nb = _norm(a), _norm(b)
    if not na and not nb:
        return 1.0
    return fuzz.ratio(na, nb) / 100.0


def compare(
    legacy_answer: str,
    legacy_sources: Iterable[SourceRef],
    legacy_found: bool,
    loopgate_answer: str,
    loopgate_sources: Iterable[SourceRef],
    loopgate_found: bool,
) -> Agreement:
    """Agreement of a legacy answer and a LoopGate answer (see the module docstring)."""
    docs, pages = citation_overlap(legacy_sources, loopgate_sources)
    return Agreement(
        citation_overlap=pages if pages is not None else docs,
        document_overlap=docs,
        page_overlap=pages,
        answer_similarity=answer_similarity(legacy_answer, loopgate_answer),
        found_agree=legacy_found == loopgate_found,
    )


class MigrationLog:
    """Per-collection migration counters and recent records (Redis when given, else in process).

    Redis layout (``prefix`` default ``loopgate:migration``): a hash ``{prefix}:stats:{collection}``
    with integer/float fields (``served:legacy``, ``shadow:timeout``, ``overlap_sum``, …) updated
    with HINCRBY/HINCRBYFLOAT, so replicas add up; a stream ``{prefix}:events`` capped at
    ``max_records`` (approximate trimming) holding one JSON record per question.

    :param redis: a ``redis.asyncio.Redis`` client or ``None`` (in-process counters).
    :param timeout_s: per-operation deadline; a failing Redis never fails a request (the
        record is dropped and counted in :attr:`dropped`).
    """

    def __init__(
        self,
        redis: Any = None,
        *,
        prefix: str = "loopgate:migration",
        max_records: int = 10000,
        timeout_s: float = 0.5,
    ) -> None:
        self.redis = redis
        self.prefix = prefix
        self.max_records = max_records
        self.timeout_s = timeout_s
        self.dropped = 0
        self.owns_redis = False
        self._stats: dict[str, defaultdict[str, float]] = {}
        self._events: deque[dict[str, Any]] = deque(maxlen=max_records)

    async def record(self, rec: dict[str, Any]) -> None:
        """Count one record (keys: collection, mode, served_by, shadow, agreement …) and keep it."""
        rec = {"ts": time.time(), **rec}
        collection = str(rec.get("collection", ""))
        mode = str(rec.get("mode", ""))
        incs: dict[str, float] = defaultdict(float)
        if rec.get("served_by"):
            incs[f"served:{rec['served_by']}"] += 1
            MIGRATION_REQUESTS.labels(collection, mode, rec["served_by"]).inc()
        if rec.get("shadow"):
            incs[f"shadow:{rec['shadow']}"] += 1
            MIGRATION_SHADOW.labels(collection, rec["shadow"]).inc()
        agreement = rec.get("agreement") or {}
        if agreement.get("citation_overlap") is not None:
            incs["overlap_sum"] += float(agreement["citation_overlap"])
            incs["overlap_n"] += 1
            MIGRATION_OVERLAP.labels(collection).observe(agreement["citation_overlap"])
        if agreement.get("answer_similarity") is not None:
            incs["similarity_sum"] += float(agreement["answer_similarity"])
            incs["similarity_n"] += 1
            incs["found_agree"] += int(bool(agreement.get("found_agree")))
            MIGRATION_SIMILARITY.labels(collection).observe(agreement["answer_similarity"])
        if self.redis is None:
            stats = self._stats.setdefault(collection, defaultdict(float))
            for name, value in incs.items():
                stats[name] += value
            self._events.append(rec)
            return
        try:
            async with asyncio.timeout(self.timeout_s):
                pipe = self.redis.pipeline(transaction=False)
                key = f"{self.prefix}:stats:{collection}"
                for name, value in incs.items():
                    if name.endswith("_sum"):
                        pipe.hincrbyfloat(key, name, float(value))
                    else:
                        pipe.hincrby(key, name, int(value))
                pipe.sadd(f"{self.prefix}:collections", collection)
                pipe.xadd(
                    f"{self.prefix}:events",
                    {"record": json.dumps(rec, ensure_ascii=False, default=str)},
                    maxlen=self.max_records,
                    approximate=True,
                )
                await pipe.execute()
        except Exception:  # noqa: BLE001 - a log write must never fail a request
            self.dropped += 1

    async def aclose(self) -> None:
        """Close the Redis client when this log opened it (``owns_redis``)."""
        if self.redis is not None and self.owns_redis:
            await self.redis.aclose()

    async def _raw_stats(self) -> dict[str, dict[str, float]]:
        """Counters per collection, from Redis or memory."""
        if self.redis is None:
            return {c: dict(v) for c, v in self._stats.items()}
        out: dict[str, dict[str, float]] = {}
        for raw in await self.redis.smembers(f"{self.prefix}:collections"):
            name = raw.decode() if isinstance(raw, bytes) else raw
            fields = await self.redis.hgetall(f"{self.prefix}:stats:{name}")
            out[name] = {
                (k.decode() if isinstance(k, bytes) else k): float(v) for k, v in fields.items()
            }
        return out

    async def summary(self) -> dict[str, dict[str, Any]]:
        """Per collection: served counts and shares, shadow outcomes, mean agreement figures."""
        result: dict[str, dict[str, Any]] = {}
        for collection, st in sorted((await self._raw_stats()).items()):
            served = {k.split(":", 1)[1]: int(v) for k, v in st.items() if k.startswith("served:")}
            total = sum(served.values())
            shadow = {k.split(":", 1)[1]: int(v) for k, v in st.items() if k.startswith("shadow:")}
            on, sn = st.get("overlap_n", 0), st.get("similarity_n", 0)
            result[collection] = {
                "served": served,
                "loopgate_share": (served.get("loopgate", 0) / total) if total else None,
                "shadow": shadow,
                "compared": int(sn),
                "mean_citation_overlap": st.get("overlap_sum", 0) / on if on else None,
                "mean_answer_similarity": st.get("similarity_sum", 0) / sn if sn else None,
                "found_agreement": st.get("found_agree", 0) / sn if sn else None,
            }
        return result

    async def recent(self, count: int = 50, collection: str | None = None) -> list[dict[str, Any]]:
        """The most recent records, newest first (optionally of one collection)."""
        if self.redis is None:
            records = list(reversed(self._events))
        else:
            rows = await self.redis.xrevrange(
                f"{self.prefix}:events", count=count if collection is None else count * 10
            )
            records = []
            for _id, fields in rows:
                raw = fields.get(b"record", fields.get("record"))
                records.append(json.loads(raw))
        if collection is not None:
            records = [r for r in records if r.get("collection") == collection]
        return records[:count]
