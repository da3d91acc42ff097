"""POST/GET/DELETE /v1/documents: background ingest with progress, size and type limits, file
names that cannot escape the data directory."""

from __future__ import annotations

import asyncio
import hashlib
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from _apphelp import CASE12, make_settings, running, upload

from gateway.api.routes.documents import safe_file_name
from gateway.errors import BadRequest

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(
    "name",
    ["../evil.md", "..\\evil.md", "a/b.md", "/etc/passwd", "C:\\x.md", "..", ".hidden.md",
     "bad\x00.md", "line\nbreak.md", "", "x" * 201 + ".md", "a..b/../c.md",
     "中" * 90 + ".txt", "é" * 127 + ".md"],
)
def test_unsafe_file_names_are_refused(name: str) -> None:
    with pytest.raises(BadRequest):
        safe_file_name(name)


@pytest.mark.parametrize("name", ["policy.md", "报告 2024.pdf", "a.b.c.txt", "x-y_z.DOCX",
                                  "中" * 83 + ".txt"])
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
        assert all(d["warnings"] == [] and d["warned_pages"] == {} for d in listing["documents"])
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
        # an absolute name: the message (paths scrubbed) must not call "evil.md" a path
        r = await client.post("/v1/documents", files=files("/srv/in/evil.md", b"# hi\n"))
        assert r.status_code == 400 and "without a path" in r.json()["error"]["message"]
        assert "'evil.md'" not in r.json()["error"]["message"], r.json()
        r = await client.post("/v1/documents", files=files("tool.exe", b"MZ"))
        assert r.status_code == 415 and ".pdf" in r.json()["error"]["message"]
        r = await client.post("/v1/documents", files=files("big.md", b"x" * 200_000))
        assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"
        assert "limit of 4096 bytes" in r.json()["error"]["message"]  # the configured limit
        r = await client.post("/v1/documents", files=files("empty.md", b""))
        assert r.status_code == 400 and "empty" in r.json()["error"]["message"]
        r = await client.post("/v1/documents", files=files("ok.md", b"# x\n"), data={"collection": "../x"})
        assert r.status_code == 400
        r = await client.post("/v1/documents")
        assert r.status_code == 400
        # a part sent as a text field, no file name (break-it trial: the 400 named a Python class)
        r = await client.post("/v1/documents", files=[("files", (None, b"hello"))])
        assert r.status_code == 400, r.text
        message = r.json()["error"]["message"]
        assert "expected a file" in message and "class" not in message, message
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
        # a new file that could not be ingested leaves the upload folder, and its report says so
        # (it stayed there, unlisted, and failed again at every restart: break-it trial)
        folder = tmp_path / "data" / "uploads" / job["collection"]
        assert (folder / "good.md").is_file() and not (folder / "broken.pdf").exists()
        assert any(w.startswith("upload_removed:") for w in by_path["broken.pdf"]["warnings"])


async def test_a_failed_replacement_keeps_the_document_s_file(tmp_path, embed_model_path) -> None:
    # a break-it trial: random bytes uploaded as an indexed doc.md failed to ingest but had
    # overwritten the stored doc.md: the viewer then refused the still-indexed document as
    # changed, and the next start's reconciliation indexed a duplicate in its place
    good = "# Warranty\n\nThe warranty period of the K-200 kettle is 24 months.\n".encode()
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        await upload(app, client, [("doc.md", good)])
        r = await client.post("/v1/documents", files=[("files", ("doc.md", bytes(range(256)) * 16,
                                                              "application/octet-stream"))])
        assert r.status_code == 202, r.text
        await app.state.components.ingest.wait_idle()
        job = (await client.get(r.json()["status_url"])).json()
        assert job["status"] == "failed", job
        f = job["report"]["files"][0]
        assert f["status"] == "failed" and any(
            w.startswith("upload_restored:") for w in f["warnings"]), f
        folder = tmp_path / "data" / "uploads" / job["collection"]
        assert (folder / "doc.md").read_bytes() == good
        body = (await client.post("/v1/query", json={"question": "What is the warranty period of the K-200?",
                                                     "use_cache": False})).json()
        assert body["found"] and body["citations"][0]["path"] == "doc.md"
        r = await client.post("/v1/view/citation", json={"citation": body["citations"][0]})
        assert r.status_code == 200, r.text


