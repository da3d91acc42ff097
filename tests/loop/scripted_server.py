"""A real OpenAI-compatible chat-completions HTTP server on loopback with scripted replies.

Each POST to ``/v1/chat/completions`` consumes the next reply of the script (the last one
repeats when the script runs out). A reply is a dict, or a callable ``(request_body) -> dict``:

- ``{"tool_call": {"name": ..., "arguments": {...} | "raw text"}}`` → native ``tool_calls``
  (``"tool_calls": [...]`` for several);
- ``{"content": "..."}`` → assistant text (JSON actions, malformed JSON, code fences …);
- ``{"status": 429 | 500 | 400, "body": "...", "headers": {...}}`` → an error reply;
- ``"delay": seconds`` on any reply → sleep before answering (client timeouts);
- ``"usage": {...}`` overrides the computed usage (``len(json)/4`` prompt tokens).

Faults (the fake-LLM suite, ``tests/loop/test_llm_faults.py`` and
``tests/gateway/test_llm_faults_api.py``):

- ``{"hang": True}`` → never answers (the handler waits until the server is closed);
- ``{"raw": "text"}`` → HTTP 200 with exactly that body (wrong shape, truncated JSON, HTML);
- ``{"truncate": n}`` → a normal completion whose ``Content-Length`` announces the whole body
  but only its first ``n`` bytes are sent before the connection closes;
- ``{"huge": n}`` → a valid completion whose content is ``n`` bytes long;
- ``{"drip": seconds}`` → a normal completion sent one byte every ``seconds``.

``FAULTS`` maps a fault name to such a reply; :meth:`ScriptedChatServer.set_script` replaces
the script of a running server. ``requests`` keeps every request body received, for
assertions. ``GET /health`` → 200.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]

__all__ = ["FAULTS", "ScriptedChatServer", "tool_call", "json_action"]

FAULTS: dict[str, dict[str, Any]] = {
    "wrong_shape": {"raw": '{"id": "x", "choices": "notalist"}'},
    "no_choices": {"raw": '{"choices": []}'},
    "message_not_object": {"raw": '{"choices": [{"message": "hi"}]}'},
    "truncated_json": {"raw": '{"choices": [{"message": {"content": "ha'},
    "truncated_body": {"truncate": 40},
    "not_json": {"raw": "<html>502 Bad Gateway</html>"},
    "http_500": {"status": 500, "body": "internal error"},
    "huge": {"huge": 3 * 1024 * 1024},
    "hang": {"hang": True},
}


def tool_call(name: str, args: dict[str, Any] | str | None = None, **extra: Any) -> dict[str, Any]:
    """A scripted native tool call reply."""
    return {"tool_call": {"name": name, "arguments": args if args is not None else {}}, **extra}


def json_action(name: str, args: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A scripted JSON-action reply (assistant content)."""
    return {"content": json.dumps({"tool": name, "arguments": args}, ensure_ascii=False), **extra}


class ScriptedChatServer:
    """Context manager: ``with ScriptedChatServer(script) as srv: srv.base_url``."""

    def __init__(self, script: list[Reply]) -> None:
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._i = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: Any,
                      headers: dict[str, str] | None = None) -> None:
                data = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                ok = self.path.rstrip("/").endswith("health")
                self._send(200 if ok else 404, {"status": "ok"})

            def do_POST(self) -> None:  # noqa: N802
                n = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(n) or b"{}")
                with outer._lock:
                    outer.requests.append(body)
                    if not outer.script:
                        reply: Reply = {"status": 500, "body": "empty script"}
                    else:
                        reply = outer.script[min(outer._i, len(outer.script) - 1)]
                    outer._i += 1
                if callable(reply):
                    reply = reply(body)
                if reply.get("delay"):
                    time.sleep(float(reply["delay"]))
                if reply.get("hang"):
                    outer._closed.wait(600)
                    self.close_connection = True
                    return
                if "raw" in reply:
                    self._send(200, str(reply["raw"]))
                    return
                if "huge" in reply:
                    reply = {**reply, "content": "x" * int(reply["huge"])}
                if "truncate" in reply or "drip" in reply:
                    data = json.dumps(outer._completion(body, reply)).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    if "truncate" in reply:
                        self.wfile.write(data[:int(reply["truncate"])])
                        self.wfile.flush()
                        self.close_connection = True
                        return
                    for i in range(len(data)):
                        if outer._closed.wait(float(reply["drip"])):
                            return
                        self.wfile.write(data[i:i + 1])
                        self.wfile.flush()
                    return
                if "status" in reply:
                    self._send(int(reply["status"]), reply.get("body", "error"),
                               reply.get("headers"))
                    return
                self._send(200, outer._completion(body, reply))

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        # a client that gave up (timeout, size cap) resets the connection: not worth a traceback
        self._server.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @staticmethod
    def _completion(body: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
        calls = reply.get("tool_calls") or ([reply["tool_call"]] if "tool_call" in reply else [])
        if calls:
            message["tool_calls"] = [
                {"id": f"call_{i}", "type": "function", "function": {
                    "name": c["name"],
                    "arguments": c["arguments"] if isinstance(c["arguments"], str)
                    else json.dumps(c["arguments"], ensure_ascii=False)}}
                for i, c in enumerate(calls)]
        out_text = json.dumps(message, ensure_ascii=False)
        usage = reply.get("usage") or {
            "prompt_tokens": len(json.dumps(body.get("messages", []), ensure_ascii=False)) // 4,
            "completion_tokens": max(1, len(out_text) // 4)}
        usage.setdefault("total_tokens", usage["prompt_tokens"] + usage["completion_tokens"])
        return {"id": "cmpl-scripted", "object": "chat.completion", "model": body.get("model"),
                "choices": [{"index": 0, "message": message,
                             "finish_reason": "tool_calls" if calls else "stop"}],
                "usage": usage}

    def set_script(self, script: list[Reply]) -> None:
        """Replace the script (and start it from its first reply)."""
        with self._lock:
            self.script, self._i = list(script), 0

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ScriptedChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._closed.set()  # releases hanging and dripping handlers
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
