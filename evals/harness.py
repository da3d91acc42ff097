"""The evaluation run: ask every question through an :class:`~evals.types.Answerer`,
score it, and write ``results.jsonl``, ``summary.json`` and ``report.html``.

Questions run as asyncio tasks, at most ``concurrency`` at a time, in this process (embedded
Qdrant is single-process). Follow-ups (a ``context`` field) are asked, by ``context_mode``:
``conversation`` (default) — its earlier turn first, then the question, in one session through
the session memory (answerers with a ``converse`` method: the router, and the RAG pipeline and
the LoopAgent given the router; without one, ``history``); ``history`` — the earlier turn sent
as history;
``none`` — the question alone.
``assumes_current_date:`` tags pass their date. An answerer exception never stops
the run: the question is recorded with ``error`` set, route ``error``, and scored as missed.

Usage example::

    run = await run_eval(questions, answerer, collection="eval", mode="rag", out_dir=Path("out"))
    run.summary["evidence_hit"], run.summary["by_dataset"]["DRCD"]["answer_contains"]
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

from corpus.tuning import tuning_record
from evals.questions import Question
from evals.scoring import score_question
from evals.summary import compare_with_baseline, load_baseline, summarise
from evals.types import Answerer, AnswerRecord

__all__ = ["EvalRun", "ask_one", "history_for", "result_row", "run_eval", "write_outputs"]

ProgressHook = Callable[[dict[str, Any]], None]


@dataclass
class EvalRun:
    """A finished run: rows in question order, the summary dict, and where files went."""

    rows: list[dict[str, Any]]
    summary: dict[str, Any]
    out_dir: Path | None = None
    files: dict[str, Path] = field(default_factory=dict)


def history_for(question: Question) -> list[dict[str, str]]:
    """Conversation history of a follow-up: its ``context`` as the previous user turn."""
    return [{"role": "user", "content": question.context}] if question.context else []


ContextMode = Literal["conversation", "history", "none"]


async def ask_one(answerer: Answerer, question: Question, collection: str,
                  context_mode: ContextMode = "conversation") -> AnswerRecord:
    """Ask one question (its ``context`` per ``context_mode``, module docstring); measures
    latency when the answerer did not, and turns any exception into a record with ``error``
    (route ``error``, ``found`` False)."""
    t0 = time.perf_counter()
    converse = getattr(answerer, "converse", None)
    try:
        if context_mode == "conversation" and question.context and converse is not None:
            record = cast(AnswerRecord, await converse(
                question, collection, turns=[question.context],
                current_date=question.current_date))
        else:
            record = await answerer.answer(
                question,
                collection,
                history=history_for(question) if context_mode != "none" else [],
                current_date=question.current_date,
            )
    except Exception as exc:  # noqa: BLE001 - one failing question must not end the run
        record = AnswerRecord(found=False, route="error", error=f"{type(exc).__name__}: {exc}")
    if not record.latency_ms:
        record.latency_ms = round((time.perf_counter() - t0) * 1000.0, 2)
    return record


def result_row(
    question: Question, record: AnswerRecord, *, mode: str, k: int = 5
) -> dict[str, Any]:
    """One ``results.jsonl`` record: question identity and gold, the ``score`` block, and the
    answer ``record`` (with its route record)."""
    return {
        "id": question.id,
        "dataset": question.source_dataset,
        "lang": question.lang,
        "tags": list(question.tags),
        "mode": mode,
        "question": question.question,
        "context": question.context,
        "gold_answer": question.answer,
        "gold_doc": question.doc,
        "gold_pages": [[g.doc, g.page] for g in question.gold_pages],
        "gold_section": question.section,
        "score": score_question(question, record, k=k),
        "record": record.to_dict(),
    }


async def run_eval(
    questions: Sequence[Question],
    answerer: Answerer,
    *,
    collection: str,
    mode: str,
    k: int = 5,
    concurrency: int = 1,
    out_dir: Path | None = None,
    baseline_path: Path | None = None,
    progress: bool = True,
    on_row: ProgressHook | None = None,
    meta: dict[str, Any] | None = None,
    context_mode: ContextMode = "conversation",
) -> EvalRun:
    """Run, score and (when ``out_dir`` is given) write the outputs.

    :param k: candidates counted by ``evidence_hit_at_k``.
    :param concurrency: questions in flight at once (asyncio tasks), ≥ 1.
    :param out_dir: where ``results.jsonl`` (appended as questions finish, rewritten in
        question order at the end), ``summary.json`` and ``report.html`` go; created if missing.
    :param baseline_path: per-question baseline (``B3.jsonl``); missing file = no comparison.
    :param progress: show a rich progress bar on the terminal.
    :param on_row: called with every finished row (tests, live dashboards).
    :param context_mode: how a question's ``context`` is asked (module docstring).
    :returns: the run; its summary records the tuned constants used under ``tuning``
        (``corpus.tuning.tuning_record``).
    :raises ValueError: ``concurrency < 1`` or an empty question list.
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1, got {concurrency}")
    if not questions:
        raise ValueError("no questions to evaluate")
    started = time.time()
    partial = None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240 - once per run, before any task
        partial = (out_dir / "results.jsonl").open("w", encoding="utf-8")
    rows: dict[int, dict[str, Any]] = {}
    sem = asyncio.Semaphore(concurrency)
    bar = _Bar(len(questions), f"{mode} · {collection}", enabled=progress)

    async def one(i: int, q: Question) -> None:
        async with sem:
            record = await ask_one(answerer, q, collection, context_mode)
        row = result_row(q, record, mode=mode, k=k)
        rows[i] = row
        if partial is not None:
            partial.write(json.dumps(row, ensure_ascii=False) + "\n")
            partial.flush()
        bar.advance(row)
        if on_row is not None:
            on_row(row)

    try:
        with bar:
            await asyncio.gather(*(one(i, q) for i, q in enumerate(questions)))
    finally:
        if partial is not None:
            partial.close()
    ordered = [rows[i] for i in sorted(rows)]
    info = {
        "mode": mode,
        "collection": collection,
        "k": k,
        "concurrency": concurrency,
        "started_at": started,
        "elapsed_s": round(time.time() - started, 2),
        "tuning": tuning_record(),  # the tuned constants this run used (corpus.tuning)
        **(meta or {}),
    }
    summary = summarise(ordered, **info)
    if baseline_path is not None and Path(baseline_path).exists():  # noqa: ASYNC240
        summary["baseline"] = compare_with_baseline(
            ordered, load_baseline(baseline_path), name=Path(baseline_path).stem
        )
    run = EvalRun(ordered, summary, out_dir)
    if out_dir is not None:
        run.files = write_outputs(out_dir, ordered, summary)
    return run


