"""Checks of an upload (``POST /v1/documents``) before anything is stored: which collection it
names, and which of its file names are documents a folder ingest wrote (an upload must not
replace them)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from fastapi import Request

from corpus.catalogue import Catalogue
from corpus.errors import StoreError
from gateway.errors import BadRequest

if TYPE_CHECKING:
    from corpus.qdrant_store import QdrantChunkStore

__all__ = ["ingested_elsewhere", "upload_collection"]


async def upload_collection(request: Request, form_value: str | None) -> str | None:
    """The upload's collection from its form field and query parameter (see the route).

    :raises BadRequest: an unknown field or parameter, a repeated one, or two that differ.
    """
    form = await request.form()  # parsed already for the route: the cached form
    unknown = sorted({k for k in form if k not in ("files", "collection")}
                     | {k for k in request.query_params if k != "collection"})
    if unknown:
        raise BadRequest(f"unknown field(s) {', '.join(map(repr, unknown))}: an upload takes "
                         "'files' and 'collection'")
    values = [*form.getlist("collection"), *request.query_params.getlist("collection")]
    given = {str(v) for v in values}
    if len(values) > 1 and len(given) > 1:
        raise BadRequest(f"two collections given ({', '.join(map(repr, sorted(given)))}): "
                         "name one")
    return str(values[0]) if values else form_value


def ingested_elsewhere(store: QdrantChunkStore, collection: str, folder: Path,
                        names: list[str]) -> dict[str, str]:
    """``{name: source}`` of the ``names`` that are already documents of ``collection`` read
    from outside its upload ``folder`` (``loopgate ingest`` of a folder): an upload of that
    name would replace them (a new user lost a folder's ``mission.md`` that way). An entry
    whose source is unknown (written before sources were kept), a missing collection or a
    store that cannot be read now (the job then reports what happens): none."""
    catalogue, out = Catalogue(store), {}
    try:
        for n in names:  # a record each: the upload's names, not the whole collection
            e = catalogue.entry(collection, n)
            if e is not None and e.source and not Path(e.source).resolve().is_relative_to(
                    folder.resolve()):
                out[n] = e.source
    except StoreError:
        return {}
    return out
