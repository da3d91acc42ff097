"""The grounded RAG answer's prompt, JSON schema and reply model (one LLM call over the retrieved
chunks, ``gateway.engines.HybridRagEngine``).

The reply text must parse as JSON (code fences allowed) and validate as :class:`GroundedReply`;
anything else is answered extractively, flagged ``llm_bad_json``.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = ["FENCE", "GROUNDED_SCHEMA", "GROUNDED_SYSTEM", "GroundedReply"]

GROUNDED_SYSTEM = (
    "You answer questions using ONLY the numbered passages given. Reply with one JSON object: "
    '{"found": true|false, "answer": "...", "citations": [{"chunk_id": "...", "quote": "..."}]}. '
    "Each quote must be copied verbatim from the passage with that chunk_id (a short sentence or "
    "table row that supports the answer). If the passages do not answer the question, reply "
    '{"found": false, "answer": "Not found in the documents.", "citations": []}. Answer in the '
    "language of the question."
)
GROUNDED_SCHEMA = {
    "type": "object",
    "properties": {
        "found": {"type": "boolean"},
        "answer": {"type": "string"},
        "citations": {"type": "array", "items": {
            "type": "object",
            "properties": {"chunk_id": {"type": "string"}, "quote": {"type": "string"}},
            "required": ["chunk_id", "quote"]}},
    },
    "required": ["found", "answer", "citations"],
}
FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


class GroundedReply(BaseModel):
    """The grounded answer the LLM must write (``GROUNDED_SCHEMA``); citations stay raw and
    are checked one by one by ``loop.citations.check_citations``."""

    model_config = ConfigDict(extra="ignore")
    found: bool
    answer: str = ""
    citations: list[Any] = []