def write_outputs(
    out_dir: Path, rows: list[dict[str, Any]], summary: dict[str, Any]
) -> dict[str, Path]:
    """Write ``results.jsonl`` (question order), ``summary.json`` and ``report.html``."""
    from evals.report_html import write_report

    out_dir.mkdir(parents=True, exist_ok=True)
    results = out_dir / "results.jsonl"
    with results.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    summary_path = out_dir / "summary.json"
    summary_path.write_text(json.dumps(summary, ensure_ascii=False, indent=2), encoding="utf-8")
    report = write_report(out_dir, rows, summary)
    return {"results": results, "summary": summary_path, "report": report}


class _Bar:
    """A rich progress bar showing the running evidence-hit rate (no-op when disabled)."""

    def __init__(self, total: int, label: str, *, enabled: bool) -> None:
        self.total, self.label, self.enabled = total, label, enabled
        self.hits = self.scored = 0
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> _Bar:
        if self.enabled:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._progress = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[hit]}"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                transient=False,
            )
            self._progress.__enter__()
            self._task = self._progress.add_task(self.label, total=self.total, hit="")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)

    def advance(self, row: dict[str, Any]) -> None:
        hit = row["score"].get("evidence_hit")
        if hit is not None:
            self.scored += 1
            self.hits += bool(hit)
        if self._progress is not None:
            rate = f"evidence hit {self.hits / self.scored:.1%}" if self.scored else ""
            self._progress.update(self._task, advance=1, hit=rate)
