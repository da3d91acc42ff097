"""``loopgate chat``: an interactive session on one loaded process.

The components (``gateway.wiring.components.build_components``: store, embedding model, tokenizer,
cache, router) are built once, their background warm-up is waited for before the first question,
and every question runs on one event loop
(``asyncio.Runner``), so a question costs its own time only; each answer is followed by its
wall time. Lines read from standard input (a terminal gets line editing and input history from
``readline`` when Python has it; piped input works the same, one question per line):

- a question → the answer, its numbered citations and the route (decision, reason, final path);
  every question carries the conversation's ``session_id`` (``chat-`` + a random UUID, new on
  ``/new`` and ``/collection``), so a follow-up is rewritten from the session memory (earlier
  questions, facts given, what was read — "the next one" steps along the list the last answer
  cited); the earlier turns also go as ``history``;
- ``/mode auto|rag|loop``, ``/collection NAME`` (the collection must exist), ``/sources`` (the
  documents of the collection), ``/new`` (forget the conversation), ``/help``, ``/quit``.

Exit code 0 at the end of input or ``/quit``; 1 when the store cannot be opened (e.g. an
embedded data directory held by ``loopgate serve``: use its HTTP API or the Ask page).
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from gateway.cache.normalize import empty_question
from gateway.cli._status import DICTIONARY, slow_step, slow_steps
from gateway.cli.ask import AskMode, CollectionOption, not_utf8, too_long
from gateway.conversation.cedict import ready_before_first_question

if TYPE_CHECKING:
    from gateway.wiring import Components

__all__ = ["ChatSession", "chat_command", "print_answer", "register"]

HELP = ("commands: /mode auto|rag|loop · /collection NAME · /sources · /new (forget the "
        "conversation) · /help · /quit")
#: Turns of the conversation sent as history (user and assistant messages, most recent).
HISTORY_TURNS = 20


class ChatSession:
    """One chat session over built components.

    Usage example::

        session = ChatSession(components, "manuals", "auto", console)
        with asyncio.Runner() as runner:
            session.handle("How long is the warranty?", runner)

    :param components: ``gateway.wiring.components.Components`` (owned by the caller).
    :param collection: the collection asked; ``mode``: ``auto``, ``rag`` or ``loop``.
    """

    def __init__(self, components: Components, collection: str, mode: str,
                 console: Console) -> None:
        self.c, self.collection, self.mode, self.con = components, collection, mode, console
        self.history: list[dict[str, str]] = []
        self.session_id = _new_session()
        self.walls: list[float] = []

    def collections(self) -> list[str]:
        """Names of the store's collections (sorted)."""
        return sorted(self.c.store.list_collections())

    def handle(self, line: str, runner: asyncio.Runner) -> bool:
        """Act on one input line; returns False for ``/quit``."""
        line = line.strip()
        if not line:
            return True
        if bad := not_utf8(line):
            self.con.print(f"[red]error:[/] {bad}", markup=True, highlight=False)
            return True
        if line.startswith("/"):
            return self._command(line)
        if (empty := empty_question(line)) is not None:  # "??": HTTP's 400, in the same words
            self.con.print(f"[red]error:[/] {empty}", markup=True, highlight=False)
            return True
        if long := too_long(line):  # ask's and HTTP's limit: not kept in the session
            self.con.print(f"[red]error:[/] {long}", markup=True, highlight=False)
            return True
        self._ask(line, runner)
        return True

    def _command(self, line: str) -> bool:
        name, _, arg = line.partition(" ")
        arg = arg.strip()
        if name in ("/quit", "/exit", "/q"):
            return False
        if name == "/mode" and arg in {m.value for m in AskMode}:
            self.mode = arg
            self.con.print(f"mode: {arg}")
        elif name == "/collection" and arg:
            names = self.collections()
            if arg not in names:
                self.con.print(f"[red]no collection {arg!r}[/] (there are: "
                               f"{', '.join(names) or 'none'})")
            elif arg in self.c.embedding_mismatch:
                why = self.c.embedding_mismatch[arg].removeprefix("error: ")
                self.con.print(f"[red]error:[/] {why}")
            else:
                self.collection, self.history, self.session_id = arg, [], _new_session()
                self.con.print(f"collection: {arg} (conversation reset)")
        elif name == "/sources":
            self._sources()
        elif name == "/new":
            self.history, self.session_id = [], _new_session()
            self.con.print("conversation reset")
        elif name == "/help":
            self.con.print(HELP, markup=False)
        else:
            self.con.print(f"[red]unknown or incomplete command[/] {line!r}; {HELP}", markup=True)
        return True

    def _sources(self) -> None:
        from rich.table import Table

        from corpus.catalogue import Catalogue

        docs = Catalogue(self.c.store).documents(self.collection)
        table = Table(title=f"{self.collection}: {len(docs)} documents", title_justify="left")
        for col in ("path", "type", "pages", "chunks", "dense"):
            table.add_column(col)
        for d in docs:
            table.add_row(d.path, d.media_type, str(d.page_count), str(d.chunk_count),
                          "yes" if d.has_dense else "no")
        self.con.print(table)

    def _ask(self, question: str, runner: asyncio.Runner) -> None:
        from gateway.errors import GatewayError
        from gateway.routing import QueryInput

        q = QueryInput(question, self.collection, self.mode,  # type: ignore[arg-type]
                       history=tuple(self.history[-HISTORY_TURNS:]),
                       session_id=self.session_id)
        t0 = time.perf_counter()
        try:
            res = runner.run(self.c.router.ask(q))
        except GatewayError as exc:
            self.con.print(f"[red]error:[/] {exc.message}")
            return
        wall = time.perf_counter() - t0
        self.walls.append(wall)
        body = {**res.to_dict(), "cached": res.cached, "route": res.route}
        print_answer(body, self.con)
        self.con.print(f"[dim]wall time {wall:.2f} s (question {len(self.walls)})[/]")
        self.history += [{"role": "user", "content": question},
                         {"role": "assistant", "content": res.answer}]


