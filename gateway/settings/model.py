"""The :class:`Settings` model (pydantic-settings): every ``LOOPGATE_*`` variable, grouped by
what it sets (storage, embeddings, LLM, router, LoopAgent budgets, directory, timeouts, cache
and route log, HTTP server and security, migration), and the validators that refuse bad values
at start-up. Reading it for a process (the settings file, relative paths) is
:mod:`gateway.settings.load`.
"""

# one setting a line, its description in full (the table docs/settings.md mirrors)
# ruff: noqa: E501
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import (
    AnyHttpUrl,
    Field,
    SecretStr,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["Settings"]

_HTTP_URL: TypeAdapter[AnyHttpUrl] = TypeAdapter(AnyHttpUrl)
_MIGRATION_MODE = re.compile(r"^(?:proxy|shadow|gateway|canary(?::(\d+(?:\.\d+)?))?)$")
_PLACEHOLDERS = {"changeme", "changethis", "secret", "password", "test", "example"}


def _default_data_dir() -> Path:
    """The user data folder (platformdirs), ``data_dir``'s default."""
    return Path(platformdirs.user_data_dir("loopgate", appauthor=False))


class Settings(BaseSettings):
    """All LoopGate settings; see docs/settings.md for each variable."""

    model_config = SettingsConfigDict(
        env_prefix="LOOPGATE_",
        env_file=os.environ.get("LOOPGATE_ENV_FILE"),
        extra="ignore",
        # every number is a finite one: "inf" passed "gt=0" and broke what it sized
        # (LOOPGATE_LLM_PROBE_TIMEOUT_S=inf failed the speed probe with an OverflowError,
        # LOOPGATE_TIMEOUT_SEARCH_S=inf emptied the LoopAgent's searches)
        allow_inf_nan=False,
    )

    # --- storage -------------------------------------------------------------------------
    data_dir: Path = Field(default_factory=_default_data_dir, description="Where all local state lives (embedded Qdrant shards, uploads).")
    qdrant_url: str = Field("", description="Qdrant server/cluster URL; empty = embedded engine (qdrant-edge-py) under data_dir.")
    qdrant_api_key: SecretStr | None = Field(None, description="API key for the Qdrant server.")
    redis_url: str = Field("", description="Redis URL for the answer cache and route log; empty = in-process LRU and ring buffer.")

    # --- embeddings ----------------------------------------------------------------------
    ocr_languages: str = Field("eng+chi_sim+chi_tra", pattern=r"^(?:[A-Za-z_]+(?:\+[A-Za-z_]+)*)?$", description="Tesseract languages for scanned PDF pages, joined by + (those installed are used); empty = no OCR. The PDF parser reads it from the process environment, which get_settings sets from here (corpus.parsers._pdf_ocr).")
    embed_model: str = Field("intfloat/multilingual-e5-small", description="fastembed model name of the dense embedder.")
    embed_model_path: Path | None = Field(None, description="Local folder holding the embedding model (no network); empty = let fastembed fetch it.")
    embed_threads: int = Field(0, ge=0, le=256, description="ONNX runtime threads for embedding; 0 = auto: the usable cores for loopgate ingest (shared among its worker processes), 1 in the gateway.")
    embed_batch_size: int = Field(1, ge=1, le=256, description="Texts per embedding call at ingest (CLI and uploads; the LoopAgent's short evidence sentences go in batches of 8). 1 = each text alone, unpadded like every question: its vector does not depend on what else is ingested with it (the int8 model quantises each call's activations together, so a text batched with longer ones — padded — gets a vector up to 0.012 off per component), no padding, 17 % less CPU and 0.1 GB less peak memory per embedding process than 8 on 256-token chunks.")
    embed_max_tokens: int = Field(256, ge=16, le=512, description="Tokens of a chunk (title + section + text) that are embedded; the rest is still keyword-indexed. Ingest time grows with it.")
    embed_query_cache: int = Field(1024, ge=0, le=1_000_000, description="Question vectors kept in process (LRU keyed by the question's token ids: a repeated question, or one differing only in width or blanks, is not embedded again); 0 = off.")
    embed_allow_download: bool = Field(False, description="With no embed_model_path, let fastembed download the model (needs network); false = keyword-only.")
    allow_keyword_only: bool = Field(False, description="Answer a collection that holds dense vectors keyword-only when no embedding model is loaded (every answer flagged keyword_only); false = such queries are refused with what to fix.")

    # --- LLM (empty base URL = no LLM: extractive RAG answers, offline LoopAgent policy) ----
    llm_base_url: str = Field("", description="OpenAI-compatible base URL (…/v1); empty = no LLM (offline policy).")
    llm_model: str = Field("", description="Model name sent to the LLM server.")
    llm_api_key: SecretStr | None = Field(None, description="Bearer key for the LLM server.")
    llm_protocol: Literal["auto", "tools", "json", "read", "pick", "json_actions"] = Field("auto", description="LoopAgent protocol: native tool calls (tools), the line-reading protocol for small local models (json or read: one block of numbered lines per JSON-schema step, cite by line id, never worse than the offline policy; pick: the model first chooses which of the offline policy's five best lines answers, one short JSON reply, and reads blocks only when the offline policy found nothing; what auto uses for a server without native tools), free-form JSON tool actions (json_actions), or detect (auto: tools when the server calls tools natively, else the line-reading protocol).")
    llm_timeout_s: float = Field(60.0, gt=0, description="Timeout of one LLM call, seconds.")
    llm_budgets: Literal["probe", "fixed"] = Field("probe", description="probe = at start-up (serve, ask, chat) time two short calls to the configured LLM and size the LLM call timeout, the loop deadline and the request deadline not set explicitly from its speed (never below their defaults; skipped with llm_scope=conversation); fixed = the configured values.")
    llm_probe_timeout_s: float = Field(60.0, gt=0, description="Most seconds the start-up speed probe may take (no retries); past it or on an error the fixed budgets stay, flagged in /readyz.")
    llm_max_tokens: int = Field(512, ge=16, description="Max generated tokens per LLM call.")
    llm_temperature: float = Field(0.0, ge=0, le=2, description="Sampling temperature of LLM calls.")
    llm_scope: Literal["all", "loop", "conversation"] = Field("all", description="What the LLM does: all = answers (RAG), reads (LoopAgent) and the conversation stage; loop = the LoopAgent's reading (with LOOPGATE_LLM_PROTOCOL=pick: one short pick call) and the conversation stage, RAG answers stay extractive: for a small local model (a RAG answer prompt of ~1,500 tokens took Qwen2.5-Coder-1.5B on 1 CPU thread 30-118 s and was mostly refused by the citation check, the pick 2-13 s); conversation = only the conversation stage (follow-up rewrite, summary, cross-language key terms), answers extractive and the LoopAgent offline.")
    conversation_llm_timeout_s: float = Field(8.0, gt=0, description="Timeout of one conversation-stage LLM call (follow-up rewrite, cross-language key terms), seconds; then the rules' rewrite / the dictionary's terms are used, flagged. The conversation stage may take this much more than timeout_retrieve_s when an LLM is configured.")

    # --- router: thresholds and escalation rules -----------------------------------------
    default_collection: str = Field("default", pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$", description="Collection used when a request names none (HTTP reads: the only collection with documents when this one does not exist; gateway.api.deps.omitted_collection).")
    rag_top_k: int = Field(5, ge=1, le=100, description="Chunks retrieved on the RAG path.")
    rag_broad_top_k: int = Field(12, ge=1, le=200, description="Chunks retrieved in broad mode (after fallback_to_rag).")
    rag_prefetch_k: int = Field(50, ge=1, le=1000, description="Dense and keyword prefetch size before RRF fusion.")
    rag_rrf_k: int = Field(60, ge=1, le=1000, description="Reciprocal-rank-fusion constant k of hybrid retrieval.")
    rag_dense_weight: float = Field(1.0, ge=0, description="RRF weight of the dense (embedding) result list.")
    rag_keyword_weight: float = Field(1.0, ge=0, description="RRF weight of the keyword (BM25) result list.")
    rag_doc_weight: float = Field(0.0, ge=0, description="Weight of the document-level step (documents many candidates and title/path matches point to); 0 = off.")
    rag_resolve_documents: bool = Field(True, description="Resolve a question that names an organisation / period to the documents it names (document profiles) and retrieve inside them; false = always the whole collection.")
    rag_resolve_max_docs: int = Field(4, ge=1, le=50, description="Most documents a document resolution may hold; a question naming more is searched over the whole collection.")
    rag_page_weight: float = Field(1.0, ge=0.0, le=10.0, description="RRF weight of the page list inside resolved documents (chunks of the pages whose title names the statement the question asks for or implies: rag/statements.json; 'balance sheet', 'capital expenditure' → cash-flow statement), in units of the similarity lists that ran (1.0 = as much as dense + keyword together); 0 = off.")
    rag_expand_queries: bool = Field(True, description="Add field-vocabulary phrases to the keyword query (rag/expansions.json: financial statement and line-item names, e.g. capital expenditure → purchases of property, plant and equipment).")
    rag_fusion: Literal["client", "server"] = Field("client", description="client = dense and keyword queries fused in-process with weights (gives confidence features); server = one Qdrant RRF query.")
    rag_answer_floor: float = Field(0.2, ge=0, le=1, description="Extractive RAG answers below this confidence say \"not found\".")
    timeout_embed_s: float = Field(2.0, gt=0, description="Timeout of embedding one question, seconds (then keyword-only, flagged).")
    timeout_search_s: float = Field(2.0, gt=0, description="Timeout of each index query (dense, keyword, hybrid), seconds.")
    router_rule: Literal["fitted", "threshold"] = Field("fitted", description="auto mode's escalation rule: fitted = the logistic rule `loopgate calibrate --router` fitted from eval runs of both paths (gateway/routing/routing.json or LOOPGATE_ROUTER_MODEL_PATH; the threshold rule when no model file exists); threshold = confidence threshold + question signals.")
    router_model_path: str = Field("", description="A fitted router model (JSON from `loopgate calibrate --router`); empty = the packaged gateway/routing/routing.json.")
    confidence_threshold: float = Field(0.5, ge=0, le=1, description="RAG confidence below this escalates to the LoopAgent.")
    escalate_on_reference: bool = Field(True, description="Escalate questions naming a section/page/clause (第X条, page 5, section 3.2).")
    escalate_on_comparison: bool = Field(True, description="Escalate comparison questions (compare, difference, vs, 区别, 比较).")
    escalate_on_multipart: bool = Field(True, description="Escalate questions with several sub-questions or distinct entities.")
    escalate_min_parts: int = Field(2, ge=2, le=10, description="Sub-questions / distinct entities that count as multi-part.")

    # --- LoopAgent budgets ---------------------------------------------------------------
    loop_max_loops: int = Field(6, ge=1, le=10, description="LoopAgent turns per question (each up to 3 tool calls).")
    loop_token_budget: int = Field(12000, ge=500, description="LLM tokens one LoopAgent run may spend.")
    loop_min_coverage: float = Field(0.4, ge=0, le=1, description="Offline reading policy: share of the question's key-term weight a unit must cover to be cited; the loop answers when the best-ranked unit covers it or another covers it by 0.15 more, else \"not found\".")
    loop_deadline_s: float = Field(20.0, gt=0, description="Wall-clock budget of one LoopAgent run, seconds.")
    loop_directory_scan: bool = Field(True, description="Offline LoopAgent (and the line-reading protocol's offline pass): scan the directory of the top candidate documents and read the sections it picks after the RAG candidates; false = search and read only.")

    # --- document directory (built at ingest) -----------------------------------------------
    directory: Literal["off", "extractive", "llm"] = Field("extractive", description="Directory entries (title, one-line summary, key terms per chunk) written at ingest: off = none stored (built on first scan), extractive = heading path, lead sentence and key terms, llm = written by the configured LLM, cached by chunk content hash (extractive when it fails or no LLM is set).")
    directory_llm_batch: int = Field(8, ge=1, le=64, description="Chunks per LLM call when LOOPGATE_DIRECTORY=llm.")
    directory_llm_timeout_s: float = Field(300.0, gt=0, description="Timeout of one LLM directory batch, seconds; then the batch keeps extractive entries and the ingest goes on.")

    # --- timeouts (enforced in one place: gateway.routing.router) --------------------------------
    request_deadline_s: float = Field(30.0, gt=0, description="Whole-request deadline, seconds; past it a degraded answer is returned.")
    timeout_retrieve_s: float = Field(5.0, gt=0, description="Timeout of one retrieval (embed + hybrid search), seconds.")
    timeout_tool_s: float = Field(5.0, gt=0, description="Timeout of one LoopAgent tool call (search, read, outline …), seconds.")
    timeout_cache_s: float = Field(0.5, gt=0, description="Timeout of one answer-cache or route-log operation, seconds.")
    timeout_health_s: float = Field(2.0, gt=0, description="Timeout of each /readyz probe (Qdrant, Redis, LLM), seconds.")
    redis_retry_s: float = Field(15.0, gt=0, description="After Redis fails, seconds before it is tried again (meanwhile: no cache).")
    llm_retry_s: float = Field(15.0, gt=0, description="Cool-down of the LLM circuit breaker: seconds the LLM stays marked down (extractive RAG, offline LoopAgent, flagged llm_unavailable) before one half-open probe call.")
    llm_breaker_failures: int = Field(3, ge=1, le=100, description="Consecutive failed LLM calls (timeout, HTTP 5xx/429/401/403/404, unreachable, a reply that does not validate; not HTTP 400/413/422, which refuse one request) that mark the LLM down (circuit breaker open).")
    llm_deadline_reserve_s: float = Field(1.0, ge=0, description="Seconds of the request deadline no LLM call may use: kept for the answer without the LLM (extractive / offline LoopAgent) when the LLM call fails at the deadline.")

    # --- answer cache and route log --------------------------------------------------------
    cache_ttl_s: int = Field(86400, ge=1, description="Answer-cache entry lifetime, seconds.")
    cache_max_entries: int = Field(10000, ge=1, description="Entries of the in-process LRU cache (no Redis).")
    cache_near_entries: int = Field(2048, ge=0, le=1_000_000, description="Entries of the in-process near-cache in front of the answer cache (repeated questions served without a Redis round trip; valid only at the corpus version the store held them, so exact); 0 = off.")
    routelog_max_records: int = Field(10000, ge=10, description="Route records kept (Redis stream cap / ring buffer size).")
    cache_negative_ttl_s: int = Field(3600, ge=1, description="Lifetime of a cached \"not found\" answer, seconds (any ingest retires it sooner).")
    cache_version_scope: Literal["corpus", "document"] = Field("corpus", description="corpus = any ingest retires every cached answer of the collection; document = found answers are retired only when a document they cite changes or is deleted (not-found answers still by corpus version).")
    redis_key_prefix: str = Field("loopgate:", min_length=1, description="Prefix of every Redis key (answer cache, route-log stream).")
    session_ttl_s: int = Field(86400, ge=1, description="Lifetime of a conversation's session memory after its last turn, seconds (Redis key TTL; sliding).")
    session_max_tokens: int = Field(2000, ge=200, le=100000, description="Bound of one session's memory in estimated tokens (window + summary + fact cards + retrieval state).")
    session_window_turns: int = Field(4, ge=1, le=50, description="Recent turns a session memory keeps verbatim; older ones are folded into its summary.")
    decompose: bool = Field(True, description="Split multi-part and comparison questions into sub-questions answered concurrently, each with its own citations (gateway.routing.decompose).")
    decompose_max_parts: int = Field(4, ge=2, le=8, description="Most sub-questions of one question that are answered; the parts after them are listed as not answered (flag parts_over_limit).")
    conflict_check: bool = Field(True, description="Look for cited and retrieved passages of different documents that give different values for the same thing; list both with source and date, prefer the newer (gateway.routing.conflict).")
    cross_language: bool = Field(True, description="Add a question's key terms in the documents' language (CC-CEDICT, kept only when the collection holds them) when it is asked in the other language.")
    stats_max_records: int = Field(2000, ge=10, le=10000, description="Most recent route records /v1/stats and the dashboard aggregate.")

    # --- HTTP server and security -------------------------------------------------------------
    host: str = Field("127.0.0.1", description="Address `loopgate serve` binds.")
    port: int = Field(8000, ge=1, le=65535, description="Port `loopgate serve` binds.")
    environment: Literal["dev", "prod"] = Field("dev", description="In `prod`, placeholder API keys are refused at start-up.")
    api_keys: dict[str, list[str]] = Field(default_factory=dict, description='JSON map of API key → allowed collections (["*"] = all); empty = no authentication.')
    max_body_bytes: int = Field(1_048_576, ge=1024, description="Largest JSON request body, bytes (413 above).")
    max_upload_bytes: int = Field(52_428_800, ge=1024, description="Largest upload request (all its files together), bytes (413 above).")
    ingest_drain_s: float = Field(4.0, ge=0, le=30, description="On shutdown (SIGTERM), seconds of draining: the running ingest file gets half of it to finish, then is cancelled between two write batches (rolled back), or abandoned after the other half (rolled back at the next start); its job, like every queued one, runs after the restart.")
    ingest_held_wait_s: float = Field(600.0, ge=0, le=86400, description="How long, seconds, an upload job waits for a collection that another LoopGate process holds (a `loopgate ingest` writing it): the job stays queued and is tried again after 2, 4, 8 … 30 s; then it fails saying so (0: fail at once). The uploaded files are kept either way and are ingested at the next start.")
    allow_anonymous: bool = Field(False, description="Let `loopgate serve` bind a non-loopback address with no API keys (anyone can query, upload and delete); false = it refuses to start.")
    admin_keys: list[str] = Field(default_factory=list, description='JSON list of admin API keys (a key not also in api_keys may use every collection). With api_keys set, only an admin key reads /metrics, /docs, /openapi.json, /v1/stats (the dashboard\'s data), the dashboard page itself (the browser asks: any user name, the key as password) and every caller\'s route records; other keys see only their own questions in /v1/routes.')
    upload_extensions: list[str] = Field(default_factory=lambda: [".pdf", ".md", ".markdown", ".txt", ".docx", ".html", ".htm"], description="File types accepted by POST /v1/documents.")

    # --- migration from an existing RAG service (gateway.migration; docs/migration.md) ----
    migration_modes: dict[str, str] = Field(default_factory=dict, description='JSON map collection → migration mode: proxy, shadow, canary[:N] (N % to LoopGate) or gateway.')
    migration_default_mode: str = Field("gateway", description="Migration mode of collections not named in migration_modes.")
    migration_canary_percent: float = Field(10.0, ge=0, le=100, description="Share of questions (%) a canary collection sends to LoopGate when its mode gives no :N.")
    migration_canary_key: Literal["user", "question"] = Field("user", description="What the canary split hashes: the caller id (falling back to the question) or always the normalised question.")
    migration_shadow_timeout_s: float = Field(30.0, gt=0, description="Deadline of one background (shadow) LoopGate run, seconds.")
    migration_shadow_max_concurrency: int = Field(4, ge=1, description="Shadow runs in flight per process; beyond it shadow runs are skipped (counted), never queued.")
    legacy_rag_url: str = Field("", description="URL of the existing RAG service; empty = none (only the gateway mode is possible).")
    legacy_rag_method: Literal["POST", "GET"] = Field("POST", description="HTTP method for the existing RAG service (GET sends the body template as query parameters).")
    legacy_rag_body: str = Field('{"question": "{question}"}', description="JSON body template; string values may hold {question}, {collection}, {user}, {trace_id}.")
    legacy_rag_headers: dict[str, str] = Field(default_factory=dict, description="JSON map of extra request headers for the existing RAG service.")
    legacy_rag_api_key: SecretStr | None = Field(None, description="Bearer token sent to the existing RAG service (Authorization header).")
    legacy_rag_answer_path: str = Field("answer", description="JMESPath to the answer text in the existing service's JSON reply.")
    legacy_rag_sources_path: str = Field("sources", description="JMESPath to the list of sources in the reply; empty = it gives none.")
    legacy_rag_source_fields: dict[str, str] = Field(default_factory=lambda: {"path": "path", "page": "page", "quote": "text"}, description="JSON map path/page/quote/score/chunk_id → JMESPath within one source item.")
    legacy_rag_found_path: str = Field("", description="JMESPath to a true/false \"found\" flag in the reply; empty = found when the answer is not blank.")
    legacy_rag_timeout_s: float = Field(10.0, gt=0, description="Whole-call deadline for the existing RAG service, seconds.")
    existing_collections: dict[str, dict[str, str | int]] = Field(default_factory=dict, description="JSON map collection → payload mapping of a Qdrant collection built by another pipeline (read-only; see docs/migration.md).")

    @field_validator("data_dir", "embed_model_path", mode="before")
    @classmethod
    def _blank_path_is_default(cls, value: object, info: ValidationInfo) -> object:
        """A blank folder (``LOOPGATE_EMBED_MODEL_PATH=``, an unset compose variable) is the
        default — no model folder, the user data folder — not ``Path("")``, which is the
        working or settings-file folder."""
        if isinstance(value, str) and not value.strip():
            return _default_data_dir() if info.field_name == "data_dir" else None
        return value

    @field_validator("llm_base_url", "qdrant_url", "legacy_rag_url")
    @classmethod
    def _http_url_or_empty(cls, value: str) -> str:
        """An http(s) URL with a host, or empty (pydantic's ``AnyHttpUrl``): a hostile-input
        trial's ``LOOPGATE_LLM_BASE_URL=not-a-url`` passed and failed only at the first call."""
        if value.strip():
            try:
                _HTTP_URL.validate_python(value.strip())
            except ValidationError:
                raise ValueError(f"{value!r} is not an http(s) URL (e.g. http://127.0.0.1:8080/v1)"
                                 ) from None
        return value.strip()

    @field_validator("upload_extensions")
    @classmethod
    def _dotted_extensions(cls, value: list[str]) -> list[str]:
        """Each accepted type is a dotted file extension, compared in lower case: a break-it
        trial's ``["exe", ".MD"]`` was taken as is and the 415 then listed ``exe``."""
        bad = [e for e in value if not re.fullmatch(r"\.[A-Za-z0-9][A-Za-z0-9._-]{0,15}", e)]
        if bad:
            raise ValueError(f"not a file extension: {', '.join(map(repr, bad))} "
                             '(write them dotted, e.g. [".pdf", ".md"])')
        return [e.lower() for e in value]

    @field_validator("migration_default_mode")
    @classmethod
    def _known_default_mode(cls, value: str) -> str:
        """Refuse unknown migration modes at start-up."""
        if not _MIGRATION_MODE.match(value.strip().lower()):
            raise ValueError(f"unknown migration mode {value!r}: "
                             "use proxy, shadow, canary[:N] or gateway")
        return value.strip().lower()

    @field_validator("migration_modes")
    @classmethod
    def _known_modes(cls, value: dict[str, str]) -> dict[str, str]:
        """Refuse unknown migration modes and canary percentages outside 0..100."""
        out = {}
        for collection, mode in value.items():
            mode = mode.strip().lower()
            m = _MIGRATION_MODE.match(mode)
            if not m or (m.group(1) and not 0 <= float(m.group(1)) <= 100):
                raise ValueError(f"collection {collection!r}: bad migration mode {mode!r} "
                                 "(proxy, shadow, canary[:N], gateway)")
            out[collection] = mode
        return out

    @field_validator("legacy_rag_body")
    @classmethod
    def _body_is_json_object(cls, value: str) -> str:
        """The legacy body template must be a JSON object."""
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"legacy_rag_body is not JSON: {exc}") from None
        if not isinstance(parsed, dict):
            raise ValueError("legacy_rag_body must be a JSON object")
        return value

    @field_validator("api_keys")
    @classmethod
    def _no_blank_keys(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        """Refuse empty keys and keys that allow no collection."""
        for key, cols in value.items():
            if len(key.strip()) < 8:
                raise ValueError("every API key needs at least 8 characters")
            if not cols:
                raise ValueError("every API key needs at least one allowed collection (or \"*\")")
        return value

    @model_validator(mode="after")
    def _no_placeholders_in_prod(self) -> Settings:
        """Outside ``dev``, refuse placeholder secrets (template ``core/config.py``)."""
        if self.environment == "prod":
            for key in self.api_keys:
                if key.lower() in _PLACEHOLDERS or key.lower().startswith("changeme"):
                    raise ValueError(f"placeholder API key {key!r} is not allowed in prod")
        return self
