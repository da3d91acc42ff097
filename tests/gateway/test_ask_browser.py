"""The Ask page (``/``) in headless Chromium, driven by Playwright, against the real app on a
real uvicorn (loopback) with API keys on.

A PDF (``09-cite-page-numbers/four_pages.pdf``) and a Markdown file
(``06-zh-keyword-segmentation/faq_en.md``) from ../shared/cases are uploaded; the browser enters
the API key once, asks on ``/``, and the test checks that the route decision and the steps were
on the page before the answer (a MutationObserver stamps when each appeared), clicks citation
[1] and checks the highlighted region against the quoted words: on the PDF page, PyMuPDF's own
word boxes of the quoted line (``Page.get_text("words")``, not the viewer's character matching)
must be covered ≥ 0.8 by the highlight boxes shown over the rendered page; in the Markdown
source, the quote's text range (found by the test in the shown lines) ≥ 0.8 by the ``<mark>``.
Every question carries the page's ``session_id`` (the earlier turns also go as ``history``); a
follow-up is read from the server's session memory, which holds the conversation's turns, and
"new conversation" starts another session and forgets the old one. Screenshots of each state go
to ``artifacts/ask/``. Skips with a reason when Playwright or Chromium is missing
(``pip install -e '.[dev]'``; ``apt-get install chromium``).
"""

from __future__ import annotations

import json
import time
import unicodedata
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests._support.live_server import chromium, uvicorn_thread
from tests._support.redis_keys import drop_keys_sync

pytestmark = [pytest.mark.browser, pytest.mark.integration]

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "artifacts" / "ask"
MODEL = REPO.parent / "shared" / "models" / "multilingual-e5-small"
COLLECTION = "askpage"
KEY = "k-ask-" + uuid.uuid4().hex
PDF = "09-cite-page-numbers/four_pages.pdf"
MD = "06-zh-keyword-segmentation/faq_en.md"
Rect = tuple[float, float, float, float]


