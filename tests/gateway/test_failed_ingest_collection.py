"""An ingest none of whose files can be ingested leaves no new, empty collection behind (new-user
trial: ``loopgate ingest`` of a folder holding only a corrupt PDF, and an upload whose every
file failed to parse, each left an empty collection that was then listed as known and, for the
upload, created again by every restart's reconciliation of its empty upload folder). The
per-file errors, exit code 1 and the job's ``failed`` stay; a collection that existed before
stays with its documents."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from _apphelp import make_settings, running, upload
from typer.testing import CliRunner

from corpus.catalogue import Catalogue
from corpus.qdrant_store import QdrantChunkStore
from gateway.cli import app as cli

pytestmark = pytest.mark.integration

#: random bytes: not a PDF, not a ZIP (so not a DOCX) — fixed, so the error codes are too
CORRUPT = random.Random(7).randbytes(4000)


def _ingest(folder: Path, collection: str) -> tuple[int, dict]:
    result = CliRunner().invoke(cli, ["ingest", str(folder), "--collection", collection,
                                      "--json", "--no-embed"])
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else {}


def test_cli_ingest_whose_every_file_fails_creates_no_collection(cli_home: Path) -> None:
    bad, good, nothing = cli_home / "bad", cli_home / "good", cli_home / "nothing"
    for d in (bad, good, nothing):
        d.mkdir()
    (bad / "corrupt.pdf").write_bytes(CORRUPT)
    (good / "note.md").write_text("# Note\n\nThe kettle boils in three minutes.\n",
                                  encoding="utf-8")
    code, out = _ingest(bad, "fresh")
    assert code == 1, out
    assert [(f["path"], f["status"], f["error_code"]) for f in out["files"]] == [
        ("corrupt.pdf", "failed", "corrupt_pdf")]
    with QdrantChunkStore.embedded(cli_home / "data" / "qdrant") as store:
        assert store.list_collections() == []
    assert [w.partition(":")[0] for w in out["warnings"]] == ["collection_not_created"], out
    assert _ingest(nothing, "none")[0] == 1  # no supported file: no collection either
    assert _ingest(good, "kept")[0] == 0
    code, out = _ingest(bad, "kept")  # an existing collection stays, with its document
    assert code == 1 and out["warnings"] == [], out
    with QdrantChunkStore.embedded(cli_home / "data" / "qdrant") as store:
        assert store.list_collections() == ["kept"]
        assert [d.path for d in Catalogue(store).documents("kept")] == ["note.md"]


async def test_upload_whose_every_file_fails_creates_no_collection(
        tmp_path: Path, embed_model_path: Path) -> None:
    settings = make_settings(tmp_path, embed_model_path)
    uploads = tmp_path / "data" / "uploads"
    broken = [("files", ("corrupt.pdf", CORRUPT, "application/pdf")),
              ("files", ("broken.docx", CORRUPT[::-1], "application/octet-stream"))]
    async with running(settings) as (app, client):
        r = await client.post("/v1/documents", data={"collection": "fresh"}, files=broken)
        assert r.status_code == 202, r.text
        await app.state.components.ingest.wait_idle()
        job = (await client.get(r.json()["status_url"])).json()
        assert job["status"] == "failed" and "corrupt_pdf" in job["error"], job
        assert {f["path"]: (f["status"], f["error_code"]) for f in job["report"]["files"]} == {
            "corrupt.pdf": ("failed", "corrupt_pdf"), "broken.docx": ("failed", "corrupt")}
        r = await client.get("/v1/documents", params={"collection": "fresh"})
        assert r.status_code == 404 and "unknown collection" in r.text, r.text
        assert not (uploads / "fresh").exists()
        assert [w.partition(":")[0] for w in job["report"]["warnings"]] == [
            "collection_not_created"], job
        # a collection that existed before stays, with its document
        await upload(app, client, [("ok.md", b"# OK\n\nThe return period is seven days.\n")],
                     collection="kept")
        r = await client.post("/v1/documents", data={"collection": "kept"}, files=broken)
        await app.state.components.ingest.wait_idle()
        job = (await client.get(r.json()["status_url"])).json()
        assert job["status"] == "failed" and job["report"]["warnings"] == [], job
        listing = (await client.get("/v1/documents", params={"collection": "kept"})).json()
        assert [d["path"] for d in listing["documents"]] == ["ok.md"]
        # a failing file first, then a good one: the collection is made and kept, no warning
        job = await upload(app, client, [("corrupt.pdf", CORRUPT), ("ok.md", b"# OK\n\nYes.\n")],
                           collection="mixed")
        assert job["report"]["counts"]["ingested"] == 1 and job["report"]["warnings"] == [], job
    # the start-up reconciliation of the upload folders does not bring it back
    async with running(settings) as (app, client):
        await app.state.components.ingest.wait_idle()
        assert app.state.components.store.list_collections() == ["kept", "mixed"]
