"""``GET /``: the Ask page, a static page with no build step (``gateway/ask/``).

The page asks ``POST /v1/query/stream`` and opens citations through ``/v1/view`` (see
``gateway.api.routes.viewer``). The static files hold no data, so they need no API key; the JSON
routes they call do (the page asks for a key once and keeps it in ``sessionStorage``).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from starlette.responses import FileResponse

from gateway.errors import NotFound

__all__ = ["ASK_DIR", "router"]

ASK_DIR = Path(__file__).resolve().parents[2] / "ask"
_ASSETS = {"app.js": "text/javascript", "style.css": "text/css"}

router = APIRouter(tags=["ask"])


@router.get("/", include_in_schema=False)
async def ask_page() -> FileResponse:
    """The Ask page."""
    return FileResponse(ASK_DIR / "index.html", media_type="text/html",
                        headers={"Cache-Control": "no-cache"})


@router.get("/ask/{name}", include_in_schema=False)
async def ask_asset(name: str) -> FileResponse:
    """The page's script and style sheet (a fixed list: no path ever reaches the disk)."""
    media_type = _ASSETS.get(name)
    if media_type is None:
        raise NotFound(f"no Ask page asset {name!r}")
    return FileResponse(ASK_DIR / name, media_type=media_type,
                        headers={"Cache-Control": "no-cache"})