def _new_session() -> str:
    """A new conversation id for the session memory."""
    import uuid

    return f"chat-{uuid.uuid4().hex}"


def print_answer(body: dict[str, Any], con: Console) -> None:
    """The question as read (a rewritten follow-up), the answer, its numbered citations and one
    route line (document text printed verbatim, no Rich markup)."""
    from corpus.citations import citation_location

    r = body["route"]
    if rewritten := body.get("rewritten_question") or r.get("rewritten_question"):
        con.print(f"  read as: {rewritten}", markup=False, style="dim italic")
    con.print(body["answer"], markup=False, style="bold" if body["found"] else "dim")
    for i, c in enumerate(body["citations"], 1):
        section = " > ".join(c.get("section_path") or ())
        con.print(f"  [{i}] {c['path']} | {section or '(top)'} | {citation_location(c)}",
                  markup=False, style="cyan")
        con.print(f"      \"{c['quote']}\"", markup=False)
    d = r.get("decision") or {}
    flags = [f for f in r.get("flags") or () if f != "degraded"]
    route, final = d.get("route", "-"), r.get("final_path")
    path = route if final in (None, route) else f"{route} → {final}"  # an escalation or fallback
    con.print(f"  route {path} ({d.get('reason', '')})"
              + (f" · flags {', '.join(flags)}" if flags else "")
              + (" · cached" if body.get("cached") else ""), markup=False, style="dim")


def _lines(interactive: bool) -> Any:
    """Input lines: ``input()`` with readline history on a terminal, else stdin lines."""
    if interactive:
        try:
            import readline  # noqa: F401 - line editing and history for input()
        except ImportError:
            pass
        while True:
            try:
                yield input("loopgate> ")
            except EOFError:
                return
    else:
        yield from sys.stdin


def chat_command(
    collection: CollectionOption = None,
    mode: Annotated[
        AskMode, typer.Option(help="auto = router, rag = fast path, loop = LoopAgent.")
    ] = AskMode.auto,
) -> None:
    """Ask questions interactively in one loaded process (/help lists the commands)."""

    from gateway.settings import get_settings
    from gateway.wiring import build_components, describe_budgets

    con = Console(emoji=False, highlight=False)
    s = get_settings()
    t0 = time.perf_counter()
    err = Console(stderr=True)
    c = build_components(s, step=slow_steps(err))  # says what it loads while it is slow
    if c.store is None:
        con.print(f"[red]error:[/] the chunk store cannot be opened: {c.store_error}")
        raise typer.Exit(1)
    session = ChatSession(c, collection or s.default_collection, mode.value, con)
    names = session.collections()
    if session.collection not in names:
        con.print(f"[red]error:[/] no collection {session.collection!r} (there are: "
                  f"{', '.join(names) or 'none'}; loopgate ingest DIR --collection NAME)")
        asyncio.run(c.aclose())
        raise typer.Exit(1)
    if session.collection in c.embedding_mismatch:  # dense vectors but no (or another) model
        # a store error comes as "error: …" (rag.embedder.startup_check): one "error:" is enough
        why = c.embedding_mismatch[session.collection].removeprefix("error: ")
        con.print(f"[red]error:[/] {why}")
        asyncio.run(c.aclose())
        raise typer.Exit(1)
    # the CC-CEDICT index (1-4 s) counts as loading, not as the first question's time
    # (measured: the first of 10 questions took 8.1 s, the same question once built 1.6 s)
    with slow_step(err, DICTIONARY):
        ready_before_first_question(s.cross_language)
    dense = "dense + keyword" if c.embedder is not None else "keyword-only"
    con.print(f"LoopGate chat · collection {session.collection} · mode {session.mode} · "
              f"{dense} · data {s.data_dir} · loaded in {time.perf_counter() - t0:.1f} s")
    if c.llm is not None and c.llm_budgets is not None:  # sized from the model's speed
        con.print(f"LLM budgets: {describe_budgets(c.llm_budgets)}", markup=False)
    con.print(HELP, markup=False)
    with asyncio.Runner() as runner:
        try:
            for line in _lines(sys.stdin.isatty()):
                if not session.handle(line, runner):
                    break
        except KeyboardInterrupt:
            con.print()
        finally:
            runner.run(c.aclose())
    if session.walls:
        walls = session.walls
        con.print(f"{len(walls)} questions, wall time per question: "
                  + ", ".join(f"{w:.2f}" for w in walls) + " s")


def register(app: typer.Typer) -> None:
    """Add ``chat`` to the ``loopgate`` command line."""
    app.command("chat")(chat_command)
