"""``POST /v1/documents`` (upload, background ingest), ``GET /v1/documents`` (catalogue and
jobs), ``GET /v1/documents/jobs/{job_id}`` (progress), ``DELETE /v1/documents/{doc}``.

Uploaded files are saved under ``<data_dir>/uploads/<collection>/<file name>`` and ingested
with that folder as root, so a document's path is its file name and uploading a file of the
same name again replaces it. A file name is a single path component: names holding a path
(``../x``, ``a/b``, ``C:\\x``), hidden names, control characters or over 200 characters are
refused with 400, and the resolved destination is checked to lie inside the uploads folder.
"""

from __future__ import annotations

import asyncio
import os
import unicodedata
import uuid
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Query, UploadFile

from gateway.api.deps import (
    ComponentsDep,
    OrjsonResponse,
    PrincipalDep,
    SettingsDep,
    check_collection_name,
)
from gateway.errors import (
    BadRequest,
    NotFound,
    PayloadTooLarge,
    ServiceUnavailable,
    UnsupportedType,
)

__all__ = ["router", "safe_file_name", "upload_dir"]

router = APIRouter(prefix="/v1/documents", tags=["documents"])


def safe_file_name(raw: str | None) -> str:
    """The upload's file name if it is one safe path component. :raises BadRequest: otherwise."""
    name = unicodedata.normalize("NFC", (raw or "").strip())
    if not name:
        raise BadRequest("the uploaded file has no name")
    if "/" in name or "\\" in name or name in (".", "..") or ".." in name.split("."):
        raise BadRequest(f"file name {raw!r} must be a plain name without a path")
    if name.startswith(".") or any(unicodedata.category(ch)[0] == "C" for ch in name):
        raise BadRequest(f"file name {raw!r} is hidden or holds control characters")
    if len(name) > 200 or ":" in name:
        raise BadRequest(f"file name {raw!r} is too long or holds ':'")
    return name


def upload_dir(data_dir: Path, collection: str) -> Path:
    """``<data_dir>/uploads/<collection>`` (created)."""
    folder = (data_dir / "uploads" / check_collection_name(collection)).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


async def _save(upload: UploadFile, dest: Path, limit: int) -> int:
    """Stream ``upload`` to ``dest`` (via a temporary file, then an atomic rename)."""
    tmp = dest.with_name(f".{dest.name}.{uuid.uuid4().hex[:8]}.part")
    size = 0
    try:
        with tmp.open("wb") as fh:
            while block := await upload.read(1 << 20):
                size += len(block)
                if size > limit:
                    raise PayloadTooLarge(
                        f"{upload.filename!r} is over the upload limit of {limit} bytes"
                    )
                await asyncio.to_thread(fh.write, block)
        if size == 0:
            raise BadRequest(f"{upload.filename!r} is empty (zero bytes)")
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)
    return size


def _require_store(components: Any) -> None:
    if components.store is None:
        raise ServiceUnavailable(f"the chunk store is unavailable: {components.store_error}")


@router.post("", status_code=202)
async def upload_documents(
    files: Annotated[list[UploadFile], File(description="Documents to ingest.")],
    components: ComponentsDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    collection: Annotated[str | None, Form()] = None,
) -> OrjsonResponse:
    """Upload documents; they are ingested in the background (progress: the job URL)."""
    _require_store(components)
    name = check_collection_name(collection or settings.default_collection)
    principal.check(name)
    allowed = {e.lower() for e in settings.upload_extensions}
    names = [safe_file_name(f.filename) for f in files]
    if len(set(names)) != len(names):
        raise BadRequest("two uploaded files have the same name")
    for n in names:
        if Path(n).suffix.lower() not in allowed:
            raise UnsupportedType(
                f"{n!r}: unsupported file type; accepted: {', '.join(sorted(allowed))}"
            )
    folder = upload_dir(settings.data_dir, name)
    saved: list[Path] = []
    for upload, n in zip(files, names, strict=True):
        dest = (folder / n).resolve()
        if dest.parent != folder:
            raise BadRequest(f"file name {n!r} escapes the upload folder")
        await _save(upload, dest, settings.max_upload_bytes)
        saved.append(dest)
    job = components.ingest.submit(name, saved, folder)
    return OrjsonResponse(
        {**job.to_dict(), "status_url": f"/v1/documents/jobs/{job.job_id}"}, status_code=202
    )


@router.get("/jobs/{job_id}")
async def ingest_job(job_id: str, components: ComponentsDep, principal: PrincipalDep) -> OrjsonResponse:
    """Progress and report of an ingest job."""
    job = components.ingest.get(job_id)
    if job is None:
        raise NotFound(f"unknown ingest job {job_id!r}")
    principal.check(job.collection)
    return OrjsonResponse(job.to_dict())


@router.get("")
async def list_documents(
    components: ComponentsDep, settings: SettingsDep, principal: PrincipalDep,
    collection: Annotated[str | None, Query()] = None,
) -> OrjsonResponse:
    """Documents of a collection, its corpus version and its recent ingest jobs."""
    _require_store(components)
    name = check_collection_name(collection or settings.default_collection)
    principal.check(name)
    from corpus.catalogue import Catalogue

    docs = await asyncio.to_thread(Catalogue(components.store).documents, name)
    version = await asyncio.to_thread(components.corpus_version, name)
    return OrjsonResponse({
        "collection": name, "corpus_version": version,
        "documents": [d.__dict__ if hasattr(d, "__dict__") else _info(d) for d in docs],
        "jobs": [j.to_dict() for j in components.ingest.recent(name)],
    })


def _info(d: Any) -> dict[str, Any]:
    from dataclasses import asdict

    return asdict(d)


@router.delete("/{doc:path}")
async def delete_document(
    doc: str, components: ComponentsDep, settings: SettingsDep, principal: PrincipalDep,
    collection: Annotated[str | None, Query()] = None,
) -> OrjsonResponse:
    """Delete a document (by path, file name or doc_id) from the collection."""
    _require_store(components)
    name = check_collection_name(collection or settings.default_collection)
    principal.check(name)
    removed = await components.ingest.delete(name, doc)
    if removed is None:
        raise NotFound(f"collection {name!r} has no document {doc!r}")
    folder = upload_dir(settings.data_dir, name)
    candidate = (folder / str(removed.get("path", ""))).resolve()
    if candidate.parent == folder and candidate.is_file():
        candidate.unlink()
    return OrjsonResponse({"collection": name, "removed": removed})
