"""The answer-cache hit's short way through the HTTP stack (issue 19 item 2).

A repeated question answered from the in-process near-cache costs the router a few hundred
microseconds; the framework around it (route matching, FastAPI's request handling and
dependency solving, four middleware layers wrapping ``receive`` and ``send``) cost about as much
again (``benchmarks/cache_hit_cpu.py``). :class:`QueryFastPath` sits just inside the access log
and answers ``POST /v1/query`` itself when the near-cache holds the question as it will be
looked up (as asked, or with the cross-language key terms the conversation stage already knows
for it: ``ConversationService.known_question``) — through
the very same code as the route (:func:`gateway.api.routes.query.parse_query_request`,
``to_query_input``, ``Router.ask``, ``result_body``), so the answer, the route record, the
metrics and the access-log line are the route's. Everything else, and every request that fails
on the way (a bad body, a missing or wrong API key, an unknown collection, a path that cannot
run), is handed to the full stack with its body replayed, so errors keep their one shape; nothing
has been recorded by then (``Router.ask`` records only when it returns).

Not taken: another method or path, a body over ``max_body_bytes`` (the full stack answers 413),
a migration configured (its dispatcher decides who answers), an ``X-LoopGate-User`` header over
200 characters (the route refuses it), a request with a session, history,
filters, ``use_cache=false`` or a ``current_date`` (not served from the cache anyway).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.api.access_log import ROUTE_STATE_KEY
from gateway.api.deps import principal_of
from gateway.api.responses import OrjsonResponse, result_body
from gateway.api.routes.query import parse_query_request, to_query_input

__all__ = ["QueryFastPath"]

PATH = "/v1/query"


class QueryFastPath:
    """ASGI middleware: near-cache hits of ``POST /v1/query`` skip the framework (module
    docstring). ``taken`` counts the requests it answered (tests, benchmarks).

    :param app: the rest of the stack.
    :param max_body_bytes: the body limit (``Settings.max_body_bytes``); a longer body goes to
        the full stack, whose ``BodySizeLimit`` refuses it.
    """

    def __init__(self, app: ASGIApp, *, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.taken = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST" or scope.get("path") != PATH:
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size, more = 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client left: let the stack see it
                await self.app(scope, _replay(chunks, True, receive, message), send)
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = bool(message.get("more_body", False))
            if size > self.max_body_bytes:  # the full stack refuses it (413)
                await self.app(scope, _replay(chunks, more, receive), send)
                return
        raw = b"".join(chunks)
        if not await self._answer(scope, raw, send):
            await self.app(scope, _replay([raw], False, receive), send)

    async def _answer(self, scope: Scope, raw: bytes, send: Send) -> bool:
        """Answer a near-cache hit; False (nothing sent) when the full stack must answer."""
        request = Request(scope)
        try:
            components = request.app.state.components
            cache = components.cache
            near = getattr(cache, "near", None)
            user = request.headers.get("x-loopgate-user")
            if near is None or components.migration is not None or (user and len(user) > 200):
                return False  # the route's own checks and the dispatcher decide these
            req = parse_query_request(raw)
            if req.session_id is not None or req.history:
                return False
            q = await to_query_input(components, await principal_of(request), req)
            # the key the router will look up: the question with the cross-language terms the
            # conversation stage adds, when it knows them without I/O (else as asked)
            known = getattr(components.router.conversation, "known_question", None)
            key = known(q) if known is not None else q.question
            if not q.cacheable() or not near.holds(q.collection, q.mode, key):
                return False
            result = await components.router.ask(q)
        except Exception:  # noqa: BLE001 - the full stack answers it, errors in their shape
            return False
        scope.setdefault("state", {})[ROUTE_STATE_KEY] = result.route  # the access log's
        self.taken += 1
        await OrjsonResponse(result_body(result))(scope, _no_receive, send)
        return True


async def _no_receive() -> Message:  # the body was read already
    return {"type": "http.disconnect"}


def _replay(chunks: list[bytes], more: bool, receive: Receive,
            taken: Message | None = None) -> Receive:
    """A ``receive`` that gives the body read so far as one message (``more``: the body goes
    on), then the message already taken from ``receive`` (``taken``), then ``receive``'s own."""
    pending: list[Message] = [{"type": "http.request", "body": b"".join(chunks),
                               "more_body": more}]
    if taken is not None:
        pending.append(taken)

    async def replay() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay
