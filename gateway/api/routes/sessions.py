"""``GET /v1/sessions/{session_id}`` (the memory, for inspection) and ``DELETE
/v1/sessions/{session_id}`` (forget it). Sessions are scoped to the caller's API key: another
key's session of the same id is neither shown nor deleted (404).

With Redis down both work on the in-process memory the queries then use
(``gateway.conversation.store``), flagged ``"local": true``: GET shows the in-process copy (404
when there is none: a query would start a new conversation too), DELETE forgets the session in
process and deletes its Redis copy when Redis answers again (200 with ``local``, whether or not
a copy was seen here)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from gateway.api.deps import ComponentsDep, PrincipalDep
from gateway.api.responses import OrjsonResponse
from gateway.conversation.memory import memory_tokens
from gateway.conversation.store import SessionStore
from gateway.errors import NotFound, ServiceUnavailable
from gateway.wiring import Components

__all__ = ["router"]

router = APIRouter(prefix="/v1/sessions", tags=["sessions"])

SessionPath = Annotated[str, Path(min_length=1, max_length=200,
                                  pattern=r"^[A-Za-z0-9][A-Za-z0-9._:\-]*$")]


def _store(components: Components) -> SessionStore:
    store = components.sessions
    if store is None:
        raise ServiceUnavailable("session memory is not available in this process")
    return store


@router.get("/{session_id}", response_class=OrjsonResponse)
async def get_session(session_id: SessionPath, components: ComponentsDep,
                      principal: PrincipalDep) -> OrjsonResponse:
    """The memory of one of the caller's sessions (turns, summary, fact cards, retrieval state)."""
    store = _store(components)
    loaded = await store.load(principal.scope, session_id)
    if loaded.memory is None:
        raise NotFound(f"unknown session {session_id!r}")
    body = loaded.memory.to_dict()
    body["memory_tokens"] = memory_tokens(loaded.memory)
    body["ttl_s"] = await store.ttl(principal.scope, session_id, loaded)
    body["local"] = loaded.local
    return OrjsonResponse(body)


@router.delete("/{session_id}", response_class=OrjsonResponse)
async def delete_session(session_id: SessionPath, components: ComponentsDep,
                         principal: PrincipalDep) -> OrjsonResponse:
    """Forget one of the caller's sessions (404 when it does not exist)."""
    store = _store(components)
    done = await store.delete(principal.scope, session_id)
    if done.local:  # Redis down: forgotten here, its Redis copy when Redis answers again
        return OrjsonResponse({"deleted": session_id, "local": True})
    if not done.existed:
        raise NotFound(f"unknown session {session_id!r}")
    return OrjsonResponse({"deleted": session_id})
