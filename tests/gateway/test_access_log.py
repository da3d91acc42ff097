"""The structured access log: in-process (the middleware's JSON lines, with route and latency)
and from a real ``loopgate serve`` process (the lines on its standard output)."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from benchmarks._common import free_port, wait_healthy

pytestmark = pytest.mark.integration

LOOPGATE = [sys.executable, "-c", "from gateway.cli import main; main()"]


async def test_query_and_stream_are_logged_with_route_and_latency(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from gateway.main import create_app
    from gateway.settings import Settings

    settings = Settings(data_dir=tmp_path / "data", default_collection="logs", llm_base_url="")
    app = create_app(settings)
    caplog.set_level(logging.INFO, logger="loopgate.access")
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 5555))
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            files = [("files", ("faq.md", b"# FAQ\n\n## Warranty\nThe warranty is 3 years.\n"))]
            job = (await client.post("/v1/documents", files=files,
                                     data={"collection": "logs"})).json()
            while (await client.get(job["status_url"])).json()["status"] not in ("done",  # noqa: ASYNC110
                                                                                 "failed"):
                await asyncio.sleep(0.05)
            r = await client.post("/v1/query", json={"question": "How long is the warranty?"})
            assert r.status_code == 200
            async with client.stream("POST", "/v1/query/stream",
                                     json={"question": "warranty?", "mode": "loop"}) as s:
                body = b"".join([chunk async for chunk in s.aiter_bytes()])
            assert b"event: answer" in body
            assert (await client.post("/v1/query", json={"question": ""})).status_code == 400
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "loopgate.access"]
    by_path = {}
    for line in lines:
        by_path.setdefault((line["method"], line["path"], line["status"]), line)
    q = by_path[("POST", "/v1/query", 200)]
    assert q["route"] == "rag" and q["final_path"] == "rag" and q["trace_id"]
    assert q["client"] == "127.0.0.1:5555" and q["ms"] > 0 and q["bytes"] > 100
    st = by_path[("POST", "/v1/query/stream", 200)]
    assert st["route"] == "loop" and st["final_path"] in ("loop", "fallback_rag")
    assert "route" not in by_path[("POST", "/v1/query", 400)]


def test_loopgate_serve_prints_one_json_line_per_request(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "LOOPGATE_DATA_DIR": str(tmp_path / "data")}
    env.pop("LOOPGATE_EMBED_MODEL_PATH", None)
    proc = subprocess.Popen([*LOOPGATE, "serve", "--port", str(port), "--log-level", "warning"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        if not wait_healthy(f"http://127.0.0.1:{port}", proc, timeout_s=60):
            proc.terminate()  # its output ends only when it does: read it after
            raise AssertionError(proc.communicate(timeout=30))
        r = httpx.post(f"http://127.0.0.1:{port}/v1/query", json={"question": "anything?"},
                       timeout=30)
        assert r.status_code == 200
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
    lines = [json.loads(x) for x in out.splitlines() if x.startswith("{")]
    query = [x for x in lines if x["path"] == "/v1/query"]
    assert query and query[0]["status"] == 200 and query[0]["route"] == "none", out
    assert query[0]["trace_id"] and isinstance(query[0]["ms"], float)
    assert any(x["path"] == "/healthz" for x in lines)
    assert "Traceback" not in err, err
