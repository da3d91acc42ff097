"""``POST /v1/query`` and ``POST /v1/query/stream`` (server-sent events).

The request models forbid fields they do not know (``QueryRequest``, ``QueryFilters``, ``Turn``):
a misspelt ``filter`` or ``filters.path`` is a 400 naming the field, never an unfiltered search.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import re
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, Request
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StringConstraints,
    ValidationError,
    field_validator,
)
from sse_starlette import EventSourceResponse
from starlette.background import BackgroundTask

from corpus.types import SearchFilter
from gateway.api.deps import (
    ComponentsDep,
    Principal,
    PrincipalDep,
    RouterDep,
    check_collection_name,
    omitted_collection,
    principal_of,
    require_collection,
    require_filter_documents,
)
from gateway.api.responses import OrjsonResponse, result_body
from gateway.api.text import Utf8Str, empty_question
from gateway.errors import BadRequest, Conflict, client_message, status_of, validation_message
from gateway.routing import QueryInput, QueryResult
from gateway.routing.types import QUESTION_MAX_CHARS
from gateway.wiring import Components

__all__ = [
    "HISTORY_LIMIT",
    "QueryFilters",
    "QueryRequest",
    "QueryResponse",
    "SessionId",
    "Turn",
    "dispatch_migration",
    "router",
    "to_query_input",
]

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")  # current_date as written: YYYY-MM-DD

router = APIRouter(prefix="/v1/query", tags=["query"])

Text = Annotated[str, StringConstraints(max_length=QUESTION_MAX_CHARS)]
SessionId = Annotated[str, StringConstraints(min_length=1, max_length=200,
                                             pattern=r"^[A-Za-z0-9][A-Za-z0-9._:\-]*$")]
#: Most previous turns a request may carry (the chat facade keeps the most recent ones).
HISTORY_LIMIT = 50


class Turn(BaseModel):
    """One previous conversation turn."""

    model_config = ConfigDict(extra="forbid")
    role: Literal["user", "assistant", "system"]
    content: Text


class QueryFilters(BaseModel):
    """Restrict retrieval to documents (by id or path) and/or a section prefix."""

    model_config = ConfigDict(extra="forbid")
    # Utf8Str: a lone surrogate ("\ud800.md") is a 400 naming the field, not a store outage
    doc_ids: list[Utf8Str] = Field(default_factory=list, max_length=100)
    paths: list[Utf8Str] = Field(default_factory=list, max_length=100)
    section_prefix: list[Utf8Str] = Field(default_factory=list, max_length=10)


class QueryRequest(BaseModel):
    """A question for the gateway (unknown fields are refused)."""

    model_config = ConfigDict(extra="forbid")
    question: Text = Field(description="The question (any language); must not be empty.")
    collection: str | None = Field(None, description="Collection to ask; default: the setting "
                                   "when it exists, else the only collection with documents.")
    mode: Literal["auto", "rag", "loop"] = Field(
        "auto", description="auto routes; rag/loop force a path.")
    filters: QueryFilters | None = None
    history: list[Turn] = Field(default_factory=list, max_length=HISTORY_LIMIT,
                                description="Previous turns, oldest first.")
    # strict: a trial's "use_cache": "no" was read as false and answered 200
    use_cache: StrictBool = Field(True, description="False skips the answer cache (lookup and "
                                  "store); JSON true or false only.")
    session_id: SessionId | None = Field(
        None, description="Conversation id: the session memory (earlier turns, facts, what was "
        "read) rewrites a follow-up into a standalone question; scoped to the API key.")
    current_date: datetime.date | None = Field(
        None, description="Today's date (YYYY-MM-DD) told to the LoopAgent's LLM, for questions "
        "that assume one ('this year', 'the current handbook'); default: not stated.")

    @field_validator("current_date", mode="before")
    @classmethod
    def _date_text(cls, v: Any) -> Any:
        """A number is no date: pydantic reads ``0`` as 1970-01-01 (a trial's ``"current_date":
        0`` answered "1969-10-31")."""
        if isinstance(v, int | float):
            raise ValueError("current_date must be a date written YYYY-MM-DD, not a number")
        if isinstance(v, str) and not _ISO_DATE.fullmatch(v.strip()):
            # "20240101" was read as a Unix timestamp ("should have zero time"): a hostile-input
            # trial; only the written form is a date here
            raise ValueError(f"current_date must be a date written YYYY-MM-DD, not {v[:40]!r}")
        return v

    @field_validator("question")
    @classmethod
    def _not_empty(cls, v: str) -> str:
        if (why := empty_question(v)) is not None:  # blank, or only punctuation / invisible
            raise ValueError(why)
        return v.strip()


class QueryResponse(BaseModel):
    """The answer with verified citations, the route record and whether it came from the cache."""

    answer: str
    citations: list[dict[str, Any]]
    related: list[dict[str, Any]] = []
    found: bool
    cached: bool
    route: dict[str, Any]
    rewritten_question: str | None = None
    parts: list[dict[str, Any]] | None = None
    conflict: dict[str, Any] | None = None


async def to_query_input(
    components: Components, principal: Principal, req: QueryRequest
) -> QueryInput:
    """Validate collection access and existence, and build the router's input.

    :raises BadRequest: invalid collection name. :raises Forbidden: key may not use it.
    :raises NotFound: the collection does not exist (an omitted one is
        :func:`~gateway.api.deps.omitted_collection`, which is never refused here).
    """
    collection = check_collection_name(
        req.collection if req.collection is not None  # "": refused, not the default
        else await omitted_collection(components, principal))
    principal.check(collection)
    if collection in components.embedding_mismatch:
        raise Conflict(components.embedding_mismatch[collection])
    await require_collection(components, collection)
    flt = None
    if req.filters is not None:
        await require_filter_documents(components, collection, req.filters.doc_ids,
                                       req.filters.paths)
        flt = SearchFilter(tuple(req.filters.doc_ids), tuple(req.filters.paths),
                           tuple(req.filters.section_prefix))
    history = tuple({"role": t.role, "content": t.content} for t in req.history)
    today = req.current_date.isoformat() if req.current_date else None
    return QueryInput(req.question, collection, req.mode, flt, history, req.use_cache, today,
                      session_id=req.session_id, caller=getattr(principal, "scope", "anonymous"))


async def dispatch_migration(
    components: Components, q: QueryInput, ask: Callable[[], Awaitable[QueryResult]], *,
    user: str | None = None,
) -> OrjsonResponse | None:
    """Answer ``q`` under its collection's migration mode (issue 7: proxy / shadow / canary), or
    return ``None`` when migration is not configured (``Components.migration`` is ``None``).

    :param ask: zero-argument coroutine factory running LoopGate's own answer path.
    :param user: end-user id for the canary split (header ``X-LoopGate-User``).
    :returns: the response; legacy-served bodies carry ``sources`` (unverified) instead of
        citations, and every body carries a ``migration`` block (mode, served_by, fallback …).
    """
    dispatcher = components.migration
    if dispatcher is None:
        return None
    trace_id = f"mig-{uuid.uuid4().hex[:16]}"  # sent to the legacy service as {trace_id}
    outcome = await dispatcher.dispatch(
        q.question, q.collection, ask, user=user, trace_id=trace_id, defer_shadow=True
    )
    if outcome.served_by == "legacy":
        # the shadow run starts once the answer has been sent (Starlette background task)
        background = BackgroundTask(outcome.start_shadow) if outcome.start_shadow else None
        return OrjsonResponse(outcome.legacy_response(), background=background)
    body = result_body(outcome.loopgate)
    body["migration"] = outcome.info()
    return OrjsonResponse(body)


_BODY_DOC = {"requestBody": {"required": True, "content": {"application/json": {
    "schema": {"$ref": "#/components/schemas/QueryRequest"}}}}}


def parse_query_request(raw: bytes) -> QueryRequest:
    """Validate a JSON body as :class:`QueryRequest`. :raises BadRequest: with a clear message."""
    try:
        return QueryRequest.model_validate_json(raw)
    except ValidationError as exc:
        raise BadRequest(validation_message(exc.errors())) from None


@router.post("", response_model=QueryResponse, response_class=OrjsonResponse,
             openapi_extra=_BODY_DOC)
async def query(request: Request) -> OrjsonResponse:
    """Answer a question through the router (cache → RAG → LoopAgent)."""
    # The hot path: the body is validated here and the components read directly, not through
    # FastAPI's dependency and body machinery (which was over half of a cache hit's CPU time).
    # The body schema is documented through ``openapi_extra`` (QueryRequest, also used below).
    components = request.app.state.components
    router_ = components.router
    req = parse_query_request(await request.body())
    q = await to_query_input(components, await principal_of(request), req)
    # migration hook (issue 7): proxy / shadow / canary per collection; None = migration off
    user = request.headers.get("x-loopgate-user")
    if user is not None and len(user) > 200:
        raise BadRequest("X-LoopGate-User is longer than 200 characters")
    migrated = await dispatch_migration(components, q, lambda: router_.ask(q), user=user)
    if migrated is not None:
        return migrated
    result = await router_.ask(q)
    request.state.loopgate_route = result.route  # the access log's route and trace id
    return OrjsonResponse(result_body(result))


@router.post("/stream")
async def query_stream(
    req: QueryRequest, router_: RouterDep, components: ComponentsDep, principal: PrincipalDep,
    request: Request,
) -> EventSourceResponse:
    """Answer a question, streaming the route decision, each LoopAgent step and the answer."""
    q = await to_query_input(components, principal, req)
    queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

    async def on_event(event: dict[str, Any]) -> None:
        await queue.put(event)

    async def run() -> None:
        try:
            result = await router_.ask(q, on_event)
            request.state.loopgate_route = result.route  # the access log's route and trace id
        except Exception as exc:  # noqa: BLE001 - reported to the client as an error event
            status, code = status_of(exc)
            if code == "internal":
                logging.getLogger("loopgate.gateway").error("query stream failed", exc_info=exc)
            await queue.put({"type": "error", "status": status, "code": code,
                             "message": client_message(exc)})
        finally:
            await queue.put(None)

    async def events() -> AsyncIterator[dict[str, str]]:
        task = asyncio.create_task(run())
        try:
            while (event := await queue.get()) is not None:
                kind = str(event.get("type", "message"))
                yield {"event": kind, "data": orjson.dumps(event, default=str).decode()}
        finally:
            if not task.done():
                task.cancel()

    if not q.question:
        raise BadRequest("question is empty")
    return EventSourceResponse(events(), ping=15)
