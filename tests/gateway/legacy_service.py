"""A real HTTP server on loopback standing in for a team's existing RAG service (tests only).

Behaviour is chosen by the request path, so one server serves every test:

``/ask``        a well-formed reply ``{"data": {"answer", "docs": [...], "found"}}``; an optional
                ``?delay=S`` waits first
``/get``        the same for GET, reading ``?q=``
``/status/N``   replies with HTTP status N and a text body
``/notjson``    200 with an HTML body
``/shape``      200 JSON without the answer field
``/badsources`` 200 JSON whose sources are a string
``/drip``       sends headers and then one byte every 0.2 s for ``?n=`` bytes (a slow body)
``/huge``       a 3 MB JSON reply
``/close``      closes the connection without replying

Every request's method, path, headers and JSON body is appended to ``server.seen``.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: LegacyService

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def _reply(self, status: int, body: bytes, ctype: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _answer(self, question: str) -> bytes:
        return json.dumps(
            {
                "data": {
                    "answer": f"Legacy says: {question}",
                    "found": True,
                    "docs": [
                        {
                            "meta": {"source": "manuals/pump-x200.pdf", "page": "12"},
                            "content": "warranty is 24 months",
                            "score": 0.91,
                        },
                        {
                            "meta": {"source": "manuals/pump-x200.pdf", "page": 13},
                            "content": "service intervals",
                            "score": 0.55,
                        },
                        "faq/warranty.md",
                    ],
                }
            }
        ).encode()

    def do_GET(self) -> None:  # noqa: N802
        url = urlparse(self.path)
        qs = parse_qs(url.query)
        self.server.seen.append(
            {"method": "GET", "path": url.path, "query": qs, "headers": dict(self.headers)}
        )
        if url.path == "/get":
            self._reply(200, self._answer(qs.get("q", [""])[0]))
        else:
            self._dispatch(url.path, qs, {})

    def do_POST(self) -> None:  # noqa: N802
        url = urlparse(self.path)
        qs = parse_qs(url.query)
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0") or 0))
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        self.server.seen.append(
            {
                "method": "POST",
                "path": url.path,
                "query": qs,
                "headers": dict(self.headers),
                "body": body,
            }
        )
        self._dispatch(url.path, qs, body)

    def _dispatch(self, path: str, qs: dict[str, list[str]], body: dict[str, Any]) -> None:
        delay = float(qs.get("delay", ["0"])[0])
        if delay:
            time.sleep(delay)
        if path == "/ask":
            self._reply(200, self._answer(str(body.get("query", body.get("question", "")))))
        elif path.startswith("/status/"):
            self._reply(int(path.rsplit("/", 1)[1]), b"upstream exploded")
        elif path == "/notjson":
            self._reply(200, b"<html><body>Service maintenance</body></html>", "text/html")
        elif path == "/shape":
            self._reply(200, json.dumps({"data": {"text": "answer under another key"}}).encode())
        elif path == "/badsources":
            self._reply(
                200, json.dumps({"data": {"answer": "ok", "found": True, "docs": "a.pdf"}}).encode()
            )
        elif path == "/drip":
            n = int(qs.get("n", ["20"])[0])
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(n))
            self.end_headers()
            try:
                for _ in range(n):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(0.2)
            except OSError:
                pass
        elif path == "/huge":
            self._reply(200, json.dumps({"data": {"answer": "x" * 3_000_000}}).encode())
        elif path == "/close":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        else:
            self._reply(404, b"no such path")


class LegacyService(ThreadingHTTPServer):
    """The stand-in server; ``url`` is its base URL, ``seen`` the requests it received."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.seen: list[dict[str, Any]] = []
        self.url = f"http://127.0.0.1:{self.server_address[1]}"
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    def __enter__(self) -> LegacyService:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
