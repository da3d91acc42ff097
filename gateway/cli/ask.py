"""``loopgate ask "question" --collection NAME [--mode rag|loop|auto]``: answer one question.

``--mode rag`` (default) reads the question as ``/v1/query`` with mode rag reads it
(``gateway.routing.Router.read_as``: exclusion clauses left out, cross-language key terms, a
relative period dated; printed as ``read as: …`` when it differs), then runs the RAG fast path
alone on that reading (:class:`rag.pipeline.RagPipeline`: hybrid retrieval, calibrated
confidence, extractive answer with verified citations, no LLM answer) and prints
the answer, the citations (file, section path, page, lines, quote), the confidence with its
features, the retrieved items and the time of each stage — or all of it as JSON with ``--json``.
``--mode loop`` dispatches to ``gateway.cli.ask_loop.ask_loop`` (the LoopAgent alone) and
``--mode auto`` to ``gateway.cli.ask_auto.ask_auto`` (the router) when that module exists.
Exit code 0 on an answer or an explicit "not found", 1 when the store is unavailable or the
collection does not exist, 2 on usage errors.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import json
import sys
from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from gateway.cli._status import DICTIONARY, slow_step, slow_steps
from gateway.cli.report import answer_to_dict, print_rag_answer, print_unresolved

if TYPE_CHECKING:
    from gateway.settings import Settings

__all__ = [
    "AskMode",
    "CollectionOption",
    "ask_command",
    "ask_rag",
    "not_utf8",
    "register",
    "too_long",
]


class AskMode(StrEnum):
    """Which path answers: the RAG fast path, the LoopAgent, or the router deciding."""

    rag = "rag"
    loop = "loop"
    auto = "auto"


#: ``--collection`` / ``-c`` of the question commands (ask, chat): the collection asked,
#: ``None`` = the ``default_collection`` setting
CollectionOption = Annotated[
    str | None, typer.Option("--collection", "-c", help="Collection (default: setting).")
]


def not_utf8(text: str) -> str:
    """``""`` when ``text`` is Unicode text; else a message naming its first byte that was not
    UTF-8. Python decodes argv and stdin with ``surrogateescape``, so such bytes (a Latin-1
    terminal, a GBK file piped in) arrive as lone surrogates U+DC80..U+DCFF, which the tokenizer
    (OpenCC) cannot encode."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(text[exc.start])
        what = f"byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"U+{code:04X}"
        return (
            f"the question is not UTF-8 text ({what} at character {exc.start + 1}); "
            "set the terminal or the input file to UTF-8"
        )
    return ""


def too_long(text: str) -> str:
    """``""`` when ``text`` is within ``QUESTION_MAX_CHARS`` (the HTTP API's bound,
    ``gateway.routing.types``); else the message saying so (ask and chat refuse it)."""
    from gateway.routing.types import QUESTION_MAX_CHARS

    if len(text) <= QUESTION_MAX_CHARS:
        return ""
    return (f"the question holds {len(text):,} characters; at most {QUESTION_MAX_CHARS:,} "
            "(as over HTTP)")


