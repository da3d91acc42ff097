"""``GET /dashboard``: the ops dashboard, a static page with no build step (``gateway/dashboard/``).

The page's script fetches ``/v1/stats`` and ``/v1/routes`` and draws with plotly.js, served here
from the installed ``plotly`` Python package (``plotly/package_data/plotly.min.js``) so the
dashboard works offline, with no CDN. With API keys configured the page and its files answer
only an admin key (``gateway.api.admin_guard``: the browser's own sign-in prompt, HTTP Basic with
the key as password); the JSON routes they call take the key the page asks for.
"""

from __future__ import annotations

import importlib.resources
from functools import lru_cache
from pathlib import Path

from fastapi import APIRouter
from starlette.responses import FileResponse, RedirectResponse

from gateway.errors import NotFound

__all__ = ["DASHBOARD_DIR", "plotly_js_path", "router"]

DASHBOARD_DIR = Path(__file__).resolve().parents[2] / "dashboard"
_ASSETS = {"app.js": "text/javascript", "style.css": "text/css"}

router = APIRouter(prefix="/dashboard", tags=["dashboard"])


@lru_cache(maxsize=1)
def plotly_js_path() -> Path:
    """Path of the bundled ``plotly.min.js``.

    :raises NotFound: when the installed plotly package has no bundled plotly.js.
    """
    path = Path(str(importlib.resources.files("plotly") / "package_data" / "plotly.min.js"))
    if not path.is_file():
        raise NotFound("plotly.min.js is not bundled with the installed plotly package")
    return path


@router.get("", include_in_schema=False)
async def dashboard_page() -> FileResponse:
    """The dashboard page."""
    return FileResponse(
        DASHBOARD_DIR / "index.html", media_type="text/html", headers={"Cache-Control": "no-cache"}
    )


@router.get("/", include_in_schema=False)
async def dashboard_slash() -> RedirectResponse:
    """``/dashboard/`` → ``/dashboard``."""
    return RedirectResponse("/dashboard", status_code=308)


@router.get("/plotly.min.js", include_in_schema=False)
async def plotly_js() -> FileResponse:
    """plotly.js from the installed plotly package (no CDN)."""
    return FileResponse(
        plotly_js_path(),
        media_type="text/javascript",
        headers={"Cache-Control": "public, max-age=86400"},
    )


@router.get("/assets/{name}", include_in_schema=False)
async def dashboard_asset(name: str) -> FileResponse:
    """The page's script and style sheet (a fixed list: no path ever reaches the disk)."""
    media_type = _ASSETS.get(name)
    if media_type is None:
        raise NotFound(f"no dashboard asset {name!r}")
    return FileResponse(
        DASHBOARD_DIR / name, media_type=media_type, headers={"Cache-Control": "no-cache"}
    )
