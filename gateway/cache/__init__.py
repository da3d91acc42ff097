"""The answer cache: normalised questions → answers, retired when a cited document changes.

- :mod:`gateway.cache.answer_cache` – :class:`AnswerCache` (Redis or in-process) and
  :func:`build_answer_cache` from settings;
- :mod:`gateway.cache.normalize` – the question normal form the cache keys on (also the route
  record's ``normalized_question``), and the guard that compares a stored and an asked question;
- ``_backends`` (Redis Lua scripts / in-process store), ``_types``, ``_near_cache`` (decoded
  entries in process) are private.
"""

from gateway.cache._near_cache import NearCache
from gateway.cache.answer_cache import (
    AnswerCache,
    CacheConfig,
    CacheCounters,
    CacheEntry,
    MemoryAnswerCache,
    RedisAnswerCache,
    VersionScope,
    build_answer_cache,
)
from gateway.cache.normalize import (
    GuardResult,
    QuestionSignature,
    compare_questions,
    normalize_question,
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
