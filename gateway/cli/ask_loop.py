"""``loopgate ask "question" --collection NAME --mode loop``: the LoopAgent path alone.

:func:`ask_loop` builds the gateway components from settings (chunk store, hybrid retriever as
the ``search`` tool, LLM client when ``LOOPGATE_LLM_BASE_URL`` is set, else the offline
policy), reads the question as the router reads it (``gateway.routing.Router.read_as``), seeds
the agent with the RAG retrieval's candidates as the router does, runs
one :class:`loop.agent.LoopAgent` question with ``asyncio.run`` and prints the question as read
(when rewritten), the answer, the verified citations, the step trace, tokens and time (or all
of it as JSON).
``gateway.cli.ask`` (engineer C) dispatches ``--mode loop`` here.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import TYPE_CHECKING, Any

from rich.console import Console

from gateway.cli._question import open_question_scope, question_components
from gateway.cli.report import print_citation
from loop.results import LoopResult

if TYPE_CHECKING:
    from gateway.settings import Settings

__all__ = ["ask_loop", "print_loop_result"]


def print_loop_result(res: LoopResult, *, console: Console | None = None) -> None:
    """Human-readable report of a :class:`loop.results.LoopResult`."""
    from rich.table import Table

    con = console or Console(emoji=False)
    con.print(f"[bold]answer[/bold] ({'found' if res.found else 'not found'}):")
    con.print(res.answer, markup=False, emoji=False)
    if res.fallback:
        con.print(f"the LoopAgent handed the question back (fallback_to_rag): "
                  f"{res.fallback_reason}; --mode loop runs no RAG path: ask with --mode auto "
                  "or --mode rag for its answer", markup=False, emoji=False)
    for i, c in enumerate(res.citations, 1):
        print_citation(con, f"[{i}]", c)
    trace = Table(title="steps", show_edge=False)
    for col in ("#", "kind", "tool", "arguments", "status", "chars", "ms"):
        trace.add_column(col)
    for s in res.steps:
        args = json.dumps(s.arguments, ensure_ascii=False)
        trace.add_row(str(s.step), s.kind, s.tool, args[:60], s.status, str(s.result_chars),
                      f"{s.elapsed_ms:.0f}")
    con.print(trace)
    con.print(f"brain {res.brain} | stop {res.stop_reason} | tool calls {res.tool_calls} | "
              f"LLM calls {res.llm_calls} | tokens {res.prompt_tokens}+{res.completion_tokens} | "
              f"dropped citations {res.dropped_citations} | {res.elapsed_ms / 1000:.2f} s")


def ask_loop(question: str, collection: str, *, settings: Settings | None = None,
             offline: bool = False, as_json: bool = False,
             history: list[dict[str, str]] | None = None, current_date: str | None = None,
             documents: tuple[str, ...] = (), path_prefix: str = "") -> int:
    """Run one LoopAgent question and print the report; returns the exit code (0 answered or
    explicit not-found, 1 when the store is unavailable, the collection does not exist or
    ``documents`` / ``path_prefix`` (every search restricted to them) match no document).

    The agent reads the question as the router reads it (``Router.read_as``: a follow-up of
    ``history`` rewritten into a standalone question, exclusion clauses left out,
    cross-language key terms), printed first as ``read as: …`` (JSON: ``rewritten_question``)
    when it differs from the question asked, and is seeded as the router seeds it: the RAG
    retrieval's candidates for the question's retrieval text (top ``rag_top_k``), every search
    inside the documents that retrieval resolved the question to unless ``documents`` /
    ``path_prefix`` restrict it (JSON: ``retrieval_query``, ``candidates`` as chunk ids,
    ``resolution`` as document paths)."""
    from gateway.settings import get_settings

    s = settings or get_settings()
    if offline:  # no LLM call: nothing to size, no speed probe
        s = s.model_copy(update={"llm_budgets": "fixed"})
    c = question_components(s, Console(stderr=True))
    if c.store is None or c.agent is None:
        print(f"error: the chunk store is unavailable: {c.store_error or 'not configured'}",
              file=sys.stderr)
        asyncio.run(c.aclose())
        return 1
    from gateway.routing import QueryInput

    opened, flt = open_question_scope(c, collection, documents=documents,
                                      path_prefix=path_prefix)
    if not opened:
        return 1

    agent, router = c.agent, c.router
    top_k = s.rag_top_k

    async def go() -> tuple[Any, dict[str, Any]]:
        try:
            # the question as the router reads it: a follow-up of ``history`` rewritten into a
            # standalone question, exclusion clauses left out, cross-language key terms
            q = QueryInput(question, collection, "loop", filters=flt,
                           history=tuple(history or ()), current_date=current_date)
            read = await router.read_as(q) if router is not None else None
            if read is not None and read.unresolved is not None:
                return None, {"unresolved": read.unresolved}  # no earlier turn to read it by
            asked = read.query if read is not None else q
            scope = asked.filters if asked.filters and not asked.filters.is_empty() else None
            shown: dict[str, Any] = {}
            if read is not None and read.rewritten_question:
                shown["rewritten_question"] = read.rewritten_question
            seeds: list[Any] = []
            rag = router.rag if router is not None else None
            if rag is not None and read is not None:
                # seeded as the router seeds it: the RAG retrieval's candidates, and its
                # searches inside the documents that retrieval resolved the question to
                got = await rag.retrieve(collection, read.retrieval_query, top_k=top_k, flt=scope)
                seeds = list(got.hits)
                scope = scope or got.resolved
                shown["retrieval_query"] = read.retrieval_query
                shown["candidates"] = [h.chunk.chunk_id for h in seeds]
                res_paths = getattr(getattr(got.raw, "resolution", None), "paths", None)
                if got.resolved is not None and res_paths:
                    shown["resolution"] = list(res_paths)
            res = await agent.run_async(asked.question, collection, candidates=seeds,
                                        history=list(asked.history), current_date=current_date,
                                        offline=offline, flt=scope,
                                        search_query=read.retrieval_query
                                        if read is not None else None)
            return res, shown
        finally:
            await c.aclose()

    res, shown = asyncio.run(go())
    if res is None:
        from gateway.cli.report import print_unresolved

        print_unresolved(question, shown["unresolved"], as_json)
        return 0
    if not res.found:  # as the router says it: Chinese for a Chinese question
        from gateway.routing.plan import not_found_text

        res.answer = not_found_text(question, res.answer)
    if as_json:
        print(json.dumps({**res.to_dict(), **shown}, ensure_ascii=False, indent=2))
    else:
        if rewritten := shown.get("rewritten_question"):
            Console(emoji=False).print(f"read as: {rewritten}", markup=False,
                                       style="dim italic")
        print_loop_result(res)
    return 0