@contextmanager
def held_collection(data_dir: Path, collection: str) -> Iterator[None]:
    """Another process (like a `loopgate ingest` on the same data dir) holds the shard."""
    script = (
        "import sys, time\n"
        "from corpus.qdrant_store import QdrantChunkStore\n"
        "store = QdrantChunkStore.embedded(sys.argv[1])\n"
        "store.ensure_collection(sys.argv[2], dense_dim=None, embed_model=None)\n"
        "print('held', flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script, str(data_dir / "qdrant"), collection],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        yield
    finally:
        proc.kill()
        proc.wait(timeout=10)


@pytest.mark.parametrize("bad", ["a.b", "x" * 64, "_x", "-x", "a b", "../x"])
async def test_collection_names_follow_the_store_rule(tmp_path, embed_model_path, bad: str) -> None:
    """Names the store refuses are refused by every route at request time (400), never as a
    job stuck in ``running`` (found by a tester: ``a.b`` and 64 characters got 202)."""
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        r = await client.post("/v1/documents", files=[("files", ("x.md", b"# x\n", "text/plain"))],
                              data={"collection": bad})
        assert r.status_code == 400, r.text
        assert "invalid collection name" in r.json()["error"]["message"]
        for r in (await client.get("/v1/documents", params={"collection": bad}),
                  await client.delete("/v1/documents/x.md", params={"collection": bad}),
                  await client.post("/v1/query", json={"question": "x", "collection": bad})):
            assert r.status_code == 400 and "1-63" in r.json()["error"]["message"], r.text
        assert not (tmp_path / "data" / "uploads" / bad).exists()
        assert app.state.components.ingest.jobs == {}


async def test_longest_collection_name_is_ingested(tmp_path, embed_model_path) -> None:
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        job = await upload(app, client, [("x.md", b"# x\n\nThe warranty is two years.\n")],
                           collection="c" * 63)
        assert job["report"]["counts"]["ingested"] == 1


async def test_job_on_a_held_collection_ends_failed(tmp_path, embed_model_path) -> None:
    """Every failure of a job, including the catalogue lookup before ingesting, ends as
    ``failed`` with the error (it stayed ``running`` forever) — for a held collection once
    ``ingest_held_wait_s`` has passed (0 here: at once)."""
    settings = make_settings(tmp_path, embed_model_path, ingest_held_wait_s=0)
    async with running(settings) as (app, client):
        with held_collection(tmp_path / "data", "held"):
            r = await client.post("/v1/documents", data={"collection": "held"},
                                  files=[("files", ("x.md", b"# x\n\ntext\n", "text/plain"))])
            assert r.status_code == 202, r.text
            await app.state.components.ingest.wait_idle()
            job = (await client.get(r.json()["status_url"])).json()
        assert job["status"] == "failed" and job["finished_at"], job
        assert "StoreError" in job["error"] and "held" in job["error"], job


async def test_concurrent_uploads_of_one_name_report_their_own_bytes(tmp_path, embed_model_path) -> None:
    """Two uploads of ``doc.md`` with different contents at once: each job ingests and reports
    its own bytes (job A said ``ingested`` with B's doc_id, B said ``unchanged``)."""
    a = "# A\n\nThe warranty is two years.\n".encode()
    b = "# B\n\n保修期为三年。\n".encode()
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        def post(data: bytes):
            return client.post("/v1/documents", data={"collection": "c"},
                               files=[("files", ("doc.md", data, "text/markdown"))])

        ra, rb = await asyncio.gather(post(a), post(b))
        assert ra.status_code == rb.status_code == 202, (ra.text, rb.text)
        await app.state.components.ingest.wait_idle()
        jobs = {}
        for key, r in (("a", ra), ("b", rb)):
            job = (await client.get(r.json()["status_url"])).json()
            assert job["status"] == "done", job
            jobs[key] = job
        first, last = sorted(jobs, key=lambda k: jobs[k]["finished_at"])
        content = {"a": a, "b": b}
        for key in jobs:
            (f,) = jobs[key]["report"]["files"]
            assert f["path"] == "doc.md"
            assert f["doc_id"] == hashlib.sha256(content[key]).hexdigest(), (key, f)
            assert f["status"] == ("ingested" if key == first else "replaced"), (key, f)
        assert (tmp_path / "data" / "uploads" / "c" / "doc.md").read_bytes() == content[last]
        listing = (await client.get("/v1/documents", params={"collection": "c"})).json()
        assert [d["doc_id"] for d in listing["documents"]] == [hashlib.sha256(content[last]).hexdigest()]


async def test_one_bad_file_does_not_refuse_the_upload(tmp_path, embed_model_path) -> None:
    """An empty file and a file of an unsupported type among good ones: 202, the good files
    ingested, the others reported per file (``empty_file``, ``unsupported_type``) in the 202 and
    in the job, none of them left on disk; a 4xx only when no file can be ingested (found by a
    new-user trial: one empty file made the whole upload a 400)."""
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        parts = [("files", (n, d, "application/octet-stream")) for n, d in (
            ("good.md", b"# Good\n\nThe warranty is two years.\n"), ("zero.md", b""),
            ("tool.exe", b"MZ\x90\x00"), ("notes.txt", b"Returns within seven days.\n"))]
        r = await client.post("/v1/documents", data={"collection": "c"}, files=parts)
        assert r.status_code == 202, r.text
        accepted = r.json()
        assert accepted["files"] == ["good.md", "notes.txt"]
        refused = {f["path"]: f for f in accepted["report"]["files"]}
        assert {p: (f["status"], f["error_code"]) for p, f in refused.items()} == {
            "zero.md": ("failed", "empty_file"), "tool.exe": ("failed", "unsupported_type")}
        assert ".pdf" in refused["tool.exe"]["error_message"]
        await app.state.components.ingest.wait_idle()
        job = (await client.get(accepted["status_url"])).json()
        assert job["status"] == "done", job
        assert {f["path"]: (f["status"], f["error_code"]) for f in job["report"]["files"]} == {
            "good.md": ("ingested", ""), "notes.txt": ("ingested", ""),
            "zero.md": ("failed", "empty_file"), "tool.exe": ("failed", "unsupported_type")}
        assert job["report"]["counts"] == {**job["report"]["counts"], "ingested": 2, "failed": 2}
        folder = tmp_path / "data" / "uploads" / "c"
        assert sorted(p.name for p in folder.iterdir()) == ["good.md", "notes.txt"]
        # nothing to ingest: 400 naming each file (415 when every file is of a refused type)
        r = await client.post("/v1/documents", data={"collection": "c"},
                              files=[("files", ("zero.md", b"", "text/markdown")),
                                     ("files", ("tool.exe", b"MZ", "application/x-msdownload"))])
        assert r.status_code == 400, r.text
        msg = r.json()["error"]["message"]
        assert "zero.md" in msg and "empty" in msg and "tool.exe" in msg, msg
        r = await client.post("/v1/documents", data={"collection": "c"},
                              files=[("files", ("tool.exe", b"MZ", "application/x-msdownload"))])
        assert r.status_code == 415, r.text
        assert sorted(p.name for p in folder.iterdir()) == ["good.md", "notes.txt"]
        assert not [p for p in (tmp_path / "data" / "uploads" / ".staging").rglob("*")
                    if p.is_file()]


async def test_refused_batch_changes_nothing_on_disk(tmp_path, embed_model_path) -> None:
    """A batch refused with 400 (nothing but an empty file) or 413 (over the limit) leaves the
    upload folder as it was: no replaced file the index does not hold, no orphan."""
    settings = make_settings(tmp_path, embed_model_path, max_upload_bytes=4096)
    old = b"# Doc\n\nThe warranty is two years.\n"
    async with running(settings) as (app, client):
        await upload(app, client, [("doc.md", old)], collection="c")
        folder = tmp_path / "data" / "uploads" / "c"

        def parts(*files: tuple[str, bytes]) -> list:
            return [("files", (n, d, "text/markdown")) for n, d in files]

        r = await client.post("/v1/documents", data={"collection": "c"},
                              files=parts(("zero.md", b"")))
        assert r.status_code == 400 and "empty" in r.json()["error"]["message"], r.text
        r = await client.post("/v1/documents", data={"collection": "c"},
                              files=parts(("new.md", b"# New\n\nnew\n"), ("doc.md", b"y" * 3000),
                                          ("big.md", b"x" * 3000)))
        assert r.status_code == 413 and "limit of 4096 bytes" in r.json()["error"]["message"], r.text
        assert sorted(p.name for p in folder.iterdir()) == ["doc.md"]
        assert (folder / "doc.md").read_bytes() == old
        leftovers = [p for p in (tmp_path / "data" / "uploads").rglob("*")
                     if p.is_file() and p.parent != folder]
        assert leftovers == [], leftovers
        listing = (await client.get("/v1/documents", params={"collection": "c"})).json()
        assert [d["doc_id"] for d in listing["documents"]] == [hashlib.sha256(old).hexdigest()]


async def test_long_multibyte_file_name_is_a_clear_400(tmp_path, embed_model_path) -> None:
    """90 × 中 + .txt is 274 bytes in UTF-8: 400 naming the byte limit (was a 500, OSError)."""
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        r = await client.post("/v1/documents", files=[("files", ("中" * 90 + ".txt", b"text", "text/plain"))])
        assert r.status_code == 400, r.text
        assert "274 bytes" in r.json()["error"]["message"] and "255" in r.json()["error"]["message"]
        job = await upload(app, client, [("中" * 83 + ".txt", "保修期为两年。".encode())])
        assert job["report"]["counts"]["ingested"] == 1


async def test_listing_an_unknown_collection_is_404(tmp_path, embed_model_path) -> None:
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        await upload(app, client, [("x.md", b"# x\n\ntext\n")], collection="known")
        r = await client.get("/v1/documents", params={"collection": "unknown"})
        assert r.status_code == 404, r.text
        assert "unknown collection 'unknown'; known: known" in r.json()["error"]["message"]
        r = await client.get("/v1/documents")  # no default docs: the one collection with docs
        assert r.status_code == 200 and [d["path"] for d in r.json()["documents"]] == ["x.md"]
        assert (await client.get("/v1/documents", params={"collection": "known"})).status_code == 200


async def test_chunked_upload_over_the_limit_is_413(tmp_path, embed_model_path) -> None:
    """A multipart body without Content-Length over the limit is 413, not 400 "There was an
    error parsing the body"."""
    async with running(make_settings(tmp_path, embed_model_path, max_upload_bytes=4096)) as (app, client):
        boundary = "lgtestboundary"

        async def body():
            yield (f"--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; "
                   f"filename=\"big.md\"\r\nContent-Type: text/markdown\r\n\r\n").encode()
            for _ in range(100):
                yield b"x" * 1024
            yield f"\r\n--{boundary}--\r\n".encode()

        r = await client.post("/v1/documents", content=body(),
                              headers={"content-type": f"multipart/form-data; boundary={boundary}"})
        assert r.status_code == 413 and r.json()["error"]["code"] == "too_large", r.text
        assert not [p for p in (tmp_path / "data").rglob("*.md")]


async def test_job_whose_every_file_failed_is_failed(tmp_path, embed_model_path) -> None:
    """A job that could ingest nothing ends ``failed`` with the file's error (as the CLI exits
    1); one good file among bad ones keeps it ``done`` with the per-file report."""
    import random

    noise = bytes(b for b in random.Random(3).randbytes(4096) if b)
    settings = make_settings(tmp_path, embed_model_path)
    async with running(settings) as (app, client):
        r = await client.post("/v1/documents", files=[("files", ("noise.txt", noise, "text/plain"))])
        assert r.status_code == 202, r.text
        await app.state.components.ingest.wait_idle()
        job = (await client.get(r.json()["status_url"])).json()
        assert job["status"] == "failed" and "undecodable" in job["error"], job
        job = await upload(app, client, [("noise2.txt", noise[::-1]),
                                         ("ok.md", b"# OK\n\nThe return period is seven days.\n")])
        assert {f["path"]: f["status"] for f in job["report"]["files"]} == {
            "noise2.txt": "failed", "ok.md": "ingested"}


async def test_an_upload_never_replaces_a_document_ingested_from_a_folder(
        tmp_path, embed_model_path) -> None:
    """A file uploaded under the name of a document that ``loopgate ingest`` read from a folder
    is refused (``name_in_use``, 409 when it is the only file) and that document stays (found
    by a new-user trial: an upload of another ``mission.md`` replaced the handbook's without a
    word); once it is deleted the name is free. An uploaded document is still replaced by a new
    upload of its name. DELETE on an unknown collection says so, as a query does."""
    folder = tmp_path / "handbook"
    folder.mkdir()
    (folder / "mission.md").write_text("# Mission\n\nEveryone can contribute.\n", "utf-8")
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        ingestor = app.state.components.ingest.writer.ingestor()
        await asyncio.to_thread(ingestor.ingest_paths, [folder], "c", root=folder)
        parts = [("files", ("mission.md", b"# Other\n\nA different mission.\n", "text/markdown")),
                 ("files", ("notes.md", b"# Notes\n\nReturns within seven days.\n",
                            "text/markdown"))]
        r = await client.post("/v1/documents", data={"collection": "c"}, files=parts)
        assert r.status_code == 202, r.text
        assert r.json()["files"] == ["notes.md"]
        (refused,) = r.json()["report"]["files"]
        assert (refused["path"], refused["error_code"]) == ("mission.md", "name_in_use")
        assert str(folder / "mission.md") in refused["error_message"]
        await app.state.components.ingest.wait_idle()
        r = await client.post("/v1/documents", data={"collection": "c"}, files=parts[:1])
        assert r.status_code == 409 and "mission.md" in r.json()["error"]["message"], r.text
        answer = (await client.post("/v1/query", json={
            "question": "Who can contribute?", "collection": "c", "mode": "rag",
            "use_cache": False})).json()
        assert "Everyone can contribute" in answer["answer"], answer  # the folder's, kept
        again = await upload(app, client, [("notes.md", b"# Notes\n\nReturns within 30 days.\n")],
                             collection="c")
        assert again["report"]["counts"]["replaced"] == 1  # an upload replaces an upload
        r = await client.delete("/v1/documents/mission.md", params={"collection": "c"})
        assert r.status_code == 200
        r = await client.post("/v1/documents", data={"collection": "c"}, files=parts[:1])
        assert r.status_code == 202, r.text
        r = await client.delete("/v1/documents/x.md", params={"collection": "nosuch"})
        assert r.status_code == 404 and "unknown collection" in r.json()["error"]["message"]


async def test_an_upload_names_its_collection_or_is_refused(tmp_path, embed_model_path) -> None:
    """Hostile-input trial: ``?collection=qp`` and a misspelt form field ``colection`` put the
    file into the default collection without a word, and of two ``collection`` fields the last
    won. Now the query parameter names the collection as on the other document routes, and an
    unknown field or two different collections are a 400 naming them."""
    doc = ("files", ("g.md", b"# G\n\nThe warranty is two years.\n", "text/markdown"))
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        r = await client.post("/v1/documents", params={"collection": "qp"}, files=[doc])
        assert r.status_code == 202 and r.json()["collection"] == "qp", r.text
        r = await client.post("/v1/documents", data={"colection": "secret"}, files=[doc])
        assert r.status_code == 400 and "'colection'" in r.json()["error"]["message"], r.text
        r = await client.post("/v1/documents", data={"collection": ["up", "other"]}, files=[doc])
        assert r.status_code == 400 and "two collections" in r.json()["error"]["message"], r.text
        r = await client.post("/v1/documents", data={"collection": "up"},
                              params={"collection": "other"}, files=[doc])
        assert r.status_code == 400 and "two collections" in r.json()["error"]["message"], r.text
        r = await client.post("/v1/documents", data={"collection": "same"},
                              params={"collection": "same"}, files=[doc])
        assert r.status_code == 202 and r.json()["collection"] == "same", r.text
        await app.state.components.ingest.wait_idle()


async def test_deleting_a_file_name_of_two_folders_names_both(tmp_path, embed_model_path) -> None:
    """Hostile-input trial: DELETE of ``readme.md`` when ``a/readme.md`` and ``b/readme.md``
    both exist said "has no document"; it is a 409 naming both paths, and nothing is removed."""
    root = tmp_path / "docs"
    for sub, text in (("a", "Alpha keeps logs for 14 days."), ("b", "Beta keeps them 30 days.")):
        (root / sub).mkdir(parents=True)
        (root / sub / "readme.md").write_text(f"# Readme\n\n{text}\n", "utf-8")
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        ingestor = app.state.components.ingest.writer.ingestor()
        await asyncio.to_thread(ingestor.ingest_paths, [root], "amb", root=root)
        r = await client.delete("/v1/documents/readme.md", params={"collection": "amb"})
        assert r.status_code == 409, r.text
        assert "a/readme.md" in r.json()["error"]["message"]
        assert "b/readme.md" in r.json()["error"]["message"]
        listing = (await client.get("/v1/documents", params={"collection": "amb"})).json()
        assert len(listing["documents"]) == 2
        r = await client.delete("/v1/documents/a/readme.md", params={"collection": "amb"})
        assert r.status_code == 200, r.text


async def test_an_upload_waits_for_a_collection_another_process_holds(
        tmp_path, embed_model_path) -> None:
    """Hostile-input trial: an upload made while a ``loopgate ingest`` wrote the same new
    collection failed at once (StoreError) and was never tried again. The job now stays queued
    with a note and is ingested once the other process lets go."""
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        with held_collection(tmp_path / "data", "held"):
            r = await client.post("/v1/documents", data={"collection": "held"},
                                  files=[("files", ("x.md", b"# X\n\nThe warranty is two years.\n",
                                                    "text/plain"))])
            assert r.status_code == 202, r.text
            url = r.json()["status_url"]
            for _ in range(100):
                job = (await client.get(url)).json()
                if job.get("note"):
                    break
                await asyncio.sleep(0.1)
            assert job["status"] == "queued" and "held by another" in job["note"], job
        await app.state.components.ingest.wait_idle()  # the holder is gone: the retry runs
        job = (await client.get(url)).json()
        assert job["status"] == "done" and job["report"]["counts"]["ingested"] == 1, job


async def test_a_repeated_or_unknown_query_parameter_is_refused(tmp_path, embed_model_path) -> None:
    """Hostile-input trial: ``DELETE /v1/documents/keep.md?collection=other&collection=victim``
    (no collection ``other``) deleted ``keep.md`` from ``victim`` — the last value won — and
    ``GET /v1/documents`` read the last of two collections. Both are a 400 naming the values
    now, nothing is removed, and a parameter a route does not take is a 400 too."""
    doc = ("files", ("keep.md", b"# Keep\n\nThe warranty is two years.\n", "text/markdown"))
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        r = await client.post("/v1/documents", params={"collection": "victim"}, files=[doc])
        assert r.status_code == 202, r.text
        await app.state.components.ingest.wait_idle()
        two = [("collection", "other"), ("collection", "victim")]
        r = await client.delete("/v1/documents/keep.md", params=two)
        assert r.status_code == 400, r.text
        assert "'other', 'victim'" in r.json()["error"]["message"], r.text
        r = await client.get("/v1/documents", params=two)
        assert r.status_code == 400 and "name one" in r.json()["error"]["message"], r.text
        r = await client.delete("/v1/documents/keep.md",
                                params={"collection": "victim", "bogus": "1"})
        assert r.status_code == 400 and "'bogus'" in r.json()["error"]["message"], r.text
        r = await client.get("/v1/documents", params={"collection": "victim"})
        assert [d["path"] for d in r.json()["documents"]] == ["keep.md"], r.text  # kept
        r = await client.get("/v1/view/page.png", params=[("doc", "x" * 16), ("page", "1"),
                                                           ("collection", "a"),
                                                           ("collection", "b")])
        assert r.status_code == 400 and "name one" in r.json()["error"]["message"], r.text
        same = [("collection", "victim"), ("collection", "victim")]
        r = await client.delete("/v1/documents/keep.md", params=same)
        assert r.status_code == 200 and r.json()["collection"] == "victim", r.text
