"""One real server: ``loopgate serve`` (uvicorn) on loopback in its own process, driven over
HTTP; the CLI facing a data directory that server holds says so clearly."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from _apphelp import CASE12

from benchmarks._common import free_port, stop_process, wait_healthy

pytestmark = pytest.mark.integration

LOOPGATE = [sys.executable, "-c", "from gateway.cli import main; main()"]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """``loopgate serve`` on a free loopback port; yields its base URL and environment.

    Keyword-only (no embedding model) so the server process starts in a few seconds; the
    in-process API tests cover dense retrieval."""
    port = free_port()
    env = {**os.environ, "LOOPGATE_DATA_DIR": str(tmp_path / "data"),
           "LOOPGATE_DEFAULT_COLLECTION": "docs"}
    proc = subprocess.Popen([*LOOPGATE, "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--log-level", "warning"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        if not wait_healthy(base, proc, timeout_s=60):
            stop_process(proc)  # its output ends only when it does: read it after
            raise RuntimeError("loopgate serve did not start: "
                               f"{proc.stdout.read() if proc.stdout else ''}")
        yield base, env
    finally:
        stop_process(proc)


def test_real_server_end_to_end(server, cases_dir: Path) -> None:
    base, env = server
    with httpx.Client(base_url=base, timeout=60) as client:
        files = [("files", (p.name, p.read_bytes(), "text/markdown"))
                 for p in sorted((cases_dir / CASE12 / "v1").iterdir())]
        job = client.post("/v1/documents", files=files).json()
        for _ in range(300):
            job = client.get(f"/v1/documents/jobs/{job['job_id']}").json()
            if job["status"] in ("done", "failed"):
                break
            time.sleep(0.1)
        assert job["status"] == "done", job
        first = client.post("/v1/query", json={"question": "标准配送要几天？"}).json()
        assert first["found"] and "3 个工作日" in first["answer"]
        second = client.post("/v1/query", json={"question": "标准配送要几天？"}).json()
        assert second["cached"] and second["answer"] == first["answer"]
        with client.stream("POST", "/v1/query/stream",
                           json={"question": "仓库周六开门吗？", "mode": "loop"}) as resp:
            events = [line.split(":", 1)[1].strip() for line in resp.iter_lines()
                      if line.startswith("event:")]
        assert events[0] == "route" and "step" in events and events[-1] == "answer"
        chat = client.post("/v1/chat/completions", json={
            "model": "loopgate-auto", "messages": [{"role": "user", "content": "标准配送要几天？"}]})
        assert chat.status_code == 200
        assert "3 个工作日" in chat.json()["choices"][0]["message"]["content"]
        assert client.get("/readyz").status_code == 200
        assert "loopgate_requests_total" in client.get("/metrics").text

    # the CLI on the data directory the server holds: a clear message, exit code 1
    out = subprocess.run([*LOOPGATE, "ask", "退货期限是几天？", "--mode", "auto", "--json"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "held by another LoopGate process" in out.stderr
    again = subprocess.run([*LOOPGATE, "serve", "--port", str(free_port())], env=env,
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 1 and "held by another" in again.stderr


def test_ask_auto_cli(tmp_path: Path, embed_model_path: Path, cases_dir: Path,
                      monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from gateway.cli import app
    from gateway.settings import get_settings

    monkeypatch.setenv("LOOPGATE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LOOPGATE_EMBED_MODEL_PATH", str(embed_model_path))
    get_settings.cache_clear()
    runner = CliRunner()
    result = runner.invoke(app, ["ingest", str(cases_dir / CASE12 / "v1"), "--collection", "c12"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["ask", "标准配送要几天？", "--collection", "c12", "--mode", "auto",
                                 "--json"])
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert body["found"] and "3 个工作日" in body["answer"]
    assert body["route"]["decision"]["route"] in ("rag", "loop") and body["route"]["final_path"]


def test_head_is_answered_like_get(server) -> None:
    """Every GET route answers HEAD with the GET's status and headers and no body (found by a
    new-user trial: ``HEAD /healthz`` and ``HEAD /`` answered 405); a POST-only path stays 405.
    Over a real socket, so the body really is absent on the wire."""
    base, _env = server
    with httpx.Client(base_url=base, timeout=30) as client:
        for path in ("/healthz", "/", "/readyz", "/v1/models", "/v1/documents",
                     "/v1/view/collections", "/dashboard", "/docs"):
            got, head = client.get(path), client.head(path)
            assert head.status_code == got.status_code == 200, (path, head.status_code)
            assert head.content == b"", path
            assert head.headers["content-type"] == got.headers["content-type"], path
            for name in ("content-length", "content-encoding"):  # / is gzipped
                if path != "/readyz":  # its timings change from one call to the next
                    assert head.headers.get(name) == got.headers.get(name), (path, name)
        assert client.head("/v1/sessions/nope").status_code == 404  # as GET
        post_only = client.head("/v1/query")
        assert post_only.status_code == 405 and "POST" in post_only.headers.get("allow", "")


def test_api_docs_load_without_a_cdn(server) -> None:
    """``/docs`` and ``/redoc`` name their scripts and styles on this server, and the server
    serves them (new-user trial: offline, Swagger UI from the CDN left ``/docs`` blank)."""
    base, _env = server
    with httpx.Client(base_url=base, timeout=30) as client:
        for page, kinds in (("/docs", ("js", "css")), ("/redoc", ("js",))):
            html = client.get(page).text
            assets = re.findall(r"""(?:src|href)=['"]([^'"]+\.(?:js|css))['"]""", html)
            assert {a.rsplit(".", 1)[1] for a in assets} >= set(kinds), (page, assets)
            for url in assets:
                assert url.startswith("/"), (page, url)  # this server, not a CDN
                got = client.get(url)
                assert got.status_code == 200 and len(got.content) > 10_000, (url, got.status_code)
