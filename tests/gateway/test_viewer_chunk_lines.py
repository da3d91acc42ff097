"""The viewer of a DOCX / HTML citation (``"kind": "chunk"``) numbers the chunk's lines as the
citation does, from the chunk's first line in the document's text (a new-user trial: an HTML
citation said line 7 and the viewer marked line 3 of the chunk)."""

from __future__ import annotations

import pytest
from _apphelp import ask, make_settings, running, upload

pytestmark = pytest.mark.integration

HTML = """<html><body>
<h1>Travel policy</h1>
<p>Book flights through the travel desk.</p>
<p>Economy class is the default for every flight.</p>
<h2>Hotels</h2>
<p>The hotel limit in Paris is 180 EUR per night.</p>
<h2>Meals</h2>
<p>The daily meal allowance is 45 EUR in every city.</p>
</body></html>
"""


async def test_the_chunk_view_marks_the_cited_lines(tmp_path, embed_model_path) -> None:
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        await upload(app, client, [("travel.html", HTML.encode())])
        body = await ask(client, "What is the daily meal allowance?", mode="rag", use_cache=False)
        assert body["found"], body["answer"]
        cit = body["citations"][0]
        assert "45 EUR" in cit["quote"]
        r = await client.post("/v1/view/citation", json={"citation": cit})
        assert r.status_code == 200, r.text
        view = r.json()
        assert view["kind"] == "chunk" and view["exact"]
        assert view["marked"] == cit["lines"], (view["marked"], cit["lines"])
        marked = [ln for ln in view["lines"] if ln["mark"]]
        assert marked and "45 EUR" in marked[0]["text"] and marked[0]["n"] == cit["lines"][0]
