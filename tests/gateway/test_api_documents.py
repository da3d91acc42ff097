"""POST/GET/DELETE /v1/documents: background ingest with progress, size and type limits, file
names that cannot escape the data directory."""

from __future__ import annotations

from pathlib import Path

import pytest
from _apphelp import CASE12, make_settings, running, upload

from gateway.api.routes.documents import safe_file_name
from gateway.errors import BadRequest

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(
    "name",
    ["../evil.md", "..\\evil.md", "a/b.md", "/etc/passwd", "C:\\x.md", "..", ".hidden.md",
     "bad\x00.md", "line\nbreak.md", "", "x" * 201 + ".md", "a..b/../c.md"],
)
def test_unsafe_file_names_are_refused(name: str) -> None:
    with pytest.raises(BadRequest):
        safe_file_name(name)


@pytest.mark.parametrize("name", ["policy.md", "报告 2024.pdf", "a.b.c.txt", "x-y_z.DOCX"])
def test_plain_file_names_pass(name: str) -> None:
    assert safe_file_name(name) == name


async def test_upload_progress_list_delete(tmp_path, embed_model_path, cases_dir: Path) -> None:
    case = cases_dir / CASE12
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        job = await upload(app, client, sorted((case / "v1").iterdir()), collection="c12")
        assert job["collection"] == "c12" and job["progress"]["files_done"] == 3
        assert job["report"]["counts"]["ingested"] == 3 and job["report"]["keyword_only"] is False
        saved = tmp_path / "data" / "uploads" / "c12"
        assert sorted(p.name for p in saved.iterdir()) == ["old_notice.md", "policy.md", "shipping.md"]
        listing = (await client.get("/v1/documents", params={"collection": "c12"})).json()
        assert sorted(d["path"] for d in listing["documents"]) == sorted(p.name for p in saved.iterdir())
        assert listing["corpus_version"] and listing["jobs"][0]["job_id"] == job["job_id"]
        r = await client.delete("/v1/documents/shipping.md", params={"collection": "c12"})
        assert r.status_code == 200 and r.json()["removed"]["status"] == "removed"
        assert not (saved / "shipping.md").exists()
        r = await client.delete("/v1/documents/shipping.md", params={"collection": "c12"})
        assert r.status_code == 404 and "no document" in r.json()["error"]["message"]
        r = await client.get("/v1/documents/jobs/unknown")
        assert r.status_code == 404


async def test_upload_refusals(tmp_path, embed_model_path) -> None:
    settings = make_settings(tmp_path, embed_model_path, max_upload_bytes=4096)
    async with running(settings) as (app, client):
        def files(name: str, data: bytes) -> list:
            return [("files", (name, data, "application/octet-stream"))]

        r = await client.post("/v1/documents", files=files("../../escape.md", b"# hi\n"))
        assert r.status_code == 400 and "without a path" in r.json()["error"]["message"]
        r = await client.post("/v1/documents", files=files("tool.exe", b"MZ"))
        assert r.status_code == 415 and ".pdf" in r.json()["error"]["message"]
        r = await client.post("/v1/documents", files=files("big.md", b"x" * 200_000))
        assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"
        r = await client.post("/v1/documents", files=files("empty.md", b""))
        assert r.status_code == 400 and "empty" in r.json()["error"]["message"]
        r = await client.post("/v1/documents", files=files("ok.md", b"# x\n"), data={"collection": "../x"})
        assert r.status_code == 400
        r = await client.post("/v1/documents")
        assert r.status_code == 400
        data_dir = tmp_path / "data"
        assert not list(tmp_path.glob("escape.md")) and not (data_dir / "escape.md").exists()
        leftovers = [p for p in (data_dir / "uploads").rglob("*") if p.is_file()]
        assert leftovers == [], leftovers


async def test_failed_file_is_reported_and_batch_goes_on(tmp_path, embed_model_path) -> None:
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        job = await upload(app, client, [("good.md", "# 标题\n\n保修期为两年。The warranty is two years.\n".encode()),
                                         ("broken.pdf", b"%PDF-1.7 this is not a pdf")])
        by_path = {f["path"]: f for f in job["report"]["files"]}
        assert by_path["good.md"]["status"] == "ingested"
        assert by_path["broken.pdf"]["status"] == "failed" and by_path["broken.pdf"]["error_code"]
