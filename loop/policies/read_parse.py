"""What the model may reply in the line-reading protocol (issue 14): the JSON schemas sent as
``response_format`` and a lenient, bounded parser.

A step reply is ONE object, one of::

    {"action": "extract", "notes": [{"fact": "...", "lines": [2, 3]}],
     "then": "answer" | "next" | "previous" | "other"}
    {"action": "continue", "to": "next" | "previous" | "other"}
    {"action": "stop", "reason": "sufficient" | "not_in_document"}

and the answer reply is ``{"answer": "..."}``. Near-JSON (code fences, trailing commas, single
quotes, prose around the object, a missing closing brace) is repaired by the ``json-repair``
library (PyPI ``json-repair``), not by hand; at most ``MAX_REPLY_CHARS`` of a reply are read.
What still is not a usable object raises :class:`ReplyError` with a message the loop sends back
to the model in its one re-ask.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import json_repair

__all__ = [
    "ANSWER_SCHEMA", "Decision", "MAX_REPLY_CHARS", "ReplyError", "STEP_SCHEMA", "parse_answer",
    "parse_decision",
]

MAX_REPLY_CHARS = 4_000
MAX_NOTES = 3
MAX_FACT_CHARS = 300
MOVES = ("next", "previous", "other")

_NOTE = {"type": "object", "properties": {
    "fact": {"type": "string", "maxLength": MAX_FACT_CHARS},
    "lines": {"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 1,
              "maxItems": 4}},
    "required": ["fact", "lines"], "additionalProperties": False}
STEP_SCHEMA: dict[str, Any] = {"anyOf": [
    {"type": "object", "properties": {
        "action": {"const": "extract"},
        "notes": {"type": "array", "items": _NOTE, "minItems": 1, "maxItems": MAX_NOTES},
        "then": {"enum": ["answer", *MOVES]}},
     "required": ["action", "notes", "then"], "additionalProperties": False},
    {"type": "object", "properties": {"action": {"const": "continue"}, "to": {"enum": list(MOVES)}},
     "required": ["action", "to"], "additionalProperties": False},
    {"type": "object", "properties": {
        "action": {"const": "stop"}, "reason": {"enum": ["sufficient", "not_in_document"]}},
     "required": ["action", "reason"], "additionalProperties": False},
]}
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object", "properties": {"answer": {"type": "string", "maxLength": 600}},
    "required": ["answer"], "additionalProperties": False}


class ReplyError(ValueError):
    """A reply that is not a usable object; ``str(exc)`` tells the model what was wrong."""


@dataclass(slots=True)
class Decision:
    """One parsed step. ``notes`` are ``(fact, line ids)`` with ids the block shows;
    ``move`` is ``answer``/``next``/``previous``/``other`` (extract, continue) or ``stop``;
    ``reason`` the stop reason; ``dropped_lines`` counts line ids the block does not show
    (invented ids, dropped)."""

    action: str
    notes: list[tuple[str, list[int]]] = field(default_factory=list)
    move: str = "other"
    reason: str = ""
    dropped_lines: int = 0


def _object(text: str) -> dict[str, Any]:
    data = json_repair.loads(text[:MAX_REPLY_CHARS]) if text.strip() else ""
    if isinstance(data, list):  # a model that wraps its object in a list
        data = next((x for x in data if isinstance(x, dict)), data)
    if not isinstance(data, dict):
        raise ReplyError("the reply is not a JSON object")
    return data


def _line_ids(raw: Any) -> list[int]:
    """Integers of ``raw``: ``[2, 3]``, ``"2"``, ``"L2"``, ``"2-4"`` (a range), ``2``."""
    out: list[int] = []
    for item in raw if isinstance(raw, list) else [raw]:
        if isinstance(item, bool):
            continue
        if isinstance(item, int):
            out.append(item)
        elif isinstance(item, str):
            if m := re.fullmatch(r"\s*[Ll]?(\d{1,3})\s*[-–~]\s*[Ll]?(\d{1,3})\s*", item):
                a, b = int(m[1]), int(m[2])
                out += list(range(a, b + 1))[:8] if a <= b else []
            else:
                out += [int(x) for x in re.findall(r"\d{1,3}", item)[:8]]
    return list(dict.fromkeys(out))


def parse_decision(text: str, n_lines: int) -> Decision:
    """The step in ``text`` for a block of ``n_lines`` lines.

    Lenient: ``tool``/``name`` for ``action``; a bare ``"continue"``/``"next"`` … action; a
    missing ``then`` means ``answer``; line ids written as strings or ranges. Line ids outside
    ``1..n_lines`` are dropped (counted); a note left without lines is dropped.
    :raises ReplyError: not an object, an unknown action, or an ``extract`` with no note
        left that names a line of the block.
    """
    data = _object(text)
    action = str(data.get("action") or data.get("tool") or data.get("name") or "").lower()
    if action in MOVES:
        return Decision("continue", move=action)
    if action == "continue":
        to = str(data.get("to") or data.get("then") or "other").lower()
        return Decision("continue", move=to if to in MOVES else "other")
    if action == "stop":
        reason = str(data.get("reason") or "sufficient").lower()
        return Decision("stop", move="stop",
                        reason="not_in_document" if "not" in reason else "sufficient")
    if action != "extract":
        raise ReplyError(f"unknown action {action!r}: use extract, continue or stop")
    raw = data.get("notes") or data.get("note") or []
    notes, dropped = [], 0
    for item in (raw if isinstance(raw, list) else [raw])[:MAX_NOTES]:
        if not isinstance(item, dict):
            continue
        ids = _line_ids(item.get("lines", item.get("line", [])))
        good = [i for i in ids if 1 <= i <= n_lines]
        dropped += len(ids) - len(good)
        fact = " ".join(str(item.get("fact") or "").split())[:MAX_FACT_CHARS]
        if good:
            notes.append((fact, good))
    if not notes:
        raise ReplyError(f"extract needs notes whose lines are line numbers of this block "
                         f"(1 to {n_lines})")
    then = str(data.get("then") or "answer").lower()
    return Decision("extract", notes, then if then in ("answer", *MOVES) else "answer",
                    dropped_lines=dropped)


def parse_answer(text: str) -> str:
    """The answer text of an ``{"answer": ...}`` reply (a bare string reply is accepted).

    :raises ReplyError: no non-empty answer in the reply.
    """
    body = text.strip()[:MAX_REPLY_CHARS]
    data = json_repair.loads(body) if body else ""
    answer = data.get("answer") if isinstance(data, dict) else (
        body if body and not body.startswith(("{", "[", "`")) else data)
    if not isinstance(answer, str) or not answer.strip():
        raise ReplyError('the reply has no "answer" text')
    return answer.strip()
