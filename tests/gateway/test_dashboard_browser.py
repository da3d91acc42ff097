"""The ops dashboard in headless Chromium, against the real app on a real uvicorn (loopback).

The test ingests a few small real documents (from ../shared/cases) through ``POST /v1/documents``,
sends a mixed set of real questions (cache hits, confident RAG answers, escalations to the
LoopAgent, forced LoopAgent runs, a changed document), then loads ``/dashboard`` in Chromium
(``--dump-dom`` to check that every chart drew data, ``--screenshot`` saved to
``artifacts/dashboard.png``). Skips with a reason when no Chromium binary is installed
(Debian/Ubuntu: ``apt-get install chromium``).
"""

from __future__ import annotations

import os
import re
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests._support.live_server import chromium, uvicorn_thread
from tests._support.redis_keys import drop_keys_sync

pytestmark = [pytest.mark.browser, pytest.mark.integration]

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "artifacts"
MODEL = Path(
    os.environ.get(
        "LOOPGATE_TEST_EMBED_MODEL_PATH",
        REPO.parent / "shared" / "models" / "multilingual-e5-small",
    )
)
COLLECTION = "dash"
DOCS = [
    "12-stale-index-and-cache/v1/policy.md",
    "12-stale-index-and-cache/v1/old_notice.md",
    "12-stale-index-and-cache/v1/shipping.md",
    "08-zh-numbers-units-codes/spec_zh.md",
    "06-zh-keyword-segmentation/ops_manual_zh.md",
    "06-zh-keyword-segmentation/faq_en.md",
    "09-cite-page-numbers/four_pages.pdf",
]
QUESTIONS = [  # (question, mode)
    ("退货期限是几天？", "auto"),
    ("退货期限是几天？", "auto"),
    ("退货期限是几天 ？", "auto"),
    ("标准配送要几天？", "auto"),
    ("仓库周六开门吗？", "auto"),
    ("FW-301 的额定功率？", "auto"),
    ("FW-301 的额定功率？", "auto"),
    ("默认监听端口是多少？", "auto"),
    ("How many chunks can one node index?", "auto"),
    ("What is the warranty period?", "auto"),
    ("比较退货政策和配送政策有什么区别？", "auto"),
    ("第3页讲了什么？", "auto"),
    ("磁盘使用率超过多少会停止接收新文档？之后会怎样？", "auto"),
    ("量子纠缠的曲率半径是多少？", "auto"),
    ("机房温度要求", "loop"),
    ("保修期", "loop"),
    ("标准配送要几天？", "rag"),
]


@pytest.fixture(scope="module")
def browser() -> str:
    path = chromium()
    if path is None:
        pytest.skip("no headless Chromium found (apt-get install chromium)")
    return path


