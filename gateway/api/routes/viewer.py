"""The citation viewer behind the Ask page: ``POST /v1/view/citation`` (where a quote sits on
its source) and ``GET /v1/view/page.png`` (a PDF page rendered to PNG).

Only documents in a collection's catalogue are read, from the absolute ``source`` path the
catalogue recorded at ingest (uploads: ``<data_dir>/uploads/<collection>/``), and only when the
file's bytes still hash to the cited ``doc_id`` (409 otherwise: re-ingest). Rendering and the
quote boxes are ``corpus.page_view``; rendered pages are kept in a bounded in-memory LRU
(``cachetools.LRUCache`` sized in bytes, :data:`PAGE_CACHE_BYTES`). Both routes need the same
API key as ``/v1/query`` for the collection; the page sends it from ``fetch`` (an ``<img>``
cannot), so the PNG is loaded as a blob.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
from pathlib import Path
from typing import Annotated, Any

from cachetools import LRUCache
from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.responses import Response

from corpus.catalogue import Catalogue
from corpus.citations import find_quote, locate
from corpus.page_view import quote_boxes, render_page, source_lines
from gateway.api.deps import (
    ComponentsDep,
    Principal,
    PrincipalDep,
    omitted_collection,
    read_collection,
)
from gateway.api.query_params import strict_query
from gateway.api.responses import OrjsonResponse
from gateway.errors import BadRequest, Conflict, NotFound, ServiceUnavailable
from gateway.wiring import Components

__all__ = ["PAGE_CACHE_BYTES", "CitationRef", "ViewRequest", "router"]

router = APIRouter(prefix="/v1/view", tags=["viewer"])

#: Bytes of rendered PNG pages kept in memory (LRU; a 110-dpi text page is 100-300 kB).
PAGE_CACHE_BYTES = 64 * 1024 * 1024
#: Lines shown around the quoted ones of a Markdown / text source.
CONTEXT_LINES = 40

_pages: LRUCache[tuple[str, int, int], bytes] = LRUCache(PAGE_CACHE_BYTES, getsizeof=len)
_verified: LRUCache[tuple[str, int, int], str] = LRUCache(4096)
_lock = threading.Lock()


class CitationRef(BaseModel):
    """The fields of a citation the viewer needs (as ``/v1/query`` returns them)."""

    model_config = ConfigDict(extra="ignore")
    doc_id: str = Field(min_length=8, max_length=64)
    chunk_id: str = ""
    path: str = ""
    page: int = Field(1, ge=1)
    page_end: int = Field(0, ge=0)
    lines: list[Annotated[int, Field(ge=1)]] = Field(default_factory=lambda: [1, 1],
                                                     min_length=2, max_length=2)
    quote: str = Field("", max_length=20000)

    @field_validator("lines")
    @classmethod
    def _first_to_last(cls, v: list[int]) -> list[int]:
        """``[first, last]``, 1-based, first ≤ last: ``[-5, 100000000]`` was shown as marked
        (hostile-input trial)."""
        if v[0] > v[1]:
            raise ValueError(f"lines must be [first, last] with first <= last, not {v}")
        return v


class ViewRequest(BaseModel):
    """A citation to show; ``page`` picks the page of a quote crossing a page break."""

    model_config = ConfigDict(extra="forbid")
    collection: str | None = None
    citation: CitationRef
    page: int | None = Field(None, ge=1)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _source(components: Components, collection: str, doc_id: str) -> tuple[Path, Any]:
    """The cited document's file and catalogue entry, checked against ``doc_id``."""
    entry = Catalogue(components.store).find(collection, doc_id)
    if entry is None or entry.info.doc_id != doc_id:
        raise NotFound(f"collection {collection!r} has no document {doc_id[:16]!r} (any more)")
    if not entry.source:
        raise NotFound(f"{entry.info.path}: the catalogue does not record where the file is")
    path = Path(entry.source)
    try:
        st = path.stat()
    except OSError:
        raise NotFound(f"{entry.info.path}: the source file is gone; re-ingest it") from None
    key = (str(path), st.st_mtime_ns, st.st_size)
    with _lock:
        digest = _verified.get(key)
    if digest is None:
        digest = _sha256(path)
        with _lock:
            _verified[key] = digest
    if digest != doc_id:
        raise Conflict(f"{entry.info.path} changed since it was ingested; re-ingest it to view")
    return path, entry


async def _collection(components: Components, principal: Principal, name: str | None) -> str:
    if components.store is None:
        raise ServiceUnavailable("the chunk store is unavailable")
    return await read_collection(components, principal, name)


def _marks(lines: list[str], first: int, last: int, quote: str) -> dict[int, list[int]]:
    """``{line number: [start, end]}`` character spans of ``quote`` in lines ``first..last``."""
    first, last = max(first, 1), min(last, len(lines))
    text = "\n".join(lines[first - 1:last])
    span = find_quote(text, quote) if quote else None
    if span is None:
        return {}
    out: dict[int, list[int]] = {}
    offset = 0
    for n in range(first, last + 1):
        line = lines[n - 1]
        a, b = max(span[0] - offset, 0), min(span[1] - offset, len(line))
        if a < b:
            out[n] = [a, b]
        offset += len(line) + 1
    return out


