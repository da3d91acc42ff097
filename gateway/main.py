"""Assemble the FastAPI app: ``create_app(settings) -> FastAPI``.

The lifespan builds the components once (``gateway.wiring.build_components``, in a worker
thread because opening the store and loading the embedding model block) and closes them on
shutdown; routes read them through ``gateway.api.deps``. Nothing else happens here.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi_offline import FastAPIOffline

from gateway.api import ROUTERS, AccessLog, AdminGuard, BodySizeLimit, HeadAsGet, StaticGZip
from gateway.api.error_handlers import install_error_handlers
from gateway.api.query_fast import QueryFastPath
from gateway.api.responses import OrjsonResponse
from gateway.conversation import cedict
from gateway.settings import Settings, get_settings
from gateway.wiring import build_components

__all__ = ["create_app"]

log = logging.getLogger("loopgate.gateway")


async def _freeze_after_warm_up() -> None:
    """Move what the start-up's background warm-up built (the CC-CEDICT index) out of the
    collector's generations too, once it is built (nothing when no build runs or it failed).
    Polls (no worker thread that a shutdown would have to wait for)."""
    while cedict.is_building():  # noqa: ASYNC110 - a plain thread builds it; no Event to await
        await asyncio.sleep(0.5)
    if cedict.is_ready():
        gc.collect(1)  # the young garbage only: a full collection is the stall this avoids
        gc.freeze()


def create_app(settings: Settings | None = None) -> FastAPI:
    """The LoopGate HTTP app for ``settings`` (default: :func:`get_settings`)."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        components = await asyncio.to_thread(build_components, settings)
        app.state.components = components
        if components.ingest is not None:  # resume durable ingest jobs (issue 20 item 3)
            await components.ingest.start()
        # Everything loaded so far (models, dictionaries, the app) lives as long as the process:
        # move it out of the collector's generations so a full collection does not walk it in
        # the middle of a request (``gc.freeze``, Python docs; was the p99 of cache hits).
        gc.collect()
        gc.freeze()
        # the CC-CEDICT index is built in a thread after this (~1 s, 190,000 objects): freeze
        # again once it is there, or every full collection walks it (37-60 ms of CPU measured
        # in one hit's reply, the 1-connection p99 of issue 19)
        refreeze = (asyncio.create_task(_freeze_after_warm_up()) if cedict.is_building()
                    else None)
        try:
            yield
        finally:
            if refreeze is not None:
                refreeze.cancel()
            gc.unfreeze()  # collectable again once the app is gone (tests build many apps)
            await components.aclose()

    # /docs and /redoc load Swagger UI / ReDoc from this package, not from a CDN: a gateway on
    # a network without internet showed a blank page (new-user trial)
    app = FastAPIOffline(
        title="LoopGate",
        summary="Document question answering: hybrid RAG fast path, deep-reading LoopAgent.",
        version="0.1.0",
        lifespan=lifespan,
        default_response_class=OrjsonResponse,
    )
    app.state.settings = settings
    install_error_handlers(app)
    for router in ROUTERS:
        app.include_router(router)
    app.add_middleware(AdminGuard, settings=settings)  # /metrics, /docs … need an admin key
    app.add_middleware(BodySizeLimit, max_body_bytes=settings.max_body_bytes,
                       max_upload_bytes=settings.max_upload_bytes)
    app.add_middleware(StaticGZip)  # static pages gzipped (plotly.js 4.8 → 1.47 MB)
    # near-cache hits of POST /v1/query skip the framework below (issue 19 item 2)
    app.add_middleware(QueryFastPath, max_body_bytes=settings.max_body_bytes)
    app.add_middleware(HeadAsGet)  # HEAD runs the GET route, no body (FastAPI answers 405)
    app.add_middleware(AccessLog)  # one JSON line per request on loopgate.access (serve: INFO)
    return app
