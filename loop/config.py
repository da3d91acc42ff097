"""Explicit config objects of the deep-read path (no environment reads; the gateway builds
them from its settings): :class:`LoopConfig` (budgets and sizes of one loop) and
:class:`LLMConfig` (an OpenAI-compatible chat-completions endpoint).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import SecretStr

__all__ = ["MAX_LOOPS_LIMIT", "LLMConfig", "LLMProtocolName", "LoopConfig"]

#: the most policy turns one loop may take (DESIGN.md "Key contracts": at most 10)
MAX_LOOPS_LIMIT = 10

LLMProtocolName = Literal["auto", "tools", "json", "read", "pick", "json_actions"]


@dataclass(frozen=True, slots=True)
class LoopConfig:
    """Budgets and sizes of one loop (DESIGN.md "Key contracts").

    :param max_loops: policy turns (LLM calls) per question, 1..10 (default 6).
    :param tool_timeout_s: per tool call, seconds (default 5).
    :param token_budget: prompt + completion tokens per question; 0 = unlimited.
    :param deadline_s: wall-clock seconds per question; 0 = unlimited.
    :param max_duplicates: refused identical calls before the hard stop (2 → the 3rd repeat
        of a call stops the loop; case 22).
    :param search_top_k: candidates per search (at most 5).
    :param read_max_chars: a longer chunk is shown as head + tail.
    :param snippet_chars: characters of a search snippet.
    :param directory_max_docs: documents listed in the first prompt's directory.
    :param min_coverage: share (0..1) of the question's key-term weight an evidence unit must
        cover to be cited by the offline policy (and a budget stop); the offline policy answers
        when its best-ranked unit covers it, or another unit covers it by a margin (0.15),
        else says not found.
    :param directory_scan: the offline policy scans the directory of the top candidate
        documents (``scan`` tool) and reads the sections it picks after the RAG candidates.
    :param scan_docs: candidate documents one ``scan`` lists (1..10); ``scan_entries``: the
        directory entries it shows, best match first (1..40).
    """

    max_loops: int = 6
    tool_timeout_s: float = 5.0
    token_budget: int = 24_000
    deadline_s: float = 120.0
    max_duplicates: int = 2
    search_top_k: int = 5
    read_max_chars: int = 1_800
    snippet_chars: int = 160
    directory_max_docs: int = 20
    min_coverage: float = 0.4
    directory_scan: bool = True
    scan_docs: int = 3
    scan_entries: int = 12

    def __post_init__(self) -> None:
        if not 1 <= self.max_loops <= MAX_LOOPS_LIMIT:
            raise ValueError(f"max_loops must be 1..{MAX_LOOPS_LIMIT}, got {self.max_loops}")
        if not 1 <= self.search_top_k <= 5:
            raise ValueError(f"search_top_k must be 1..5, got {self.search_top_k}")
        if self.tool_timeout_s <= 0 or self.max_duplicates < 1:
            raise ValueError("tool_timeout_s must be > 0 and max_duplicates >= 1")
        if not (1 <= self.scan_docs <= 10 and 1 <= self.scan_entries <= 40):
            raise ValueError("scan_docs must be 1..10 and scan_entries 1..40")


@dataclass(frozen=True, slots=True)
class LLMConfig:
    """An OpenAI-compatible chat-completions endpoint.

    :param base_url: e.g. ``http://127.0.0.1:8080/v1`` (``/chat/completions`` is appended).
    :param model: model name sent in each request.
    :param api_key: bearer token (``None`` for local servers).
    :param timeout_s: per request, seconds.
    :param max_retries: extra attempts on 429 / 5xx / timeouts (exponential back-off).
    :param backoff_s: first back-off wait, seconds (doubles, capped at 8 s; ``Retry-After``
        wins when the server sends one and it is shorter than 30 s).
    :param protocol: ``tools`` (native tool_calls), ``json`` / ``read`` (the line-reading
        protocol, ``loop.policies.llm_read``: JSON-schema steps over numbered blocks),
        ``pick`` (the same protocol whose first step has the model choose the line that answers
        among the offline policy's best lines, ``loop.policies.read_pick``; blocks are read
        only when the offline policy found nothing; what ``auto`` picks when the server does
        not call tools natively),
        ``json_actions`` (free-form JSON tool actions, ``loop.policies.llm_json``), or ``auto``
        (probe the server once and remember: native tools, else the line-reading protocol).
    :param json_dialect: ``json_schema`` (llama.cpp server, OpenAI), ``json_object`` (with a
        ``schema`` key: llama-cpp-python) or ``auto`` (try the first, fall back on HTTP 4xx).
    :param tool_results_as_user: send tool results back as user turns (needed by some local
        servers' chat templates) instead of ``role: tool`` messages.
    """

    base_url: str
    model: str = "local"
    api_key: SecretStr | None = None
    timeout_s: float = 60.0
    max_retries: int = 2
    backoff_s: float = 0.5
    protocol: LLMProtocolName = "auto"
    json_dialect: Literal["auto", "json_schema", "json_object"] = "auto"
    temperature: float = 0.0
    max_tokens: int = 512
    tool_results_as_user: bool = False