def _text_view(path: Path, cit: CitationRef) -> dict[str, Any]:
    lines = source_lines(path)
    first, last = cit.lines[0], max(cit.lines)
    lo, hi = max(first - CONTEXT_LINES, 1), min(last + CONTEXT_LINES, len(lines))
    marks = _marks(lines, first, last, cit.quote)
    return {"kind": "text", "first_line": lo, "total_lines": len(lines), "marked": [first, last],
            "exact": bool(marks),
            "lines": [{"n": n, "text": lines[n - 1], "mark": marks.get(n)}
                      for n in range(lo, hi + 1)]}


def _chunk_view(components: Components, collection: str, cit: CitationRef) -> dict[str, Any]:
    found = components.store.get_chunks(collection, [cit.chunk_id]) if cit.chunk_id else []
    if not found:
        raise NotFound("the cited chunk is not in the collection (any more)")
    chunk = found[0]
    lines = chunk.text.split("\n")
    marks = _marks(lines, 1, len(lines), cit.quote)
    hit = sorted(marks) or [1]
    # numbered as the citation numbers them (corpus.citations.locate: from the chunk's first
    # line in the document's text), not from 1: a new-user trial's HTML citation said line 7
    # and the viewer marked line 3
    starts = [0]
    for t in lines[:-1]:
        starts.append(starts[-1] + len(t) + 1)
    number = [locate(chunk, o, o + 1)[1] for o in starts]  # chunk line i -> document line
    return {"kind": "chunk", "first_line": number[0], "total_lines": number[-1],
            "marked": [number[hit[0] - 1], number[hit[-1] - 1]], "exact": bool(marks),
            "lines": [{"n": number[n - 1], "text": t, "mark": marks.get(n)}
                      for n, t in enumerate(lines, 1)]}


def _pdf_view(path: Path, collection: str, cit: CitationRef, page: int) -> dict[str, Any]:
    lines = (cit.lines[0], cit.lines[1])
    qb = quote_boxes(path, page, lines, cit.quote, cited_page=cit.page, page_end=cit.page_end)
    return {"kind": "pdf", "page": page, "page_width": qb.page_width,
            "page_height": qb.page_height, "boxes": qb.boxes, "box_lines": qb.lines,
            "exact": qb.exact,
            "pages": sorted({cit.page, cit.page_end or cit.page}),
            "image": f"/v1/view/page.png?collection={collection}&doc={cit.doc_id}&page={page}"}


@router.post("/citation")
async def view_citation(req: ViewRequest, components: ComponentsDep,
                        principal: PrincipalDep) -> OrjsonResponse:
    """Where a citation's quote sits: page boxes (PDF) or marked source lines (text)."""
    collection = await _collection(components, principal, req.collection)
    cit = req.citation
    path, entry = await asyncio.to_thread(_source, components, collection, cit.doc_id)
    media = entry.info.media_type
    try:
        if media == "pdf":
            page = req.page or cit.page
            if not 1 <= page <= max(entry.info.page_count, 1):
                raise BadRequest(f"page {page} is outside 1..{entry.info.page_count}")
            body = await asyncio.to_thread(_pdf_view, path, collection, cit, page)
        elif media in ("markdown", "text"):
            body = await asyncio.to_thread(_text_view, path, cit)
        else:
            body = await asyncio.to_thread(_chunk_view, components, collection, cit)
    except ValueError as exc:
        raise BadRequest(str(exc)) from None
    return OrjsonResponse({"path": entry.info.path, "doc_id": cit.doc_id, "media_type": media,
                           "page_count": entry.info.page_count, "quote": cit.quote, **body})


@router.get("/page.png", response_class=Response,
            dependencies=[Depends(strict_query("doc", "page", "collection", "dpi"))])
async def page_png(
    components: ComponentsDep, principal: PrincipalDep,
    doc: Annotated[str, Query(min_length=8, max_length=64)],
    page: Annotated[int, Query(ge=1)],
    collection: Annotated[str | None, Query()] = None,
    dpi: Annotated[int, Query(ge=48, le=200)] = 110,
) -> Response:
    """A page of a PDF document rendered to PNG (cached in memory, bounded)."""
    name = await _collection(components, principal, collection)
    path, entry = await asyncio.to_thread(_source, components, name, doc)
    if entry.info.media_type != "pdf":
        raise BadRequest(f"{entry.info.path} is not a PDF: it has no pages to render")
    if not 1 <= page <= entry.info.page_count:
        raise BadRequest(f"page {page} is outside 1..{entry.info.page_count}")
    key = (doc, page, dpi)
    with _lock:
        png = _pages.get(key)
    if png is None:
        png = (await asyncio.to_thread(render_page, path, page, dpi=dpi)).png
        with _lock:
            if len(png) <= PAGE_CACHE_BYTES:
                _pages[key] = png
    return Response(png, media_type="image/png",
                    headers={"Cache-Control": "private, max-age=3600"})


@router.get("/collections")
async def list_collections(components: ComponentsDep,
                           principal: PrincipalDep) -> OrjsonResponse:
    """Collections this caller may ask, and the one the Ask page preselects: ``{"default": str,
    "collections": [str, …]}`` (sorted). ``default`` is the collection ``/v1/query`` asks when
    the request names none (:func:`gateway.api.deps.omitted_collection`), so the page and the
    API agree: after the quickstart's ingest into ``demo``, both ask ``demo``.

    :raises ServiceUnavailable: the chunk store cannot be read (503).
    """
    names = await components.known_collections()
    if names is None:
        raise ServiceUnavailable("the chunk store is unavailable")
    allowed = sorted(n for n in names if principal.allows(n))
    return OrjsonResponse({"default": await omitted_collection(components, principal),
                           "collections": allowed})
