"""FastAPI dependency aliases (template ``api/deps.py``): ``SettingsDep``, ``ComponentsDep``,
``RouterDep``, ``CacheDep``, ``PrincipalDep`` (the orjson response class every route uses is
``gateway.api.responses.OrjsonResponse``).

Every dependency is ``async def`` on purpose: FastAPI runs plain ``def`` dependencies in a
worker thread, which cost a thread hop each (measured: 6 hops made a cache hit 10x slower).

Components live on ``app.state.components`` (built by ``gateway.main``'s lifespan); the
dependencies only read them. Authentication: when ``Settings.api_keys`` is non-empty every
``/v1`` request needs ``Authorization: Bearer KEY``; the key's allowed collections are checked
with :meth:`Principal.check` (``"*"`` allows all).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Request

from corpus._store_common import _NAME_RE as _STORE_NAME_RE
from corpus._store_common import check_collection_name as _store_check
from corpus.errors import StoreError
from gateway.errors import BadRequest, Forbidden, NotFound, Unauthorized
from gateway.observe import CALLER
from gateway.routing import Router
from gateway.settings import Settings
from gateway.wiring import Components

__all__ = [
    "COLLECTION_PATTERN",
    "CacheDep",
    "ComponentsDep",
    "Principal",
    "PrincipalDep",
    "RouterDep",
    "SettingsDep",
    "check_collection_name",
    "omitted_collection",
    "principal_of",
    "read_collection",
    "require_collection",
    "require_filter_documents",
]

#: The store's collection-name rule (``corpus._store_common``): one rule for every route.
COLLECTION_PATTERN = _STORE_NAME_RE.pattern


async def _components(request: Request) -> Components:
    return request.app.state.components  # type: ignore[no-any-return]


async def _settings(request: Request) -> Settings:
    return request.app.state.components.settings  # type: ignore[no-any-return]


async def _router(request: Request) -> Router:
    return request.app.state.components.router  # type: ignore[no-any-return]


async def _cache(request: Request) -> Any:
    return request.app.state.components.cache


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling: ``key_id`` (a short prefix of the key, for logs), allowed collections,
    ``scope`` and ``admin`` (an admin key: reads every caller's route records)."""

    key_id: str
    collections: frozenset[str]
    #: hash of the whole API key: the scope of the caller's sessions and route records
    scope: str = "anonymous"
    admin: bool = False

    def allows(self, collection: str) -> bool:
        """True when this caller may use ``collection``."""
        return "*" in self.collections or collection in self.collections

    def check(self, collection: str) -> None:
        """:raises Forbidden: when the caller may not use ``collection``."""
        if not self.allows(collection):
            raise Forbidden(f"this API key may not use collection {collection!r}")


async def principal_of(request: Request) -> Principal:
    """The caller of ``request`` (checks ``Authorization: Bearer`` when keys are configured;
    its scope is then the request's ``gateway.observe.CALLER``, kept in its route record).

    :raises Unauthorized: keys are configured and the request has none, or an unknown one.
    """
    settings: Settings = request.app.state.components.settings
    if not settings.api_keys and not settings.admin_keys:
        return Principal("anonymous", frozenset({"*"}), admin=True)
    who = _principal(settings, request.headers.get("authorization", ""))
    CALLER.set(who.scope)
    return who


def _principal(settings: Settings, header: str) -> Principal:
    """The principal of an ``Authorization`` header. :raises Unauthorized: none or unknown."""
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("missing API key: send `Authorization: Bearer KEY`")
    token = token.strip()
    for key, cols in settings.api_keys.items():
        if hmac.compare_digest(key.encode(), token.encode()):
            admin = any(hmac.compare_digest(a.encode(), token.encode())
                        for a in settings.admin_keys)
            return Principal(key[:6] + "…", frozenset(cols), _scope(key), admin)
    for key in settings.admin_keys:  # an admin key not listed in api_keys may use everything
        if hmac.compare_digest(key.encode(), token.encode()):
            return Principal(key[:6] + "…", frozenset({"*"}), _scope(key), True)
    raise Unauthorized("unknown API key")


