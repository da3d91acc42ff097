"""A body that is not JSON gets one clear 400 on every endpoint: FastAPI reports the decode
error at ``("body", <character offset>)``, which the message used to print as a field name
(``/v1/query/stream`` answered "12: the body is not valid JSON")."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from pydantic import BaseModel

from gateway.api.error_handlers import install_error_handlers


class Body(BaseModel):
    question: str


def _client() -> httpx.AsyncClient:
    app = FastAPI()
    install_error_handlers(app)

    @app.post("/q")
    async def q(body: Body) -> dict[str, str]:
        return {"question": body.question}

    return httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://t")


async def test_bad_json_names_no_field_and_says_where() -> None:
    async with _client() as client:
        r = await client.post(
            "/q", content=b'{"question":', headers={"content-type": "application/json"}
        )
    assert r.status_code == 400
    msg = r.json()["error"]["message"]
    assert msg == "the body is not valid JSON (at character 12)", msg


async def test_field_errors_keep_their_field() -> None:
    async with _client() as client:
        r = await client.post("/q", json={"question": 5})
    assert r.status_code == 400
    assert r.json()["error"]["message"].startswith("question: ")