@pytest.fixture(scope="module")
def live_server(
    browser: str, cases_dir: Path, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A real uvicorn serving ``gateway.main.create_app`` on a free loopback port."""
    from gateway.main import create_app
    from gateway.settings import Settings

    prefix = f"loopgate-test:{uuid.uuid4().hex[:12]}:"
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("dash-data"),
        redis_url=redis_url,
        redis_key_prefix=prefix,
        embed_model_path=MODEL if (MODEL / "model_int8.onnx").exists() else None,
        default_collection=COLLECTION,
        llm_base_url="",
        api_keys={},
    )
    try:
        with uvicorn_thread(create_app(settings)) as url:
            yield url
    finally:
        drop_keys_sync(redis_url, prefix)


def _ingest(client: httpx.Client, paths: list[Path]) -> dict:
    files = [("files", (p.name, p.read_bytes())) for p in paths]
    r = client.post("/v1/documents", files=files, data={"collection": COLLECTION})
    assert r.status_code == 202, r.text
    url = r.json()["status_url"]
    deadline = time.monotonic() + 120
    while True:
        job = client.get(url).json()
        if job.get("state", job.get("status")) in ("done", "failed", "error", "finished"):
            return job
        assert time.monotonic() < deadline, job
        time.sleep(0.2)


def _ask(client: httpx.Client, question: str, mode: str) -> dict:
    r = client.post(
        "/v1/query", json={"question": question, "collection": COLLECTION, "mode": mode}
    )
    assert r.status_code == 200, r.text
    return r.json()


@pytest.fixture(scope="module")
def mixed_run(live_server: str, cases_dir: Path) -> list[dict]:
    """Ingest, ask the mixed question set, replace one document, ask again."""
    with httpx.Client(base_url=live_server, timeout=120) as client:
        job = _ingest(client, [cases_dir / d for d in DOCS])
        assert "fail" not in str(job.get("state", job.get("status"))), job
        answers = [_ask(client, q, mode) for q, mode in QUESTIONS]
        _ingest(client, [cases_dir / "12-stale-index-and-cache/v2/policy.md"])
        answers.append(_ask(client, "退货期限是几天？", "auto"))
        answers.append(_ask(client, "退货期限是几天？", "auto"))
    return answers


def test_mixed_run_is_logged(live_server: str, mixed_run: list[dict]) -> None:
    paths = [a["route"]["final_path"] for a in mixed_run]
    assert mixed_run[1]["cached"] and mixed_run[1]["answer"] == mixed_run[0]["answer"]
    assert "7" in mixed_run[0]["answer"] and "15" in mixed_run[-2]["answer"], mixed_run[-2]
    assert not mixed_run[-2]["cached"] and mixed_run[-1]["cached"]
    assert {"cache", "rag"} <= set(paths) and set(paths) & {"loop", "fallback_rag"}, paths
    with httpx.Client(base_url=live_server, timeout=30) as client:
        routes = client.get("/v1/routes", params={"limit": 100}).json()
        stats = client.get("/v1/stats").json()
        metrics = client.get("/metrics").text
    assert routes["count"] == len(mixed_run) and routes["backend"] == "redis"
    assert stats["totals"]["requests"] == len(mixed_run)
    assert stats["totals"]["cache_hits"] == paths.count("cache") >= 3
    assert re.search(r'loopgate_requests_total\{mode="auto",path="cache"\} [1-9]', metrics)


def _chromium_run(browser: str, tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        f"--user-data-dir={tmp}",
        "--virtual-time-budget=8000",
        "--window-size=1400,2200",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180, check=False)


def test_dashboard_charts_show_data(
    browser: str, live_server: str, mixed_run: list[dict], tmp_path: Path
) -> None:
    url = f"{live_server}/dashboard"
    dom = _chromium_run(browser, tmp_path / "profile-dom", "--dump-dom", url)
    html = dom.stdout
    assert 'data-ready="1"' in html, (html[-2000:], dom.stderr[-2000:])
    requests = int(re.search(r'data-requests="(\d+)"', html).group(1))
    assert requests == len(mixed_run)
    points = dict(re.findall(r'id="(chart-[a-z]+)"[^>]*data-points="(\d+)"', html))
    points.update(
        {k: v for v, k in re.findall(r'data-points="(\d+)"[^>]*id="(chart-[a-z]+)"', html)}
    )
    for chart in ("chart-mix", "chart-rates", "chart-latency", "chart-stages", "chart-steps"):
        assert int(points.get(chart, 0)) > 0, (chart, points)
    assert "chart-timeouts" in points  # drawn; may be empty when nothing timed out
    assert html.count('class="main-svg"') >= 6  # plotly drew every chart
    low_rows = re.search(r'<table id="low">.*?<tbody>(.*?)</tbody>', html, re.S).group(1)
    assert "<tr" in low_rows and 'class="empty"' not in low_rows
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "dashboard.png"
    shot.unlink(missing_ok=True)
    res = _chromium_run(browser, tmp_path / "profile-shot", f"--screenshot={shot}", url)
    assert shot.exists() and shot.stat().st_size > 20_000, res.stderr[-2000:]


async def test_dashboard_static_routes_need_no_key_and_serve_plotly_offline() -> None:
    from fastapi import FastAPI

    from gateway.api.error_handlers import install_error_handlers
    from gateway.api.routes.dashboard import plotly_js_path
    from gateway.api.routes.dashboard import router as dashboard_router

    app = FastAPI()
    install_error_handlers(app)
    app.include_router(dashboard_router)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        page = await client.get("/dashboard")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        for src in re.findall(r'(?:src|href)="(/dashboard[^"]+)"', page.text):
            assert (await client.get(src)).status_code == 200, src
        js = await client.get("/dashboard/plotly.min.js")
        assert js.status_code == 200 and len(js.content) == plotly_js_path().stat().st_size
        assert "cdn" not in page.text.lower()
        assert (await client.get("/dashboard/assets/../../main.py")).status_code == 404
        assert (await client.get("/dashboard/assets/index.html")).status_code == 404
