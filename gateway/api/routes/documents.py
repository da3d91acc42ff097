"""``POST /v1/documents`` (upload, background ingest), ``GET /v1/documents`` (catalogue and
jobs), ``GET /v1/documents/jobs/{job_id}`` (progress), ``DELETE /v1/documents/{doc}``.

Uploaded files end up under ``<data_dir>/uploads/<collection>/<file name>`` and are ingested
with that folder as root, so a document's path is its file name and uploading a file of the
same name again replaces it. A file that cannot be ingested (empty, a type not accepted) is
reported ``failed`` with its code (``empty_file``, ``unsupported_type``) in the job's report and
the other files go on; a request none of whose files is left is refused (400; 415 when each is
of a type not accepted). A request's files are first saved in a staging folder of their own
(``<data_dir>/uploads/.staging/<id>/``); a refused request (a bad name, a name twice, over the
size limit, nothing to ingest) is answered without any change to the upload folder, and an
accepted one's files are moved into place by its ingest job, right before that job ingests them
(so concurrent uploads of one file name each ingest and report their own bytes). A file name
is a single path component: names holding a path (``../x``, ``a/b``, ``C:\\x``), hidden names,
control characters, over 200 characters or over 255 bytes in UTF-8 (the usual file-system
limit) are refused with 400, and the resolved destination is checked to lie inside the uploads
folder.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import unicodedata
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Query, Request, UploadFile

from corpus.catalogue import Catalogue
from corpus.ingest import FileResult
from corpus.parsers.pdf import warned_pages
from corpus.types import DocumentInfo
from gateway.api.deps import (
    ComponentsDep,
    PrincipalDep,
    SettingsDep,
    check_collection_name,
    read_collection,
    require_collection,
)
from gateway.api.query_params import strict_query
from gateway.api.responses import OrjsonResponse
from gateway.api.uploads import ingested_elsewhere, upload_collection
from gateway.errors import (
    BadRequest,
    Conflict,
    GatewayError,
    NotFound,
    PayloadTooLarge,
    ServiceUnavailable,
    UnsupportedType,
    scrub,
)
from gateway.ingest import fsync_dir, new_job_id
from gateway.wiring import Components

__all__ = ["MAX_NAME_BYTES", "router", "safe_file_name", "upload_dir"]

router = APIRouter(prefix="/v1/documents", tags=["documents"])

#: Longest file name in UTF-8 bytes (ext4, XFS, btrfs, APFS, NTFS: 255).
MAX_NAME_BYTES = 255


def safe_file_name(raw: str | None) -> str:
    """The upload's file name if it is one safe path component. :raises BadRequest: otherwise."""
    name = unicodedata.normalize("NFC", (raw or "").strip())
    if not name:
        raise BadRequest("the uploaded file has no name")
    if "/" in name or "\\" in name or name in (".", "..") or ".." in name.split("."):
        # not echoed: error messages are scrubbed of absolute paths, which would leave the
        # plain last component ("file name 'evil.md' must be a plain name")
        raise BadRequest(
            "a file name must be a plain name without a path: this one holds '/', '\\' "
            "or a '..' part"
        )
    if name.startswith(".") or any(unicodedata.category(ch)[0] == "C" for ch in name):
        raise BadRequest(f"file name {raw!r} is hidden or holds control characters")
    if ":" in name:
        raise BadRequest(f"file name {raw!r} holds ':'")
    size = len(name.encode("utf-8"))
    if len(name) > 200 or size > MAX_NAME_BYTES:
        raise BadRequest(
            f"file name {raw!r} is too long ({len(name)} characters, {size} bytes in UTF-8): "
            f"at most 200 characters and {MAX_NAME_BYTES} bytes"
        )
    return name


def upload_dir(data_dir: Path, collection: str, *, create: bool = True) -> Path:
    """``<data_dir>/uploads/<collection>`` (created unless ``create`` is false)."""
    folder = (data_dir / "uploads" / check_collection_name(collection)).resolve()
    if create:
        folder.mkdir(parents=True, exist_ok=True)
    return folder


