"""OpenAI-compatible ``POST /v1/chat/completions`` facade and ``GET /v1/models``.

Model names pick the router mode: ``loopgate-auto``, ``loopgate-rag``, ``loopgate-loop``. The last
user message is the question; earlier turns are the history used to resolve follow-ups. The
collection comes from the extra body field ``collection`` (OpenAI SDKs: ``extra_body``), else
``gateway.api.deps.omitted_collection`` (as ``/v1/query``). Only the most recent ``HISTORY_LIMIT`` turns before the question are
kept (a long conversation is answered, not refused). The answer's citations appear twice: as
numbered footnotes in the message text and as the structured field ``citations`` (plus
``loopgate`` with ``found``, ``cached`` and the route record). ``stream: true`` answers with ``chat.completion.chunk``
server-sent events ending in ``data: [DONE]``; a failure after the stream has started is sent
the way OpenAI streams errors, as a ``data: {"error": {...}}`` event followed by ``data: [DONE]``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
    field_validator,
)
from sse_starlette import EventSourceResponse

from corpus.citations import citation_location
from gateway.api.deps import ComponentsDep, PrincipalDep, RouterDep
from gateway.api.responses import OrjsonResponse
from gateway.api.routes.query import HISTORY_LIMIT, QueryRequest, SessionId, to_query_input
from gateway.api.text import Utf8Json, Utf8Str
from gateway.errors import BadRequest, NotFound, error_body, status_of, validation_message
from gateway.routing import QueryResult
from gateway.routing.types import QUESTION_MAX_CHARS

__all__ = ["MODELS", "ChatRequest", "format_footnotes", "router"]

router = APIRouter(prefix="/v1", tags=["openai-compatible"])
log = logging.getLogger("loopgate.gateway")

MODELS = {"loopgate-auto": "auto", "loopgate-rag": "rag", "loopgate-loop": "loop"}


class ChatMessage(BaseModel):
    """An OpenAI chat message; ``content`` may be a string or a list of content parts."""

    model_config = ConfigDict(extra="allow")
    # the roles of the chat-completions API (a break-it trial's "hacker" role was answered 200)
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: Annotated[str | list[dict[str, Any]] | None, Utf8Json] = None

    @field_validator("content")
    @classmethod
    def _text_parts(cls, v: Any) -> Any:
        """A ``text`` content part's ``text`` is a string: ``{"type": "text", "text": 5}`` was
        answered as the question "5" (hostile-input trial)."""
        for i, part in enumerate(v if isinstance(v, list) else ()):
            if part.get("type") == "text" and not isinstance(part.get("text"), str):
                raise ValueError(f"content part {i} of type 'text' needs a string 'text'")
        return v


class ChatRequest(BaseModel):
    """The subset of the chat-completions request LoopGate reads, and the fields that would
    change what comes back, which :meth:`check_supported` refuses when set to what LoopGate
    cannot honour; other fields (``temperature``, ``max_tokens``, ``stop``, ``seed``, ``user``
    …) are accepted and ignored."""

    model_config = ConfigDict(extra="allow")
    model: Utf8Str = "loopgate-auto"
    messages: list[ChatMessage] = Field(min_length=1)
    stream: StrictBool = False  # JSON true / false only: "yes" is no boolean
    collection: Utf8Str | None = None
    session_id: SessionId | None = None
    n: StrictInt | None = None
    tools: list[dict[str, Any]] | None = None
    tool_choice: str | dict[str, Any] | None = None
    functions: list[dict[str, Any]] | None = None
    function_call: str | dict[str, Any] | None = None
    response_format: dict[str, Any] | None = None
    logprobs: StrictBool | None = None
    top_logprobs: StrictInt | None = None

    def check_supported(self) -> None:
        """Refuse what LoopGate cannot honour, as OpenAI-compatible servers without it do
        (vLLM without tool parsing, llama.cpp without ``--jinja``: a 400, not a silent plain
        answer): more than one choice, tools or functions to call, a forced tool choice, JSON
        output, log-probabilities. Empty tool lists and ``"none"`` / ``"auto"`` choices with
        no tool ask for nothing and pass.

        :raises BadRequest: naming the field (``param``) and what to send instead.
        """
        def no(param: str, why: str) -> BadRequest:
            return BadRequest(f"{param} {why} is not supported: {_INSTEAD[param]}", param=param)

        if self.n is not None and self.n != 1:
            raise no("n", f"= {self.n}")
        if self.tools:
            raise no("tools", f"({len(self.tools)} given)")
        if self.tool_choice not in (None, "none", "auto"):
            raise no("tool_choice", f"= {_short(self.tool_choice)}")
        if self.functions:
            raise no("functions", f"({len(self.functions)} given)")
        if self.function_call not in (None, "none", "auto"):
            raise no("function_call", f"= {_short(self.function_call)}")
        if self.response_format is not None and self.response_format.get("type") != "text":
            raise no("response_format", f"type {_short(self.response_format.get('type'))}")
        if self.logprobs:
            raise no("logprobs", "= true")
        if self.top_logprobs:
            raise no("top_logprobs", f"= {self.top_logprobs}")


_ONE_ANSWER = "LoopGate answers from your documents with one message and its citations"
_INSTEAD = {
    "n": f"{_ONE_ANSWER} (choices[0]); send n = 1 or leave it out",
    "tools": f"{_ONE_ANSWER} and never calls a client's tools; leave tools out",
    "tool_choice": f"{_ONE_ANSWER} and never calls a tool; send \"none\" or leave it out",
    "functions": f"{_ONE_ANSWER} and never calls a client's functions; leave functions out",
    "function_call": f"{_ONE_ANSWER} and never calls a function; send \"none\" or leave it out",
    "response_format": f"{_ONE_ANSWER} as text; send {{\"type\": \"text\"}} or leave it out",
    "logprobs": "answers are extracted or checked against the documents, not sampled token by "
                "token, so there are no log-probabilities; leave logprobs out",
    "top_logprobs": "there are no log-probabilities (see logprobs); leave top_logprobs out",
}


def _short(value: object) -> str:
    """``value`` as JSON, cut to 60 characters (for an error message)."""
    text = orjson.dumps(value).decode()
    return text if len(text) <= 60 else text[:59] + "…"


def _text(content: str | list[dict[str, Any]] | None) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(str(p.get("text", "")) for p in content if p.get("type") == "text")


def format_footnotes(answer: str, citations: list[dict[str, Any]]) -> str:
    """The answer followed by numbered footnotes ``[n] path › section, p.P | lines a-b: "quote"``
    (across a page break ``p.8 line 132 – p.9 line 2``, with printed page labels ``p. 3 (PDF
    page 5)``: :func:`corpus.citations.citation_location`,
    as the CLI prints them)."""
    if not citations:
        return answer
    marks = "".join(f"[{i}]" for i in range(1, len(citations) + 1))
    lines = [f"{answer} {marks}", ""]
    for i, c in enumerate(citations, 1):
        section = " › ".join(c.get("section_path") or [])
        where = f"{c.get('path', '')}" + (f" › {section}" if section else "")
        where += ", " + citation_location(c)
        quote = " ".join(str(c.get("quote", "")).split())
        quote = quote if len(quote) <= 200 else quote[:197] + "…"
        lines.append(f"[{i}] {where}: \"{quote}\"")
    return "\n".join(lines)


def _to_query(req: ChatRequest) -> QueryRequest:
    mode = MODELS.get(req.model)
    if mode is None:
        raise NotFound(f"unknown model {req.model!r}; use one of {', '.join(MODELS)}",
                       param="model")
    users = [i for i, m in enumerate(req.messages) if m.role == "user" and _text(m.content).strip()]
    if not users:
        raise BadRequest("no user message with text: the last user message is the question")
    last = users[-1]
    history = [{"role": m.role if m.role in ("user", "assistant") else "system",
                "content": _text(m.content)[:QUESTION_MAX_CHARS]}
               for m in req.messages[:last] if m.role in ("user", "assistant")]
    try:
        return QueryRequest.model_validate({
            # not cut: a question over the limit is a 400, as on /v1/query (a tester's long
            # message lost its actual question, at the end, to a silent cut at 4,000 characters)
            "question": _text(req.messages[last].content), "mode": mode,
            "collection": req.collection, "history": history[-HISTORY_LIMIT:],
            "session_id": req.session_id or derived_session(req.messages)})
    except ValidationError as exc:
        # as the chat request names it (a break-it trial: "question: …", no chat field)
        locs = [_chat_loc(tuple(e.get("loc", ())), last) for e in exc.errors()]
        errors = [{**e, "loc": loc} for e, loc in zip(exc.errors(), locs, strict=True)]
        where = ".".join(str(p) for p in locs[0]) if locs else ""
        raise BadRequest(validation_message(errors), param=where or None) from None


def _chat_loc(loc: tuple[Any, ...], last: int) -> tuple[Any, ...]:
    """Where a field of the query built from a chat request sits in that request."""
    return {"question": ("messages", last, "content"), "history": ("messages",)}.get(
        str(loc[0]) if loc else "", loc)


def derived_session(messages: list[ChatMessage]) -> str:
    """The session of a conversation whose client sends the whole history: a hash of its
    system messages and first user message (stable while the conversation grows; the memory
    is also checked against the previous user message, ``QueryInput.expect_previous``, so a
    new conversation opening with the same words starts afresh)."""
    first = next((_text(m.content) for m in messages if m.role == "user"), "")
    system = [_text(m.content) for m in messages if m.role == "system"]
    text = "\x1f".join([*system, first])  # surrogatepass: never a 500 (messages are checked)
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return f"chat-{digest}"


def _previous_user(req: ChatRequest) -> str:
    users = [_text(m.content) for m in req.messages if m.role == "user" and _text(m.content).strip()]
    return users[-2][:QUESTION_MAX_CHARS].strip() if len(users) >= 2 else ""


def _completion(req: ChatRequest, body: dict[str, Any]) -> dict[str, Any]:
    route = body["route"]
    content = format_footnotes(body["answer"], body["citations"])
    return {
        "id": f"chatcmpl-{route.get('trace_id', '')}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": req.model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 0, "completion_tokens": int(route.get("tokens") or 0),
                  "total_tokens": int(route.get("tokens") or 0)},
        "citations": body["citations"],
        "loopgate": {"found": body["found"], "cached": body["cached"], "route": route,
                     "related": body.get("related") or [],
                     "rewritten_question": route.get("rewritten_question")},
    }


def _stream_error(exc: Exception) -> dict[str, Any]:
    """The ``{"error": {...}}`` event of a failure inside a stream (status and code as the
    non-streaming response would have them)."""
    status, code = status_of(exc)
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    if code == "internal":
        log.error("streamed chat completion failed", exc_info=exc)
        message = "internal error (see the gateway log)"
    body = error_body(status, code, message)
    body["error"]["status"] = status
    return body


async def _answer_chunks(req: ChatRequest, result: QueryResult
                         ) -> AsyncIterator[dict[str, str]]:
    """The ``chat.completion.chunk`` events of an answer (without the final ``[DONE]``)."""
    body = {**result.to_dict(), "cached": result.cached, "route": result.route}
    full = _completion(req, body)
    base = {"id": full["id"], "object": "chat.completion.chunk", "created": full["created"],
            "model": req.model}

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, str]:
        obj = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
        return {"data": orjson.dumps(obj).decode()}

    yield chunk({"role": "assistant", "content": ""})
    text = full["choices"][0]["message"]["content"]
    for i in range(0, len(text), 64):
        yield chunk({"content": text[i:i + 64]})
    yield chunk({}, "stop", citations=full["citations"], loopgate=full["loopgate"])


@router.get("/models", response_class=OrjsonResponse)
async def list_models() -> OrjsonResponse:
    """List the model names of the chat-completions facade."""
    data = [{"id": m, "object": "model", "created": 0, "owned_by": "loopgate"} for m in MODELS]
    return OrjsonResponse({"object": "list", "data": data})


@router.post("/chat/completions", response_model=None)
async def chat_completions(
    req: ChatRequest, router_: RouterDep, components: ComponentsDep, principal: PrincipalDep
) -> OrjsonResponse | EventSourceResponse:
    """OpenAI-compatible chat completion answered by the LoopGate router."""
    req.check_supported()
    q = await to_query_input(components, principal, _to_query(req))
    if not req.session_id:  # derived: the memory must end with this conversation's last turn
        q = dataclasses.replace(q, expect_previous=_previous_user(req))
    if not req.stream:
        result = await router_.ask(q)
        body = {**result.to_dict(), "cached": result.cached, "route": result.route}
        return OrjsonResponse(_completion(req, body))

    async def chunks() -> AsyncIterator[dict[str, str]]:
        try:
            async for event in _answer_chunks(req, await router_.ask(q)):
                yield event
        except Exception as exc:  # noqa: BLE001 - the 200 is sent: report it in the stream
            yield {"data": orjson.dumps(_stream_error(exc)).decode()}
        yield {"data": "[DONE]"}

    return EventSourceResponse(chunks(), ping=15)
