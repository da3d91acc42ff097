"""Response bodies of the HTTP API: :class:`OrjsonResponse` (every route's JSON response class)
and :func:`result_body`, the JSON body of one answer (``POST /v1/query``, and the migration hook
when LoopGate served)."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import Response

from gateway.routing import QueryResult

__all__ = ["OrjsonResponse", "result_body"]


class OrjsonResponse(Response):
    """JSON response rendered with orjson (dataclasses, non-str keys and numpy values work)."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        """Serialise ``content`` to JSON bytes."""
        return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY)


def result_body(result: QueryResult) -> dict[str, Any]:
    """The JSON body of a :class:`~gateway.routing.QueryResult`."""
    route = result.route or {}
    return {**result.to_dict(), "cached": result.cached, "route": route,
            "rewritten_question": route.get("rewritten_question")}