async def _save(upload: UploadFile, dest: Path, used: int, limit: int) -> int:
    """Stream ``upload`` to ``dest``; ``used`` bytes of the request's ``limit`` are taken.

    :returns: the file's size in bytes (0: ``dest`` was removed again, the file is empty).
    :raises PayloadTooLarge: the request's files together pass ``limit``.
    """
    size = 0
    with dest.open("wb") as fh:
        while block := await upload.read(1 << 20):
            size += len(block)
            if used + size > limit:
                raise PayloadTooLarge(
                    f"{upload.filename!r}: the upload is over the limit of {limit} bytes "
                    "(LOOPGATE_MAX_UPLOAD_BYTES, all files of one request together)"
                )
            await asyncio.to_thread(fh.write, block)
        fh.flush()
        await asyncio.to_thread(os.fsync, fh.fileno())  # durable before the 202
    if size == 0:
        await asyncio.to_thread(dest.unlink)
    return size


def _refused(name: str, code: str, message: str) -> dict[str, Any]:
    """The job report entry of an uploaded file that is not ingested (``failed`` + code)."""
    return asdict(FileResult(name, "failed", error_code=code, error_message=message))


def _nothing_to_ingest(refused: list[dict[str, Any]]) -> GatewayError:
    """The 4xx of an upload none of whose files can be ingested: 415 when each is of a type
    not accepted, 409 when each would replace a document not uploaded, else 400; the message
    names every file."""
    why = "; ".join(f["error_message"] for f in refused)
    if all(f["error_code"] == "unsupported_type" for f in refused):
        return UnsupportedType(why)
    if all(f["error_code"] == "name_in_use" for f in refused):
        return Conflict(f"nothing to ingest: {why}")
    return BadRequest(f"nothing to ingest: {why}")


def _require_store(components: Components) -> None:
    if components.store is None:
        raise ServiceUnavailable(f"the chunk store is unavailable: {scrub(components.store_error)}")


@router.post("", status_code=202)
async def upload_documents(
    request: Request,
    files: Annotated[list[UploadFile], File(description="Documents to ingest.")],
    components: ComponentsDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    collection: Annotated[str | None, Form()] = None,
) -> OrjsonResponse:
    """Upload documents; they are ingested in the background (progress: the job URL). The
    collection is the form field ``collection`` or the query parameter of that name (as on the
    other document routes); another form field or query parameter, two values, or a form field
    and a query parameter that differ are a 400 (a tester's misspelt ``colection`` and
    ``?collection=`` went into the default collection without a word)."""
    collection = await upload_collection(request, collection)
    _require_store(components)
    name = check_collection_name(settings.default_collection if collection is None else collection)
    principal.check(name)
    allowed = {e.lower() for e in settings.upload_extensions}
    names = [safe_file_name(f.filename) for f in files]
    if len(set(names)) != len(names):
        raise BadRequest("two uploaded files have the same name")
    # a file that cannot be ingested (type not accepted, empty) is reported in the job, the
    # others go on; 4xx only when none is left
    refused: list[dict[str, Any]] = []
    for n in names:
        if Path(n).suffix.lower() not in allowed:
            refused.append(_refused(n, "unsupported_type", f"{n!r}: unsupported file type; "
                                    f"accepted: {', '.join(sorted(allowed))}"))
    folder = upload_dir(settings.data_dir, name, create=False)
    skip_now = {f["path"] for f in refused}
    taken = await asyncio.to_thread(ingested_elsewhere, components.store, name, folder,
                                    [n for n in names if n not in skip_now])
    for n, source in taken.items():
        refused.append(_refused(n, "name_in_use", (
            f"{n!r} is already a document of {name!r}, ingested from {source}, not uploaded: "
            f"an upload would replace it; delete it first (DELETE /v1/documents/{n}) or "
            "upload the file under another name")))
    job_id = new_job_id()
    staging = components.ingest.staging_dir(job_id)
    accepted: list[str] = []
    try:
        await asyncio.to_thread(staging.mkdir, parents=True)
        used = 0
        skip = {f["path"] for f in refused}
        for upload, n in zip(files, names, strict=True):
            if n in skip:
                continue
            dest = (staging / n).resolve()
            if dest.parent != staging or (folder / n).resolve().parent != folder:
                raise BadRequest(f"file name {n!r} escapes the upload folder")
            size = await _save(upload, dest, used, settings.max_upload_bytes)
            if size == 0:
                refused.append(_refused(n, "empty_file", f"{n!r} is empty (zero bytes)"))
                continue
            used += size
            accepted.append(n)
        if not accepted:
            raise _nothing_to_ingest(refused)
        await asyncio.to_thread(fsync_dir, staging)
        await asyncio.to_thread(fsync_dir, staging.parent)
        order = {n: i for i, n in enumerate(names)}
        refused.sort(key=lambda f: order[f["path"]])
        job = await components.ingest.submit(name, job_id, accepted, refused)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise ServiceUnavailable(f"the upload could not be stored ({exc.strerror or 'disk error'})"
                                 ": nothing was accepted") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return OrjsonResponse(
        {**job.to_dict(), "status_url": f"/v1/documents/jobs/{job.job_id}"}, status_code=202
    )


