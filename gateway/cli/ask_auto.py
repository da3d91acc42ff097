"""``loopgate ask "question" --mode auto``: one question through the router (cache → RAG →
LoopAgent → fallback), in this process, with the same components ``loopgate serve`` builds.

``gateway.cli.ask`` dispatches ``--mode auto`` here. Prints the answer, the verified citations
and the route record's decision, reason, final path, confidence, flags and timings (or the
whole result as JSON). Exit code 0 on an answer or an explicit "not found"; 1 when the store is
unavailable — including an embedded data directory held by a running ``loopgate serve``, which
is said plainly (ask through its HTTP API instead).
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import TYPE_CHECKING, Any

from rich.console import Console

from gateway.cli._question import open_question_scope, question_components
from gateway.cli.report import print_citation

if TYPE_CHECKING:
    from gateway.settings import Settings

__all__ = ["ask_auto", "print_result"]


def print_result(body: dict[str, Any], *, console: Console | None = None) -> None:
    """Human-readable report of a router result (``QueryResult`` as a dict with ``route``)."""
    con = console or Console(emoji=False)
    route = body["route"]
    con.print(f"[bold]answer[/bold] ({'found' if body['found'] else 'not found'}"
              f"{', cached' if body['cached'] else ''}):")
    con.print(body["answer"], markup=False, emoji=False)
    for i, c in enumerate(body["citations"], 1):
        print_citation(con, f"[{i}]", c)
    if body.get("related"):
        con.print("[bold]related[/bold]:")
    for c in body.get("related") or ():
        print_citation(con, "-", c)
    decision = route.get("decision") or {}
    conf = route.get("confidence")
    con.print(f"[bold]route[/bold] {decision.get('route', '')} → {route.get('final_path')} "
              f"(brain {route.get('brain') or '-'}; confidence "
              f"{'-' if conf is None else f'{conf:.3f}'})", markup=True)
    con.print(f"  reason: {decision.get('reason', '')}", markup=False)
    if route.get("flags"):
        con.print(f"  flags: {', '.join(route['flags'])}", markup=False)
    for step in route.get("steps") or ():
        con.print(f"  step {step.get('step')}: {step.get('tool') or step.get('kind')} "
                  f"{json.dumps(step.get('arguments') or {}, ensure_ascii=False)[:70]} "
                  f"[{step.get('status')}]", markup=False)
    con.print("[bold]timings[/bold] " + "  ".join(
        f"{k} {v:.1f} ms" for k, v in (route.get("latency_ms") or {}).items()))


def ask_auto(question: str, collection: str, *, settings: Settings | None = None,
             as_json: bool = False, history: list[dict[str, str]] | None = None,
             documents: tuple[str, ...] = (), path_prefix: str = "",
             current_date: str | None = None) -> int:
    """Route one question and print the result; returns the exit code (1 when the collection
    does not exist or ``documents`` / ``path_prefix``, which restrict retrieval as the HTTP
    API's ``filters`` do, match no document). ``current_date`` (``YYYY-MM-DD``) as the HTTP
    API's."""
    from gateway.errors import GatewayError
    from gateway.routing import QueryInput
    from gateway.settings import get_settings

    s = settings or get_settings()
    c = question_components(s, Console(stderr=True))
    opened, flt = open_question_scope(c, collection, documents=documents,
                                      path_prefix=path_prefix)
    if not opened:
        return 1

    async def go() -> dict[str, Any]:
        try:
            res = await c.router.ask(QueryInput(question, collection, "auto", filters=flt,
                                                history=tuple(history or ()),
                                                current_date=current_date))
            return {**res.to_dict(), "cached": res.cached, "route": res.route}
        finally:
            await c.aclose()

    try:
        body = asyncio.run(go())
    except GatewayError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 1
    if as_json:
        print(json.dumps(body, ensure_ascii=False, indent=2, default=str))
    else:
        print_result(body)
    return 0