def _scope(key: str) -> str:
    """The session scope of an API key (sha256 prefix: keys that share a prefix never share
    sessions)."""
    return "key:" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def check_collection_name(name: str) -> str:
    """``name`` if the store accepts it as a collection name (the store's own rule, so a name
    passing here never fails later in an ingest job). :raises BadRequest: otherwise."""
    try:
        return _store_check(name)
    except StoreError as exc:
        raise BadRequest(str(exc), param="collection") from None


async def omitted_collection(components: Components, principal: Principal) -> str:
    """The collection a read that names none asks (query, stream, chat, document listing,
    viewer; the Ask page preselects it): ``LOOPGATE_DEFAULT_COLLECTION`` when it exists and the
    caller may use it; else the only collection holding documents that the caller may use;
    else ``LOOPGATE_DEFAULT_COLLECTION`` as before. With a migration configured (its modes are
    per collection) or the store unreadable, always ``LOOPGATE_DEFAULT_COLLECTION``."""
    configured = components.settings.default_collection
    if components.migration is not None:
        return configured
    known = await components.known_collections()
    if known is None or (configured in known and principal.allows(configured)):
        return configured
    with_documents = await components.collections_with_documents()
    usable = sorted(n for n in with_documents or () if principal.allows(n))
    return usable[0] if len(usable) == 1 else configured


async def require_collection(components: Components, name: str) -> None:
    """:raises NotFound: ``name`` is not an existing collection (the default collection always
    exists; an unreachable store is not judged here)."""
    if name == components.settings.default_collection:
        return
    known = await components.known_collections()
    if known is not None and name not in known:
        raise NotFound(f"unknown collection {name!r}; known: {', '.join(sorted(known)) or 'none'}")


async def read_collection(components: Components, principal: Principal, name: str | None) -> str:
    """The collection a read asks (document listing, viewer): ``name``, else
    :func:`omitted_collection`'s; returned once its name is valid, the caller may use it and it
    exists.

    :raises BadRequest: an invalid collection name. :raises Forbidden: the caller may not use it.
    :raises NotFound: it does not exist (:func:`require_collection`).
    """
    collection = check_collection_name(  # "" is a name given (and refused), not an omission
        name if name is not None else await omitted_collection(components, principal))
    principal.check(collection)
    await require_collection(components, collection)
    return collection


async def require_filter_documents(components: Components, collection: str,
                                   doc_ids: Sequence[str], paths: Sequence[str]) -> None:
    """:raises NotFound: a ``doc_ids`` / ``paths`` filter names a document the collection does
    not hold (a break-it trial's mistyped ``"paths": ["nope.md"]`` was answered "Not found: the
    documents retrieved do not answer this confidently", as if the documents did not know).
    An unreachable store is not judged here (the query path flags it)."""
    if (not doc_ids and not paths) or components.store is None:
        return
    from corpus.catalogue import Catalogue

    catalogue = Catalogue(components.store)

    def missing() -> list[str]:
        # a path is one record read; doc ids need the collection's whole list
        out = [f"path {p!r}" for p in paths if catalogue.entry(collection, p) is None]
        if doc_ids:
            ids = {e.info.doc_id for e in catalogue.entries(collection).values()}
            out += [f"doc_id {d!r}" for d in doc_ids if d not in ids]
        return out

    try:
        unknown = await asyncio.to_thread(missing)
    except Exception:  # noqa: BLE001 - the store's own failure is reported by the query path
        return
    if unknown:
        raise NotFound(f"filters name {len(unknown)} document(s) not in collection "
                       f"{collection!r}: {', '.join(unknown[:5])}"
                       + (" …" if len(unknown) > 5 else "")
                       + " (GET /v1/documents lists its paths and doc_ids)")


SettingsDep = Annotated[Settings, Depends(_settings)]
ComponentsDep = Annotated["Components", Depends(_components)]
RouterDep = Annotated["Router", Depends(_router)]
CacheDep = Annotated[Any, Depends(_cache)]
PrincipalDep = Annotated[Principal, Depends(principal_of)]
