"""A body that is not JSON gets one clear 400 on every endpoint: FastAPI reports the decode
error at ``("body", <character offset>)``, which the message used to print as a field name
(``/v1/query/stream`` answered "12: the body is not valid JSON")."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from pydantic import BaseModel
from starlette.requests import Request

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


async def test_a_client_gone_while_sending_its_body_is_no_internal_error(caplog) -> None:
    """A break-it trial: a client that closed its socket mid-body was logged by /v1/query (which
    reads ``request.body()`` itself) as a 500 with tracebacks; it is a 400, logged at info."""
    app = FastAPI()
    install_error_handlers(app)

    @app.post("/raw")
    async def raw(request: Request) -> dict[str, int]:
        return {"n": len(await request.body())}

    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/raw", "raw_path": b"/raw",
             "query_string": b"", "headers": [(b"content-length", b"100")],
             "http_version": "1.1", "scheme": "http", "server": ("t", 80), "client": ("c", 1),
             "root_path": ""}
    with caplog.at_level("INFO", logger="loopgate.gateway"):
        await app(scope, receive, send)
    assert sent[0]["status"] == 400
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]