def ask_rag(
    question: str,
    collection: str,
    *,
    settings: Settings | None = None,
    top_k: int | None = None,
    documents: tuple[str, ...] = (),
    path_prefix: str = "",
    as_json: bool = False,
    current_date: str | None = None,
) -> int:
    """Run the RAG path for one question and print the report; returns the exit code.

    The question is read as ``/v1/query`` with mode ``rag`` reads it (``Router.read_as`` of the
    gateway's own router: exclusion clauses left out, cross-language key terms, a relative
    period dated for retrieval), shown first as ``read as: …`` when the reading differs (JSON:
    ``rewritten_question``); the pipeline retrieves and answers its retrieval text (JSON:
    ``retrieval_query``) inside ``documents`` / ``path_prefix``; ``current_date``
    (``YYYY-MM-DD``; default today) is the day a relative period is read from."""

    import asyncio

    from corpus.errors import StoreError
    from gateway.conversation.cedict import ready_before_first_question
    from gateway.routing import QueryInput
    from gateway.settings import get_settings
    from gateway.wiring import build_components, build_retriever, open_collection, store_location
    from rag.embedder import check_collection, runtime_note
    from rag.errors import RetrievalError
    from rag.pipeline import RagPipeline
    from rag.retriever import resolve_filter

    # no LLM answers here: no speed probe (a configured LLM still reads the question, as the
    # router's conversation stage does for /v1/query)
    s = (settings or get_settings()).model_copy(update={"llm_budgets": "fixed"})
    err = Console(stderr=True)
    c = build_components(s, step=slow_steps(err))  # says what it loads while it is slow
    try:
        if c.store is None:
            err.print(f"[red]error:[/] the chunk store is unavailable: {c.store_error}")
            return 1
        store, embedder, why = c.store, c.embedder, c.embedder_error
        try:
            # a missing collection or a data directory held by `loopgate serve` fails here,
            # before the dictionary loads (a trial waited for it, then read the error)
            open_collection(store, collection, where=store_location(s))
            with slow_step(err, DICTIONARY):  # the CC-CEDICT index, as `loopgate chat`
                ready_before_first_question(s.cross_language)
            if embedder is None:
                from gateway.wiring import dense_without_model

                refused = dense_without_model(s, store, why, only=collection)
                if refused:
                    err.print(f"[red]error:[/] {refused[collection]}", markup=True)
                    return 1
                why = why or "LOOPGATE_EMBED_MODEL_PATH is not set"
                err.print(f"[yellow]no embedding model ({why}): keyword-only[/]")
            state = check_collection(store, collection, embedder)
            if state == "no_dense":
                err.print("[yellow]the collection has no dense vectors yet: keyword-only[/]")
                embedder = None
            elif state == "runtime_differs":
                err.print(f"[yellow]warning: {runtime_note(store, collection)}[/]")
            flt = resolve_filter(store, collection, documents=documents,
                                 path_prefix=path_prefix)
            # the question as the router reads it (the caller's filter kept)
            read = asyncio.run(c.router.read_as(QueryInput(question, collection, "rag",
                                                           filters=flt,
                                                           current_date=current_date)))
            if read.unresolved is not None:  # "下一条呢？" with no earlier turn: not found
                print_unresolved(question, read.unresolved, as_json)
                return 0
            asked = read.query
            scope = asked.filters if asked.filters and not asked.filters.is_empty() else None
            pipeline = RagPipeline(
                build_retriever(s, store, c.tokenizer, embedder),
                answer_floor=s.rag_answer_floor,
            )
            ans = pipeline.run(read.retrieval_query, collection, top_k=top_k, flt=scope,
                               current_date=current_date)
        except (StoreError, RetrievalError) as exc:
            err.print(f"[red]error:[/] {exc}")
            return 1
    finally:
        asyncio.run(c.aclose())
    shown: dict[str, Any] = {}
    if read.rewritten_question:
        shown["rewritten_question"] = read.rewritten_question
    shown["retrieval_query"] = read.retrieval_query
    if not ans.found:  # as the router says it: Chinese for a Chinese question
        from gateway.routing.plan import not_found_text

        ans = dataclasses.replace(ans, answer=not_found_text(question, ans.answer))
    if as_json:
        body = {**answer_to_dict(ans), **shown}
        sys.stdout.write(json.dumps(body, ensure_ascii=False, indent=2) + "\n")
    else:
        if read.rewritten_question:
            Console(emoji=False).print(f"read as: {read.rewritten_question}", markup=False,
                                       style="dim italic")
        print_rag_answer(ans)
    return 0


def ask_command(
    question: Annotated[str, typer.Argument(help="The question (any language).")],
    collection: CollectionOption = None,
    mode: Annotated[
        AskMode, typer.Option(help="rag = fast path, loop = LoopAgent, auto = router.")
    ] = AskMode.rag,
    top_k: Annotated[
        int | None, typer.Option("--top-k", min=1, max=100, help="Items retrieved.")
    ] = None,
    doc: Annotated[
        list[str] | None,
        typer.Option(
            "--doc", help="Restrict to this document (path, file name or id); repeatable."
        ),
    ] = None,
    path_prefix: Annotated[
        str, typer.Option("--path-prefix", help="Restrict to documents under this path.")
    ] = "",
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    current_date: Annotated[
        datetime.datetime | None,
        typer.Option("--current-date", formats=["%Y-%m-%d"],
                     help="Today's date (YYYY-MM-DD) for questions relative to it (default: "
                          "today), as the HTTP API's current_date."),
    ] = None,
) -> None:
    """Answer one question from a collection and show citations, confidence and timings."""
    from gateway.cache.normalize import empty_question
    from gateway.settings import get_settings

    if bad := not_utf8(question):  # first: the emptiness test reads the text
        raise typer.BadParameter(bad, param_hint="QUESTION")
    if (empty := empty_question(question)) is not None:  # HTTP's wording (a 400 there)
        raise typer.BadParameter(empty)
    if long := too_long(question):
        raise typer.BadParameter(long, param_hint="QUESTION")
    if top_k is not None and mode is not AskMode.rag:
        raise typer.BadParameter("--top-k applies to --mode rag only", param_hint="--top-k")
    s = get_settings()
    coll = collection or s.default_collection
    documents = tuple(doc or ())
    today = current_date.date().isoformat() if current_date is not None else None
    run: Callable[..., int]  # the mode's command: each takes the same arguments
    if mode is AskMode.rag:
        run = functools.partial(ask_rag, top_k=top_k)
    elif mode is AskMode.loop:
        from gateway.cli.ask_loop import ask_loop

        run = ask_loop
    else:
        from gateway.cli.ask_auto import ask_auto

        run = ask_auto
    code = run(question, coll, settings=s, as_json=as_json, documents=documents,
               path_prefix=path_prefix, current_date=today)
    raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    """Add ``ask`` to the ``loopgate`` command line."""
    app.command("ask")(ask_command)