@router.get("/jobs/{job_id}")
async def ingest_job(job_id: str, components: ComponentsDep,
                     principal: PrincipalDep) -> OrjsonResponse:
    """Progress and report of an ingest job."""
    job = components.ingest.get(job_id)
    if job is None:
        raise NotFound(f"unknown ingest job {job_id!r}")
    principal.check(job.collection)
    return OrjsonResponse(job.to_dict())


@router.get("", dependencies=[Depends(strict_query("collection"))])
async def list_documents(
    components: ComponentsDep, settings: SettingsDep, principal: PrincipalDep,
    collection: Annotated[str | None, Query()] = None,
) -> OrjsonResponse:
    """Documents of a collection (warnings, warned pages), its corpus version, its recent jobs."""
    _require_store(components)
    name = await read_collection(components, principal, collection)
    entries = await asyncio.to_thread(Catalogue(components.store).entries, name)
    version = await asyncio.to_thread(components.corpus_version, name)
    return OrjsonResponse({
        "collection": name, "corpus_version": version,
        "documents": [
            {**_info(e.info), "warnings": e.warnings, "warned_pages": warned_pages(e.warnings)}
            for _, e in sorted(entries.items())
        ],
        "jobs": [j.to_dict() for j in components.ingest.recent(name)],
    })


def _info(d: DocumentInfo) -> dict[str, Any]:
    return asdict(d)


@router.delete("/{doc:path}", dependencies=[Depends(strict_query("collection"))])
async def delete_document(
    doc: str, components: ComponentsDep, settings: SettingsDep, principal: PrincipalDep,
    collection: Annotated[str | None, Query()] = None,
) -> OrjsonResponse:
    """Delete a document (by path, file name or doc_id) from the collection."""
    _require_store(components)
    name = check_collection_name(settings.default_collection if collection is None else collection)
    principal.check(name)
    await require_collection(components, name)  # "unknown collection", as a query says
    removed = await components.ingest.delete(name, doc)  # the uploaded file goes first
    if removed is None:
        named = await asyncio.to_thread(Catalogue(components.store).candidates, name, doc)
        if len(named) > 1:  # a file name of two folders: say so, not "no document"
            paths = ", ".join(sorted(e.info.path for e in named))
            raise Conflict(f"{doc!r} names {len(named)} documents of {name!r} ({paths}): "
                           "give the path")
        raise NotFound(f"collection {name!r} has no document {doc!r}")
    return OrjsonResponse({"collection": name, "removed": removed})
