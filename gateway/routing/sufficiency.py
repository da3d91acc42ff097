"""Sufficiency score and process metrics of one request (issue 16 item 5), both from what the
router already knows, without I/O.

- :func:`sufficiency` — how much of what the question asks the cited evidence covers, in
  ``[0, 1]``: the share of the question's key terms (words of three letters or more that are not
  question or stop words; Chinese character pairs without question characters) found in the
  answer's cited quotes and their section headings; ``0`` for a "not found"; for an answer in
  parts, the mean over its parts (a part not found counts ``0``).
- :func:`process_metrics` — the route record's ``process``: ``steps`` (LoopAgent steps, all
  parts), ``tool_calls`` by tool, ``rewrites`` (0/1: the question was rewritten),
  ``sub_questions`` (parts; 0 when asked whole), ``memory_hits``, ``tokens``, ``sufficiency``.
  Time per stage is the record's ``latency_ms``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

__all__ = ["key_terms", "process_metrics", "sufficiency"]

_STOP = frozenset(
    "the a an of for in on at to is are was were be by with and or as from per this that these "
    "those what which who whom whose when where why how many much does do did shall must may can "
    "will its it their our your each any all there have has had should would could about into "
    "than then them they you".split())
_QCHARS = set("多少什么哪几吗呢谁怎如何是否的了吧么")


def key_terms(text: str) -> set[str]:
    """Lower-case content words (3+ letters, not stop words) and Chinese character pairs
    without question characters."""
    return set(_key_terms(text))


@lru_cache(maxsize=4096)
def _key_terms(text: str) -> frozenset[str]:
    """:func:`key_terms`, memoised (pure; a cache hit scores the same question and quotes
    again on every request)."""
    words = {w for w in re.findall(r"[a-z0-9][a-z0-9'-]{2,}", text.lower()) if w not in _STOP}
    cjk = "".join(ch if "\u4e00" <= ch <= "\u9fff" else " " for ch in text)
    pairs = {run[i:i + 2] for run in cjk.split() for i in range(len(run) - 1)}
    return frozenset(words | {p for p in pairs if not (set(p) & _QCHARS)})


def _coverage(question: str, citations: Sequence[Any]) -> float:
    want = _key_terms(question)
    if not want:
        return 1.0
    have: set[str] = set()
    for c in citations:
        have |= _key_terms(f"{getattr(c, 'quote', '')} {' '.join(getattr(c, 'section_path', ()))}")
    return len(want & have) / len(want)


def sufficiency(question: str, found: bool, citations: Sequence[Any],
                parts: Sequence[dict[str, Any]] | None = None) -> float:
    """The request's sufficiency score in ``[0, 1]`` (module docstring).

    :param citations: the answer's citations (objects with ``quote`` and ``section_path``).
    :param parts: ``QueryResult.parts`` for an answer in parts (citations as indices).
    """
    if parts:
        scores = [_coverage(p["question"], [citations[i] for i in p["citations"]])
                  if p["found"] else 0.0 for p in parts]
        return round(sum(scores) / len(scores), 3)
    if not found or not citations:
        return 0.0
    return round(_coverage(question, citations), 3)


def process_metrics(route: dict[str, Any]) -> dict[str, Any]:
    """The ``process`` summary of a route dict (module docstring)."""
    plan = route.get("plan") or {}
    parts = plan.get("parts") or []
    steps = list(route.get("steps") or [])
    tools: Counter[str] = Counter(str(s.get("tool")) for s in steps
                                  if isinstance(s, dict) and s.get("kind") == "tool")
    for p in parts:
        tools.update(p.get("tool_calls") or {})
    n_steps = len(steps) + sum(int(p.get("steps") or 0) for p in parts)
    session = route.get("session") or {}
    return {
        "steps": n_steps,
        "tool_calls": dict(tools),
        "rewrites": int(bool(route.get("rewritten_question"))),
        "sub_questions": len(parts),
        "memory_hits": len(session.get("memory_hits") or ()),
        "tokens": int(route.get("tokens") or 0),
        "sufficiency": route.get("sufficiency"),
    }
