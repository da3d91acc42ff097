"""Adapter for an existing ("legacy") RAG service reached over HTTP.

The legacy service is whatever HTTP endpoint a team already runs. A small mapping says how to
send it the question and where the answer and its sources are in the JSON reply:

- ``method`` + ``url``; ``body`` is a JSON template whose string values may contain the
  placeholders ``{question}``, ``{collection}``, ``{user}``, ``{trace_id}`` (substituted *after*
  the template is parsed, so a question can never break the JSON); with ``GET`` the template's
  top-level keys become query parameters;
- ``answer_path``, ``sources_path`` and ``found_path`` are JMESPath expressions
  (https://jmespath.org; ``answer``, ``data.result.text``, ``choices[0].message.content``);
  ``source_fields`` maps ``path``/``page``/``quote``/``score``/``chunk_id`` to JMESPath
  expressions evaluated on each source item (a bare string item is taken as its ``path``).

:class:`LegacyRagClient` never raises for anything the service does: a timeout, a refused
connection, an HTTP error status or a malformed reply becomes a :class:`LegacyAnswer` with
``ok=False`` and a clear ``error_kind`` (``timeout``, ``connect``, ``http_status``,
``malformed``) and ``error`` message. Only a bad *mapping* raises, at construction
(:class:`LegacyConfigError`), so misconfiguration shows at start-up, not per request.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from typing import Any

import httpx
import jmespath
from jmespath.exceptions import JMESPathError
from jmespath.parser import ParsedResult

from gateway.migration.legacy_types import (
    LegacyAnswer,
    LegacyConfigError,
    LegacyRagConfig,
    LegacySource,
)

__all__ = ["LegacyRagClient"]


def _compile(expr: str, what: str) -> ParsedResult | None:
    """Compile one JMESPath expression; ``""`` → ``None``; bad syntax → LegacyConfigError."""
    if not expr:
        return None
    try:
        return jmespath.compile(expr)
    except JMESPathError as exc:
        raise LegacyConfigError(f"bad JMESPath for {what}: {expr!r} ({exc})") from exc


def _fill(template: Any, values: Mapping[str, str | None]) -> Any:
    """Substitute ``{name}`` placeholders in every string of a parsed JSON template."""
    if isinstance(template, str):
        for name, value in values.items():
            token = "{" + name + "}"
            if template == token:
                return value
            template = template.replace(token, value or "")
        return template
    if isinstance(template, Mapping):
        return {k: _fill(v, values) for k, v in template.items()}
    if isinstance(template, list):
        return [_fill(v, values) for v in template]
    return template


def _as_int(value: Any) -> int | None:
    """A page number as int, or None when it is not one (``"12"`` → 12, ``"xii"`` → None)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return None


class _Malformed(Exception):
    """Internal: the reply does not match the mapping (becomes error_kind="malformed")."""


