"""The answer cache: normalised questions → answers, retired when a cited document changes.

- :mod:`gateway.cache.answer_cache` – :class:`AnswerCache`, the logic over a store;
- :mod:`gateway.cache.build` – :class:`MemoryAnswerCache`, :class:`RedisAnswerCache` and
  :func:`build_answer_cache` from settings;
- :mod:`gateway.cache.normalize` – the question normal form the cache keys on (also the route
  record's ``normalized_question``); :mod:`gateway.cache.question_guard` – the guard that
  compares a stored and an asked question;
- ``_backends`` (Redis Lua scripts), ``_memory_store``, ``_types``, ``_near_cache`` (decoded
  entries in process) are private.

The cache is Redis (:class:`RedisAnswerCache`) or an in-process LRU (:class:`MemoryAnswerCache`).

Both have the same async interface and behaviour (``tests/gateway/test_cache.py`` runs one
suite against both).

**Key.** ``sha256(mode, version token, normalised question)`` inside a per-collection namespace
(``{prefix}cache:{<collection hash>}:e:<digest>``; the braces are a Redis Cluster hash tag, so
all keys of a collection live in one slot). The question is normalised by
:func:`gateway.cache.normalize_question`. The *version token* depends on ``version_scope``:

- ``"corpus"`` (default): every entry is keyed by the collection's corpus version, so any ingest,
  change or deletion retires every cached answer of that collection;
- ``"document"``: answers that were *found* are keyed without the version and retired through the
  per-document index when a document they cite changes or is deleted (answers citing untouched
  documents survive an ingest); *not-found* answers are still keyed by the corpus version, so any
  ingest retires them (case 12: a cached "not found" must not survive the document that answers it).

**Alias.** With an LLM, the LoopAgent may supply a canonical summary of the question; it is stored
as an alias key pointing at the entry. An alias lookup is only served when
:func:`compare_questions` finds the stored and the asked question compatible (same numbers,
codes, negations, polarity words and word order; case 13).

**Per-document index.** ``…:d:<doc_id>`` is a set of the entry and alias keys citing that
document. :meth:`invalidate_documents` deletes them and leaves a tombstone ``…:x:<doc_id>`` (for
one TTL): since a ``doc_id`` is the sha256 of the document's bytes, a document that changed or was
deleted never comes back under the same id, and :meth:`put` refuses answers citing a tombstoned
document (an answer computed just before an ingest finished is not stored). ``…:v:<version>``
sets list version-bound keys, and :meth:`retire_versions` deletes those of other versions, so
Redis holds no unreachable entries after an ingest. An invalidation that fails because Redis is
down is kept and replayed before the next cache operation once Redis answers again.

**Near-cache.** With ``near_entries`` > 0 the last entries served or stored are also kept in
process, decoded, under the question as asked (:class:`gateway.cache._near_cache.NearCache`): a
repeated question is answered by :meth:`AnswerCache.peek` without normalisation, hashing, a
Redis round trip or JSON decoding, and only while the corpus version is the one at which the
store held the entry (exact invalidation: every change moves the version; this process's own
invalidations also drop the collection's near entries at once).
"""

from gateway.cache._near_cache import NearCache
from gateway.cache._types import CacheConfig, CacheCounters, CacheEntry, VersionScope
from gateway.cache.answer_cache import AnswerCache
from gateway.cache.build import MemoryAnswerCache, RedisAnswerCache, build_answer_cache
from gateway.cache.normalize import normalize_question
from gateway.cache.question_guard import (
    GuardResult,
    QuestionSignature,
    compare_questions,
    question_signature,
)

__all__ = [
    "AnswerCache",
    "CacheConfig",
    "CacheCounters",
    "CacheEntry",
    "GuardResult",
    "MemoryAnswerCache",
    "NearCache",
    "QuestionSignature",
    "RedisAnswerCache",
    "VersionScope",
    "build_answer_cache",
    "compare_questions",
    "normalize_question",
    "question_signature",
]
