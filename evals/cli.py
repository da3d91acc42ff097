"""``loopgate eval``: run the evaluation harness on question files, or compare two runs.

    loopgate eval QUESTIONS.jsonl [...] --collection NAME --mode rag|loop|auto
                  [--limit N] [--concurrency N] [--out DIR] [--ingest PATH]
                  [--context conversation|history|none] [--no-context]
    loopgate eval compare A/summary.json B/summary.json
    loopgate eval report RUN_DIR [...]      (rewrite report.html, e.g. after sibling runs)

Outputs (``--out``, default ``./eval-runs/<mode>``): ``results.jsonl``, ``summary.json``,
``report.html``; a progress bar while running and the summary table at the end.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from corpus.catalogue import Catalogue
from corpus.errors import StoreError
from evals.compare import compare_summaries, load_summary, render_comparison
from evals.gold import doc_matches
from evals.harness import run_eval
from evals.questions import QuestionFormatError, load_questions
from evals.report import render_table
from evals.report_html import write_report
from gateway.settings import get_settings

__all__ = ["eval_command", "find_baseline", "register"]

_HELP = (
    "Evaluate on question files (JSONL, ../shared/eval format): evidence hit, hit@k, answer "
    "containment, refusals, routes, LLM cost, latency, confidence AUROC; writes results.jsonl, "
    "summary.json and report.html. `loopgate eval compare A/summary.json B/summary.json` prints "
    "the differences of two runs."
)


def find_baseline(question_files: list[Path], name: str = "B3") -> Path | None:
    """``baseline/<name>.jsonl`` in a folder above the first question file (the eval folder)."""
    for qf in question_files[:1]:
        for parent in qf.resolve().parents:
            cand = parent / "baseline" / f"{name}.jsonl"
            if cand.exists():
                return cand
    return None


def _compare(paths: list[str]) -> None:
    if len(paths) != 2:
        raise typer.BadParameter("compare takes exactly two summary.json files (or run folders)")
    try:
        a, b = load_summary(paths[0]), load_summary(paths[1])
    except ValueError as exc:
        typer.secho(f"error: {exc}", fg="red", err=True)
        raise typer.Exit(2) from exc
    render_comparison(compare_summaries(a, b))


def _report(dirs: list[str]) -> None:
    """Rewrite ``report.html`` of run folders from their ``results.jsonl`` and ``summary.json``
    (after sibling runs finished, so the per-mode chart holds them all)."""
    if not dirs:
        raise typer.BadParameter("report takes one or more run folders")
    for d in map(Path, dirs):
        try:
            summary = load_summary(d)
            lines = (d / "results.jsonl").read_text(encoding="utf-8").splitlines()
            rows = [json.loads(x) for x in lines if x.strip()]
        except (ValueError, OSError) as exc:
            typer.secho(f"error: {d}: {exc}", fg="red", err=True)
            raise typer.Exit(2) from exc
        render_table(summary)
        typer.echo(f"wrote {write_report(d, rows, summary)}")


def _ingest(path: Path, collection: str) -> None:
    """Run ``loopgate ingest PATH --collection NAME`` to completion before the store opens (the
    embedded engine is single-process, so it must be a finished step, not a concurrent one)."""
    cmd = [
        sys.executable,
        "-c",
        "from gateway.cli import main; main()",
        "ingest",
        str(path),
        "--collection",
        collection,
    ]
    typer.echo(f"ingesting {path} into {collection!r} …")
    done = subprocess.run(cmd, check=False)
    if done.returncode != 0:
        typer.secho(f"error: ingest failed (exit {done.returncode})", fg="red", err=True)
        raise typer.Exit(1)


def _warn_missing_gold(store: Any, collection: str, questions: list[Any]) -> None:
    """Say when gold documents of the selected questions are not in the collection: those
    questions cannot score (a new user ran the DRCD set against the PDF sample collection and
    got 0 % with no hint why)."""
    paths = list(Catalogue(store).entries(collection))
    with_gold = [q for q in questions if q.gold_docs]
    missing = [q for q in with_gold if not any(doc_matches(q, p) for p in paths)]
    if missing:
        typer.secho(
            f"warning: {len(missing)} of {len(with_gold)} questions have gold documents that are "
            f"not in collection {collection!r} (e.g. {missing[0].doc}); they cannot score a hit. "
            "Ingest the documents the questions refer to (question paths are relative to the "
            "eval folder).",
            fg="yellow", err=True,
        )


def eval_command(
    args: Annotated[
        list[str],
        typer.Argument(help="Question files (.jsonl); or: compare A B; or: report DIR..."),
    ],
    collection: Annotated[
        str,
        typer.Option(
            "--collection", "-c", help="Collection holding the documents (default: settings)."
        ),
    ] = "",
    mode: Annotated[str, typer.Option("--mode", "-m", help="rag, loop or auto.")] = "auto",
    limit: Annotated[
        int | None, typer.Option("--limit", "-n", min=1, help="First N questions only.")
    ] = None,
    concurrency: Annotated[
        int,
        typer.Option("--concurrency", "-j", min=1, help="Questions in flight (asyncio tasks)."),
    ] = 1,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Output folder (default eval-runs/MODE).")
    ] = None,
    ingest: Annotated[
        Path | None, typer.Option("--ingest", help="Ingest this folder/file first.")
    ] = None,
    k: Annotated[int, typer.Option("--k", min=1, help="Candidates counted by evidence hit@k.")] = 5,
    dataset: Annotated[
        list[str] | None, typer.Option("--dataset", help="Only these source_dataset values.")
    ] = None,
    baseline: Annotated[
        Path | None,
        typer.Option("--baseline", help="Per-question baseline (default: eval/baseline/B3.jsonl)."),
    ] = None,
    offline: Annotated[
        bool, typer.Option("--offline", help="LoopAgent offline policy even with an LLM.")
    ] = False,
    progress: Annotated[
        bool, typer.Option("--progress/--no-progress", help="Show a progress bar.")
    ] = True,
    context: Annotated[
        str, typer.Option("--context", help="How a question's `context` (earlier turn) is "
                          "asked: conversation (earlier turn first, one session, through the "
                          "session memory), history (sent as history) or "
                          "none.")
    ] = "conversation",
    no_context: Annotated[
        bool, typer.Option("--no-context", help="Ask every question alone (= --context none).")
    ] = False,
) -> None:
    """Run the evaluation harness (see the module docstring)."""
    if args and args[0] == "compare":
        _compare(args[1:])
        return
    if args and args[0] == "report":
        _report(args[1:])
        return
    if mode not in ("rag", "loop", "auto"):
        raise typer.BadParameter(f"--mode must be rag, loop or auto, not {mode!r}")
    if context not in ("conversation", "history", "none"):
        raise typer.BadParameter(f"--context must be conversation, history or none, not "
                                 f"{context!r}")
    context_mode = "none" if no_context else context
    files = [Path(a) for a in args]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise typer.BadParameter(f"question file(s) not found: {', '.join(missing)}")
    try:
        questions = load_questions(files)
    except QuestionFormatError as exc:
        typer.secho(f"error: {exc}", fg="red", err=True)
        raise typer.Exit(2) from exc
    if dataset:
        questions = [q for q in questions if q.source_dataset in dataset]
    if limit is not None:
        questions = questions[:limit]
    if not questions:
        typer.secho("error: no questions selected", fg="red", err=True)
        raise typer.Exit(2)
    settings = get_settings()
    collection = collection or settings.default_collection
    if ingest is not None:
        _ingest(ingest, collection)
    base = baseline if baseline is not None else find_baseline(files)
    if baseline is not None and not baseline.exists():
        raise typer.BadParameter(f"baseline file not found: {baseline}")
    out_dir = out or Path("eval-runs") / mode
    from evals.components import build_answerer

    try:
        built = build_answerer(mode, settings, offline=offline)
    except RuntimeError as exc:
        typer.secho(f"error: {exc}", fg="red", err=True)
        raise typer.Exit(1) from exc
    if collection not in built.store.list_collections():
        asyncio.run(built.aclose())
        typer.secho(
            f"error: collection {collection!r} does not exist under "
            f"{settings.qdrant_url or settings.data_dir}; ingest first (--ingest PATH)",
            fg="red",
            err=True,
        )
        raise typer.Exit(2)
    try:
        built.store.collection_meta(collection)  # opens it: a held data directory fails here
    except StoreError as exc:
        asyncio.run(built.aclose())
        typer.secho(f"error: {exc}", fg="red", err=True)
        raise typer.Exit(1) from exc
    _warn_missing_gold(built.store, collection, questions)

    async def go() -> dict[str, Any]:
        try:
            run = await run_eval(
                questions,
                built.answerer,
                collection=collection,
                mode=mode,
                k=k,
                concurrency=concurrency,
                out_dir=out_dir,
                baseline_path=base,
                progress=progress,
                context_mode=context_mode,  # type: ignore[arg-type]
                meta={
                    "context_mode": context_mode,
                    "question_files": [str(f) for f in files],
                    "offline": offline or not settings.llm_base_url,
                    "llm_model": settings.llm_model if settings.llm_base_url else "",
                    # the budgets in effect: probed from the model's speed unless fixed
                    "llm_budgets": built.components.llm_budgets,
                },
            )
        finally:
            await built.aclose()
        return run.summary

    summary = asyncio.run(go())
    render_table(summary)
    typer.echo(f"wrote {out_dir}/results.jsonl, summary.json, report.html")


def register(app: typer.Typer) -> None:
    """Add ``eval`` to the ``loopgate`` app."""
    app.command("eval", help=_HELP)(eval_command)