class LegacyRagClient:
    """Async client of the legacy RAG service (pooled httpx connection).

    Usage example::

        client = LegacyRagClient(LegacyRagConfig(url="http://rag.internal/ask",
                                                 answer_path="data.answer",
                                                 sources_path="data.docs"))
        result = await client.ask("How long is the warranty?", collection="manuals")
        if not result.ok:
            log.warning("legacy failed: %s %s", result.error_kind, result.error)
        await client.aclose()

    :param config: the mapping (validated; JMESPath compiled here).
    :param transport: optional httpx transport (tests inject one only for protocol details;
        the adapter's tests use a real HTTP server on loopback).
    """

    def __init__(
        self, config: LegacyRagConfig, *, transport: httpx.AsyncBaseTransport | None = None
    ) -> None:
        self.config = config
        self._answer = _compile(config.answer_path, "answer_path")
        self._sources = _compile(config.sources_path, "sources_path")
        self._found = _compile(config.found_path, "found_path")
        self._fields = {
            k: _compile(v, f"source_fields.{k}") for k, v in config.source_fields.items() if v
        }
        self._transport = transport
        self._client: httpx.AsyncClient | None = None

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                transport=self._transport,
                timeout=httpx.Timeout(self.config.timeout_s),
                headers=dict(self.config.headers),
                limits=httpx.Limits(max_connections=64, max_keepalive_connections=16),
            )
        return self._client

    async def aclose(self) -> None:
        """Close the pooled connection."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def ask(
        self, question: str, *, collection: str = "", user: str | None = None, trace_id: str = ""
    ) -> LegacyAnswer:
        """Send the question; return the mapped answer or a flagged failure (never raises).

        :param question: the user's question, sent verbatim.
        :param collection: LoopGate collection name (available to the template as ``{collection}``).
        :param user: caller id (``{user}``; ``null`` in JSON when the whole value is ``{user}``).
        :param trace_id: LoopGate trace id (``{trace_id}``), lets the two logs be joined.
        :returns: :class:`LegacyAnswer`; ``ok=False`` with ``error_kind`` on any failure.
        """
        values = {
            "question": question,
            "collection": collection,
            "user": user,
            "trace_id": trace_id,
        }
        payload = _fill(dict(self.config.body), values)
        start = time.perf_counter()
        status = 0

        def done(**kw: Any) -> LegacyAnswer:
            return LegacyAnswer(
                status_code=status, latency_ms=(time.perf_counter() - start) * 1000, **kw
            )

        try:
            async with asyncio.timeout(self.config.timeout_s):
                status, body = await self._send(payload)
        except TimeoutError:
            return done(
                ok=False,
                error_kind="timeout",
                error=f"no complete reply within {self.config.timeout_s:g} s",
            )
        except httpx.TimeoutException as exc:
            return done(
                ok=False,
                error_kind="timeout",
                error=f"{type(exc).__name__} after {self.config.timeout_s:g} s",
            )
        except (
            httpx.ConnectError,
            httpx.RemoteProtocolError,
            httpx.ReadError,
            httpx.WriteError,
        ) as exc:
            return done(ok=False, error_kind="connect", error=f"{type(exc).__name__}: {exc}")
        except _Malformed as exc:
            return done(ok=False, error_kind="malformed", error=str(exc))
        except httpx.HTTPError as exc:
            return done(ok=False, error_kind="connect", error=f"{type(exc).__name__}: {exc}")
        if status >= 400:
            snippet = body[:200].decode("utf-8", "replace")
            return done(ok=False, error_kind="http_status", error=f"HTTP {status}: {snippet}")
        try:
            return done(ok=True, **self._parse(body))
        except _Malformed as exc:
            return done(ok=False, error_kind="malformed", error=str(exc))

    async def _send(self, payload: dict[str, Any]) -> tuple[int, bytes]:
        """One HTTP exchange; the reply body is read up to ``max_reply_bytes``."""
        client = self._http()
        if self.config.method == "GET":
            params = {
                k: v if isinstance(v, str) else json.dumps(v)
                for k, v in payload.items()
                if v is not None
            }
            request = client.build_request("GET", self.config.url, params=params)
        else:
            request = client.build_request("POST", self.config.url, json=payload)
        response = await client.send(request, stream=True)
        try:
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > self.config.max_reply_bytes:
                    raise _Malformed(f"reply larger than {self.config.max_reply_bytes} bytes")
                chunks.append(chunk)
        finally:
            await response.aclose()
        return response.status_code, b"".join(chunks)

    def _parse(self, body: bytes) -> dict[str, Any]:
        """Map a reply body to LegacyAnswer fields; raise _Malformed with a clear reason."""
        try:
            data = json.loads(body)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            head = body[:80].decode("utf-8", "replace")
            raise _Malformed(
                f"reply is not JSON ({exc.msg if hasattr(exc, 'msg') else exc}): {head!r}"
            ) from None
        warnings: list[str] = []
        answer = self._answer.search(data) if self._answer else None
        if answer is None:
            raise _Malformed(f"no answer at answer_path {self.config.answer_path!r}")
        if isinstance(answer, bool) or not isinstance(answer, str | int | float):
            raise _Malformed(
                f"answer_path {self.config.answer_path!r} gave a {type(answer).__name__}, not text"
            )
        answer = str(answer)
        sources: list[LegacySource] = []
        if self._sources is not None:
            items = self._sources.search(data)
            if items is None:
                warnings.append(f"sources_path {self.config.sources_path!r} matched nothing")
                items = []
            if not isinstance(items, list):
                raise _Malformed(
                    f"sources_path {self.config.sources_path!r} gave a "
                    f"{type(items).__name__}, not a list"
                )
            sources = [self._source(item) for item in items]
        found = bool(answer.strip())
        if self._found is not None:
            flag = self._found.search(data)
            if not isinstance(flag, bool):
                raise _Malformed(
                    f"found_path {self.config.found_path!r} gave {flag!r}, not true/false"
                )
            found = flag
        return {
            "answer": answer,
            "sources": tuple(sources),
            "found": found,
            "warnings": tuple(warnings),
        }

    def _source(self, item: Any) -> LegacySource:
        """Map one source item (object, or a bare string taken as its path)."""
        if isinstance(item, str):
            return LegacySource(path=item)
        if not isinstance(item, Mapping):
            raise _Malformed(f"a source item is a {type(item).__name__}, not an object or string")
        got = {k: expr.search(item) for k, expr in self._fields.items() if expr is not None}
        score = got.get("score")
        return LegacySource(
            path="" if got.get("path") is None else str(got["path"]),
            page=_as_int(got.get("page")),
            quote="" if got.get("quote") is None else str(got["quote"]),
            score=float(score)
            if isinstance(score, int | float) and not isinstance(score, bool)
            else None,
            chunk_id="" if got.get("chunk_id") is None else str(got["chunk_id"]),
        )
