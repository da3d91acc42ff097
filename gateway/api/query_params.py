"""The query string of a route that takes named parameters only: a parameter it does not take,
or one given twice with different values, is a 400 naming them — not read as the last value.

A tester's ``DELETE /v1/documents/keep.md?collection=other&collection=victim`` (no collection
``other``) deleted ``keep.md`` from ``victim``: the web framework keeps the last value of a
repeated parameter. ``POST /v1/documents`` refuses the same input (``gateway.api.uploads``);
the document list, the delete and the page viewer now do too.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import Request

from gateway.errors import BadRequest

__all__ = ["strict_query"]


def strict_query(*names: str) -> Callable[[Request], None]:
    """A route dependency (``dependencies=[Depends(strict_query("collection"))]``) that checks
    the request's query string against the parameter ``names`` the route takes.

    :raises BadRequest: a parameter not among ``names``, or one of them given more than once
        with different values (the same value repeated is accepted).
    """
    allowed = frozenset(names)
    takes = ", ".join(map(repr, names)) or "no parameter"

    def check(request: Request) -> None:
        params = request.query_params
        unknown = sorted({k for k in params if k not in allowed})
        if unknown:
            raise BadRequest(f"unknown query parameter(s) {', '.join(map(repr, unknown))}: "
                             f"this route takes {takes}")
        for name in names:
            values = sorted(set(params.getlist(name)))
            if len(values) > 1:
                raise BadRequest(f"{name} given {len(params.getlist(name))} times with "
                                 f"different values ({', '.join(map(repr, values))}): name one")

    return check