@pytest.fixture(scope="module")
def live_server(cases_dir: Path, redis_url: str,
                tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real uvicorn serving the app with one API key, the two documents uploaded."""
    from gateway.main import create_app
    from gateway.settings import Settings

    if chromium() is None:
        pytest.skip("no headless Chromium found (apt-get install chromium)")
    pytest.importorskip("playwright.sync_api", reason="Playwright missing: pip install -e '.[dev]'")
    prefix = f"loopgate-test:{uuid.uuid4().hex[:12]}:"
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("ask-data"), redis_url=redis_url,
        redis_key_prefix=prefix, default_collection=COLLECTION, llm_base_url="",
        embed_model_path=MODEL if (MODEL / "model_int8.onnx").exists() else None,
        api_keys={KEY: [COLLECTION]},
    )
    deadline = time.monotonic() + 240
    try:
        with uvicorn_thread(create_app(settings)) as url:
            with httpx.Client(base_url=url, timeout=120,
                              headers={"Authorization": f"Bearer {KEY}"}) as client:
                files = [("files", (Path(p).name, (cases_dir / p).read_bytes()))
                         for p in (PDF, MD)]
                r = client.post("/v1/documents", files=files, data={"collection": COLLECTION})
                assert r.status_code == 202, r.text
                while (job := client.get(r.json()["status_url"]).json())["status"] not in (
                        "done", "failed"):
                    assert time.monotonic() < deadline, job
                    time.sleep(0.2)
                assert job["status"] == "done", job
            yield url
    finally:
        drop_keys_sync(redis_url, prefix)


@pytest.fixture(scope="module")
def page(live_server: str) -> Iterator[Any]:
    """One Chromium page on ``/`` with the API key entered once (kept in sessionStorage)."""
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium(),
                                     args=["--no-sandbox", "--disable-dev-shm-usage"])
        pg = browser.new_page(viewport={"width": 1400, "height": 1000})
        pg.set_default_timeout(60_000)
        pg.goto(live_server + "/")
        pg.wait_for_selector("#keyform:not([hidden])")  # the JSON routes answered 401
        pg.fill("#key", KEY)
        pg.click("#keyform button")
        pg.wait_for_function("document.getElementById('collection').value === 'askpage'")
        yield pg
        browser.close()


_STAMP = """() => {
  window.__seen = {};
  const stamp = (k) => { if (!(k in window.__seen)) window.__seen[k] = performance.now(); };
  new MutationObserver(() => {
    const turn = [...document.querySelectorAll('.turn')].pop();
    if (!turn) return;
    if (turn.querySelector('.route div')) stamp('route');
    if (turn.querySelector('.steps li')) stamp('step');
    if (turn.querySelector('.answer').textContent) stamp('answer');
  }).observe(document.getElementById('thread'),
              {childList: true, subtree: true, characterData: true});
}"""


def _ask(pg: Any, question: str, mode: str) -> dict[str, Any]:
    pg.evaluate(_STAMP)
    pg.select_option("#mode", mode)
    pg.fill("#question", question)
    with pg.expect_request("**/v1/query/stream") as req:
        pg.click("#send")
    pg.wait_for_function("document.body.dataset.state === 'done' || "
                         "document.body.dataset.state === 'error'")
    turn = pg.locator(".turn").last
    assert pg.evaluate("document.body.dataset.state") == "done", turn.inner_text()
    seen = pg.evaluate("window.__seen")
    return {"seen": seen, "body": json.loads(req.value.post_data), "turn": turn}


def _key(text: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKC", text) if not ch.isspace())


def _area(r: Rect) -> float:
    return max(r[2] - r[0], 0.0) * max(r[3] - r[1], 0.0)


def _inter(a: Rect, b: Rect) -> Rect:
    return (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))


def _coverage(truth: list[Rect], shown: list[Rect]) -> tuple[float, float]:
    """(share of the truth boxes' area under the shown boxes, share of the shown boxes' area
    over the truth boxes); boxes of one kind do not overlap each other."""
    both = sum(_area(_inter(t, s)) for t in truth for s in shown)
    return both / sum(map(_area, truth)), both / sum(map(_area, shown))


def _quoted_words(pdf: Path, page: int, quote: str) -> list[Rect]:
    """PyMuPDF word boxes of the page's lines whose words are (≥ 60 % of their characters)
    inside the quote: the quoted line(s), by a method independent of the viewer's."""
    import pymupdf

    qk = _key(quote)
    lines: dict[tuple[int, int], list[tuple[Rect, str, bool]]] = {}
    with pymupdf.open(pdf) as doc:
        for x0, y0, x1, y1, word, block, line, _w in doc[page - 1].get_text("words"):
            k = _key(word)
            lines.setdefault((block, line), []).append(((x0, y0, x1, y1), k, k in qk))
    out: list[Rect] = []
    for words in lines.values():
        inside = sum(len(k) for _, k, ok in words if ok)
        if inside >= 0.6 * sum(len(k) for _, k, _ in words):
            out += [r for r, _, ok in words if ok]
    return out


def test_ask_pdf_citation_highlights_the_quoted_words(page: Any, cases_dir: Path) -> None:
    got = _ask(page, "How many chunks can one node index?", "loop")
    seen = got["seen"]
    assert {"route", "step", "answer"} <= set(seen), seen
    assert seen["route"] <= seen["answer"] and seen["step"] <= seen["answer"], seen
    turn = got["turn"]
    assert "route" in turn.locator(".route").inner_text()
    steps = turn.locator(".steps li").all_inner_texts()
    assert "(hybrid): " in steps[0] and len(steps) >= 2, steps
    assert "500,000" in turn.locator(".answer").inner_text() or "50 万" in turn.locator(
        ".answer").inner_text()
    page.screenshot(path=str(ARTIFACTS / "1-pdf-answer.png"), full_page=True)

    first = turn.locator(".cites li").first
    assert "four_pages.pdf" in first.inner_text() and "p.3" in first.inner_text()
    quote = first.locator("q").inner_text()
    first.locator("a.cite").click()
    page.wait_for_selector("#viewer[data-ready='1'] .page .hl")
    shown = page.evaluate("""() => {
      const box = document.querySelector('#viewer .page');
      const img = box.querySelector('img').getBoundingClientRect();
      const sx = Number(box.dataset.pageWidth) / img.width;
      const sy = Number(box.dataset.pageHeight) / img.height;
      return [...box.querySelectorAll('.hl')].map((el) => {
        const r = el.getBoundingClientRect();
        return [(r.left - img.left) * sx, (r.top - img.top) * sy,
                (r.right - img.left) * sx, (r.bottom - img.top) * sy];
      });
    }""")
    truth = _quoted_words(cases_dir / PDF, 3, quote)
    assert truth, quote
    covered, precise = _coverage(truth, [tuple(r) for r in shown])
    print(f"PDF highlight: {covered:.3f} of the quoted words covered, {precise:.3f} of the "
          f"highlight on them ({len(shown)} boxes, quote {quote!r})")
    assert covered >= 0.8 and precise >= 0.5, (covered, precise, shown, truth)
    page.locator("#viewer").screenshot(path=str(ARTIFACTS / "2-pdf-viewer.png"))
    page.screenshot(path=str(ARTIFACTS / "2-pdf-viewer-page.png"), full_page=True)


def test_ask_markdown_citation_marks_the_quoted_line(page: Any) -> None:
    got = _ask(page, "What is the warranty period?", "auto")
    assert {"route", "answer"} <= set(got["seen"]) and got["seen"]["route"] <= got["seen"]["answer"]
    assert got["body"]["history"] and got["body"]["history"][0]["role"] == "user", got["body"]
    assert got["body"]["history"][0]["content"] == "How many chunks can one node index?"
    assert got["body"]["session_id"].startswith("ask-"), got["body"]
    assert got["body"]["session_id"] == page.evaluate("document.body.dataset.session")
    turn = got["turn"]
    assert "three years" in turn.locator(".answer").inner_text()
    page.screenshot(path=str(ARTIFACTS / "3-md-answer.png"), full_page=True)
    first = turn.locator(".cites li").first
    assert "faq_en.md" in first.inner_text()
    quote = first.locator("q").inner_text()
    first.locator("a.cite").click()
    page.wait_for_selector("#viewer[data-ready='1'][data-kind='text'] .ln.marked")
    rects = page.evaluate("""(quote) => {
      const rows = [...document.querySelectorAll('#viewer .ln.marked .tx')];
      const row = rows.find((r) => r.textContent.includes(quote));
      if (!row) return null;
      const at = row.textContent.indexOf(quote), range = document.createRange();
      let pos = 0, started = false;
      const walker = document.createTreeWalker(row, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const len = n.textContent.length;
        if (!started && at < pos + len) { range.setStart(n, at - pos); started = true; }
        if (started && at + quote.length <= pos + len) {
          range.setEnd(n, at + quote.length - pos);
          break;
        }
        pos += len;
      }
      const flat = (list) => [...list].map((r) => [r.left, r.top, r.right, r.bottom]);
      return {truth: flat(range.getClientRects()),
              shown: [...document.querySelectorAll('#viewer mark')]
                .flatMap((m) => flat(m.getClientRects())),
              line: Number(row.parentElement.dataset.n)};
    }""", quote)
    assert rects is not None, quote
    assert rects["line"] == 4  # faq_en.md line 4: "The warranty period is three years …"
    covered, precise = _coverage([tuple(r) for r in rects["truth"]],
                                 [tuple(r) for r in rects["shown"]])
    print(f"Markdown mark: {covered:.3f} of the quote covered, {precise:.3f} of the mark on it")
    assert covered >= 0.8 and precise >= 0.5, rects
    page.locator("#viewer").screenshot(path=str(ARTIFACTS / "4-md-viewer.png"))


def test_ask_follow_up_uses_the_session_memory(page: Any, live_server: str) -> None:
    """The third question of the page's conversation is a follow-up: it goes with the same
    ``session_id`` as the first two, is rewritten from the session memory (shown as "read
    as"), and the memory holds the three turns; "new conversation" gives a new session id and
    deletes the old session; a standalone question there is not rewritten."""
    sid = page.evaluate("document.body.dataset.session")
    got = _ask(page, "What about the health check?", "rag")
    assert got["body"]["session_id"] == sid
    turn = got["turn"]
    route_text = turn.locator(".route").inner_text()
    assert "read as:" in route_text and "health check" in route_text.lower(), route_text
    assert "monthly" in turn.locator(".answer").inner_text(), turn.inner_text()
    auth = {"Authorization": f"Bearer {KEY}"}
    with httpx.Client(base_url=live_server, timeout=30, headers=auth) as client:
        mem = client.get(f"/v1/sessions/{sid}")
        assert mem.status_code == 200, mem.text
        asked = [t["question"] for t in mem.json()["turns"]]
        assert asked == ["How many chunks can one node index?", "What is the warranty period?",
                         "What about the health check?"], mem.json()
        page.click("#reset")
        page.wait_for_function(f"document.body.dataset.session !== {json.dumps(sid)}")
        deadline = time.monotonic() + 10
        while client.get(f"/v1/sessions/{sid}").status_code != 404:
            assert time.monotonic() < deadline, "the old session was not deleted"
            time.sleep(0.1)
    got = _ask(page, "When does an alert fire?", "rag")
    assert got["body"]["session_id"] not in (sid, None) and got["body"]["history"] == []
    assert "read as:" not in got["turn"].locator(".route").inner_text()
    assert "below 60" in got["turn"].locator(".answer").inner_text()
    page.screenshot(path=str(ARTIFACTS / "5-follow-up.png"), full_page=True)


def test_viewer_refuses_without_key_and_outside_the_collection(live_server: str) -> None:
    with httpx.Client(base_url=live_server, timeout=30) as client:
        assert client.get("/v1/view/collections").status_code == 401
        r = client.get("/v1/view/page.png", params={"doc": "0" * 64, "page": 1},
                       headers={"Authorization": f"Bearer {KEY}"})
        assert r.status_code == 404 and "no document" in r.json()["error"]["message"]
        page_ = client.get("/", headers={"Accept-Encoding": "gzip"})
        assert page_.status_code == 200 and "text/html" in page_.headers["content-type"]
        js = client.get("/ask/app.js", headers={"Accept-Encoding": "gzip"})
        assert js.headers.get("content-encoding") == "gzip"
        assert client.get("/ask/../main.py").status_code == 404

