"""Secure by default (issue 20 item 6): serving a non-loopback address needs API keys or an
explicit --allow-anonymous."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gateway.cli import app
from gateway.cli import serve as serve_mod


@pytest.mark.parametrize("host", ["0.0.0.0", "10.1.2.3", "::", "gateway.example"])
def test_non_loopback_without_keys_refuses_to_start(monkeypatch, tmp_path, host) -> None:
    monkeypatch.setenv("LOOPGATE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("LOOPGATE_API_KEYS", raising=False)
    result = CliRunner().invoke(app, ["serve", "--host", host])
    assert result.exit_code == 2, result.output
    assert "--allow-anonymous" in result.output and "LOOPGATE_API_KEYS" in result.output


@pytest.mark.parametrize(("host", "args", "env"), [
    ("127.0.0.1", [], {}), ("localhost", [], {}), ("::1", [], {}),
    ("0.0.0.0", ["--allow-anonymous"], {}),
    ("0.0.0.0", [], {"LOOPGATE_ALLOW_ANONYMOUS": "true"}),
    ("0.0.0.0", [], {"LOOPGATE_API_KEYS": '{"k-12345678": ["*"]}'}),
])
def test_loopback_keys_or_explicit_anonymous_start(monkeypatch, tmp_path, host, args, env) -> None:
    monkeypatch.setenv("LOOPGATE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("LOOPGATE_API_KEYS", raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    ran: dict = {}
    monkeypatch.setattr("uvicorn.run", lambda app_, **kw: ran.update(kw))
    monkeypatch.setattr("gateway.main.create_app", lambda s: object())
    result = CliRunner().invoke(app, ["serve", "--host", host, *args])
    assert result.exit_code == 0, result.output
    assert ran["host"] == host and ran["timeout_graceful_shutdown"] == serve_mod.GRACEFUL_S


ADMIN, USER = "adm-0123456789", "usr-0123456789"


async def test_admin_paths_need_the_admin_key(tmp_path) -> None:
    from _apphelp import make_settings, running

    settings = make_settings(tmp_path, api_keys={USER: ["docs"]}, admin_keys=[ADMIN])
    async with running(settings) as (app, client):
        for path in ("/metrics", "/docs", "/openapi.json", "/v1/stats", "/redoc"):
            assert (await client.get(path)).status_code == 401, path
            r = await client.get(path, headers={"Authorization": f"Bearer {USER}"})
            assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden", path
            r = await client.get(path, headers={"Authorization": f"Bearer {ADMIN}"})
            assert r.status_code == 200, (path, r.text)
        r = await client.get("/v1/documents", params={"collection": "docs"},
                             headers={"Authorization": f"Bearer {ADMIN}"})
        assert r.status_code == 200  # an admin key not in api_keys may use every collection


async def test_dashboard_page_and_files_need_the_admin_key(tmp_path) -> None:
    """With keys, the dashboard page, its script, style sheet and plotly.js answer only an admin
    key — Bearer, or HTTP Basic with the key as password (the browser's own prompt, which the
    401 asks for); a user key or a wrong password is asked again (401), never served."""
    import base64

    from _apphelp import make_settings, running

    def basic(password: str, user: str = "ops") -> dict[str, str]:
        raw = base64.b64encode(f"{user}:{password}".encode()).decode()
        return {"Authorization": f"Basic {raw}"}

    settings = make_settings(tmp_path, api_keys={USER: ["docs"]}, admin_keys=[ADMIN])
    async with running(settings) as (app, client):
        paths = ("/dashboard", "/dashboard/", "/dashboard/assets/app.js",
                 "/dashboard/assets/style.css", "/dashboard/plotly.min.js")
        for path in paths:
            for headers in ({}, basic(USER), basic("nope"), {"Authorization": f"Bearer {USER}"},
                            {"Authorization": "Basic !!notbase64"}, basic(ADMIN[:-1])):
                r = await client.get(path, headers=headers)
                assert r.status_code == 401, (path, headers, r.status_code)
                assert r.headers["www-authenticate"].startswith("Basic realm=")
                assert "plotly" not in r.text.lower() and "<html" not in r.text.lower()
            for headers in (basic(ADMIN), basic(ADMIN, user=""),
                            {"Authorization": f"Bearer {ADMIN}"}):
                r = await client.get(path, headers=headers, follow_redirects=True)
                assert r.status_code == 200, (path, headers, r.text[:200])
        page = await client.get("/dashboard", headers=basic(ADMIN))
        assert "text/html" in page.headers["content-type"] and "<script" in page.text
        # Basic is taken on the read-only admin paths (a Prometheus basic_auth scrape), never
        # by the API routes, which take only a Bearer key
        assert (await client.get("/metrics", headers=basic(ADMIN))).status_code == 200
        assert (await client.get("/v1/stats", headers=basic(ADMIN))).status_code == 401
        r = await client.post("/v1/query", json={"question": "x", "collection": "docs"},
                              headers=basic(ADMIN))
        assert r.status_code == 401
    async with running(make_settings(tmp_path / "open")) as (app, client):  # no keys: open
        assert (await client.get("/dashboard")).status_code == 200


_LEAKS = ("Traceback", "Errno", "redis://", "127.0.0.1", "localhost:", "/tmp/", "/home/",
          "/work/", "/etc/", "ConnectionRefused", "site-packages")


async def test_no_error_body_leaks_paths_hosts_or_exception_text(tmp_path) -> None:
    """Every route answers bad requests (no key, a foreign key, a bad body, unknown ids) without
    absolute paths, host names or exception text; /readyz with Redis down names no address."""
    from _apphelp import make_settings, running

    settings = make_settings(tmp_path, api_keys={USER: ["docs"]}, admin_keys=[ADMIN],
                             redis_url="redis://127.0.0.1:1/0")
    async with running(settings) as (app, client):
        routes = [(m.upper(), path) for path, ops in app.openapi()["paths"].items()
                  for m in ops if m.upper() in ("GET", "POST", "DELETE")]
        routes += [("GET", p) for p in ("/metrics", "/dashboard", "/dashboard/assets/{name}",
                                        "/docs", "/openapi.json")]
        assert len(routes) >= 15
        seen = 0
        for method, path in routes:
            url = path.replace("{job_id}", "nope").replace("{trace_id}", "nope") \
                      .replace("{doc:path}", "../../etc/passwd").replace("{name}", "x")
            for headers, body in (({}, None), ({"Authorization": f"Bearer {USER}"}, b"{bad"),
                                  ({"Authorization": f"Bearer {ADMIN}"}, b'{"question": 5}'),
                                  ({"Authorization": f"Bearer {ADMIN}"}, None)):
                kw = {"content": body, "headers": {**headers, "content-type": "application/json"}}
                r = await client.request(method, url, **kw) if body is not None \
                    else await client.request(method, url, headers=headers,
                                              params={"collection": "../x"})
                text = r.text
                assert not any(leak in text for leak in _LEAKS), (method, url, r.status_code,
                                                                   text[:400])
                assert str(tmp_path) not in text
                seen += r.status_code >= 400
        assert seen >= 30
        r = await client.get("/readyz")
        assert "redis" in r.json()["checks"] and r.json()["checks"]["redis"]["status"] == "down"
        assert not any(leak in r.text for leak in _LEAKS), r.text


async def test_each_key_sees_only_its_own_questions(tmp_path) -> None:
    """Two keys on one collection: /v1/routes shows each only its own questions (also by trace
    id, and through the Redis-free ring buffer); the admin key sees both."""
    from _apphelp import make_settings, running, upload

    other = "usr-abcdefghijk"
    settings = make_settings(tmp_path, api_keys={USER: ["docs"], other: ["docs"]},
                             admin_keys=[ADMIN])
    h = {k: {"Authorization": f"Bearer {k}"} for k in (USER, other, ADMIN)}
    async with running(settings) as (app, client):
        await upload(app, client, [("a.md", b"# A\n\nThe warranty lasts 2 years.\n")],
                     headers=h[ADMIN])
        traces = {}
        for key, q in ((USER, "How long is the warranty?"), (other, "Secret plans of user two?")):
            r = await client.post("/v1/query", json={"question": q, "mode": "rag"}, headers=h[key])
            assert r.status_code == 200, r.text
            traces[key] = r.json()["route"]["trace_id"]
        r = await client.post("/v1/query/stream", json={"question": "Stream of user two?",
                                                         "mode": "rag"}, headers=h[other])
        assert r.status_code == 200
        seen = {}
        for key in (USER, other, ADMIN):
            r = await client.get("/v1/routes", headers=h[key])
            assert r.status_code == 200, r.text
            seen[key] = {rec["question"] for rec in r.json()["records"]}
        assert seen[USER] == {"How long is the warranty?"}, seen
        assert seen[other] == {"Secret plans of user two?", "Stream of user two?"}, seen
        assert seen[ADMIN] >= seen[USER] | seen[other]
        r = await client.get(f"/v1/routes/{traces[other]}", headers=h[USER])
        assert r.status_code == 404
        r = await client.get(f"/v1/routes/{traces[other]}", headers=h[other])
        assert r.status_code == 200 and r.json()["question"] == "Secret plans of user two?"
