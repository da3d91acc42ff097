"""The worker processes of an ingest run (used by ``corpus.ingest``): they run the per-file work
(``corpus._ingest_prepare.prepare``: parse → chunk → keyword vectors → dense vectors) and embed
parsed documents, in process pools that isolate parser crashes.

Two kinds of worker process (``corpus.ingest`` uses both): *parse workers*
(:func:`run_prepare` without ``embed``) parse, chunk and compute keyword vectors, and hold no
model; *embed workers* (:func:`embed_prepared`) each build one embedder when they start
(``embed()``, e.g. a ``rag.embedder.FastEmbedEmbedder`` with its share of the ONNX threads)
and embed the parsed documents' chunks in tasks of ``batch`` chunks, so parsing runs beside
embedding, a long document is embedded by every embed worker at once, and the memory of a
scanned page's OCR (Tesseract at 300 dpi: about 0.5 GB for a 14 × 18 inch page) and of the
model (about 0.55 GB: the tokenizer of its 250,000-piece vocabulary and the ONNX session) is
never held by one process. At most ``2 × workers`` documents are parsed ahead of the consumer,
and :func:`embed_prepared` holds at most ``max_docs`` parsed documents, so memory stays flat
whatever the number of files. (:func:`run_prepare` with ``embed`` embeds in the parse workers
themselves, one whole document per worker.)
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from corpus._ingest_prepare import (
    Failure,
    ParseFn,
    Prepared,
    embed_texts,
    load_worker_embedder,
    prepare,
)
from corpus.types import PassageEmbedder

__all__ = ["embed_prepared", "run_prepare"]


def _worker_start() -> None:
    """What every worker process does first. It leaves Ctrl-C to the parent: the terminal sends
    SIGINT to the whole process group, and a worker interrupted mid-task would send back a
    ``KeyboardInterrupt`` as its result; the parent stops the workers itself (:func:`_kill`).
    And it ends when the parent ends, however that happens (SIGKILL, a crash): a daemon thread
    waits on ``multiprocessing.parent_process()`` (its sentinel closes with the parent), where
    an orphaned worker would finish its task and then wait for work forever. A worker writes
    nothing to the store, so ending it anywhere loses only its unfinished file."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is None:  # pragma: no cover - only called in a worker
        return

    def watch() -> None:
        parent.join()
        os._exit(1)

    threading.Thread(target=watch, name="loopgate-parent-watch", daemon=True).start()


def _warm(embed: Callable[[], PassageEmbedder] | None = None) -> None:
    """A parse worker's start: the tokenizer loaded, and its embedder when ``embed`` is given."""
    from corpus.tokenizer import Tokenizer

    _worker_start()
    Tokenizer().warm_up()
    if embed is not None:
        load_worker_embedder(embed)


#: seconds a terminated worker gets to end before it is killed (:func:`_kill`)
KILL_GRACE_S = 5.0


def _kill(pool: ProcessPoolExecutor | None) -> None:
    """Stop an interrupted run's workers now and wait until they have ended: queued jobs are
    cancelled (``shutdown(cancel_futures=True)``), each worker process gets SIGTERM
    (``multiprocessing.Process.terminate``; a worker is busy with a file or an embedding task
    and would otherwise finish it, or wait for work forever once the parent is gone), and is
    joined — killed if it has not ended after :data:`KILL_GRACE_S` — so no worker outlives the
    parent. A worker writes nothing to the store, so stopping it anywhere loses only its
    unfinished file."""
    if pool is None:
        return
    # ProcessPoolExecutor has no public way to stop a running task before Python 3.14
    # (terminate_workers); its worker processes are public multiprocessing.Process objects
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
    deadline = time.monotonic() + KILL_GRACE_S
    for proc in procs:
        proc.join(max(0.0, deadline - time.monotonic()))
        if proc.is_alive():
            proc.kill()
            proc.join(1.0)


def _warm_embedder(embed: Callable[[], PassageEmbedder]) -> None:
    """An embed worker's start: its embedder loaded."""
    _worker_start()
    load_worker_embedder(embed)


def _pool(workers: int, embed: Callable[[], PassageEmbedder] | None = None, *,
          embed_only: bool = False) -> ProcessPoolExecutor:
    # spawn, not fork: the parent holds engine threads (Qdrant, ONNX) that fork would copy badly
    ctx = multiprocessing.get_context("spawn")
    if embed_only and embed is not None:
        return ProcessPoolExecutor(max_workers=workers, mp_context=ctx,
                                   initializer=_warm_embedder, initargs=(embed,))
    return ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_warm,
                               initargs=(embed,))


def run_prepare(
    jobs: Sequence[tuple[str, str]],
    *,
    workers: int,
    parse: ParseFn | None = None,
    embed: Callable[[], PassageEmbedder] | None = None,
    max_pending: int | None = None,
    on_start: Callable[[int], None] | None = None,
) -> Iterator[tuple[int, Prepared | Failure]]:
    """Prepare ``(path, rel_path)`` jobs, yielding ``(job index, result)`` as they finish.

    ``workers <= 1`` runs in this process (``embed`` unused: the caller embeds; no sparse
    vectors either: the caller computes them batch by batch; ``on_start(i)`` is called before
    job ``i`` is parsed). Otherwise a pool
    of ``workers`` spawned processes does the work, each with its own embedder from ``embed``
    (a picklable zero-argument factory; ``None``: no dense vectors in the workers), jobs
    submitted in the given order and at most ``max_pending`` (default ``2 × workers``) in flight;
    if a worker dies (a parser crash), the unfinished jobs are re-run one at a time in a
    one-worker pool (a fresh one after each crash), and a job that kills its worker again yields
    ``Failure("corrupt", "the parser crashed …")``; the other jobs go on.
    """
    if workers <= 1:
        for i, (path, rel) in enumerate(jobs):
            if on_start is not None:
                on_start(i)
            yield i, prepare(path, rel, parse, keyword=False)
        return
    bound = max(1, max_pending if max_pending is not None else 2 * workers)
    retry: list[int] = []
    pool = _pool(workers, embed)
    live: ProcessPoolExecutor | None = pool  # the pool to stop if the run is interrupted
    solo: ProcessPoolExecutor | None = None  # one job at a time; replaced after each crash
    try:
        pending: dict[Future[Prepared | Failure], int] = {}
        queued = iter(enumerate(jobs))
        while True:
            while len(pending) < bound:  # bounded: parsed documents never pile up
                nxt = next(queued, None)
                if nxt is None:
                    break
                i, (path, rel) = nxt
                try:
                    pending[pool.submit(prepare, path, rel, parse)] = i
                except BrokenProcessPool:  # a crash broke the pool: a fresh one for the rest
                    retry.extend(pending.values())
                    pending.clear()
                    pool.shutdown(wait=False)
                    pool = live = _pool(workers, embed)
                    pending[pool.submit(prepare, path, rel, parse)] = i
            if not pending:
                break
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                i = pending.pop(fut)
                try:
                    result = fut.result()
                except BrokenProcessPool:
                    retry.append(i)
                    continue
                yield i, result
        pool.shutdown(wait=True)
        live = None
        for i in sorted(retry):
            path, rel = jobs[i]
            solo = solo or _pool(1, embed)
            try:
                result = solo.submit(prepare, path, rel, parse).result()
            except BrokenProcessPool:
                result = Failure("corrupt", f"{path}: the parser crashed on this file")
                solo.shutdown(wait=False)
                solo = None
            yield i, result
    except BaseException:  # a signal, Ctrl-C or the consumer stopped: do not wait for files
        _kill(live)
        _kill(solo)
        raise
    if solo is not None:
        solo.shutdown(wait=True)


def embed_prepared(
    results: Iterator[tuple[int, Prepared | Failure]],
    *,
    workers: int,
    embed: Callable[[], PassageEmbedder],
    batch: int = 32,
    max_docs: int | None = None,
) -> Iterator[tuple[int, Prepared | Failure]]:
    """Give the parsed documents of ``results`` (from :func:`run_prepare` without ``embed``)
    their dense vectors, computed by ``workers`` spawned embed processes, each with its own
    embedder from ``embed`` (a picklable zero-argument factory).

    Each document's chunks go out in tasks of ``batch`` chunks (a vector does not depend on the
    task it is in when the embedder embeds each passage alone: ``batch_size`` 1), so every embed
    worker works on a long document at once. Documents come out in the order ``results`` gave
    them, each once all its tasks are done; a failure passes through in that order. Parsed
    documents are pulled from ``results`` (blocking) while fewer than ``2 × workers`` tasks are
    waiting and fewer than ``max_docs`` (default ``2 × workers``) documents are held, so the
    embed workers always have work queued when parsing keeps up and memory stays bounded.

    A task that fails or whose worker dies leaves its document's ``dense`` None (the consumer
    embeds it, and reports the error); a broken pool is replaced for the later documents.
    """
    size = max(1, batch)
    hold = max(1, max_docs if max_docs is not None else 2 * workers)
    pool = _pool(workers, embed, embed_only=True)
    held: deque[tuple[int, Prepared | Failure, list[Future[list[list[float]]]]]] = deque()
    waiting: set[Future[list[list[float]]]] = set()
    source: Iterator[tuple[int, Prepared | Failure]] | None = iter(results)

    def submit(texts: list[str]) -> Future[list[list[float]]] | None:
        nonlocal pool
        for _ in range(2):  # a crash broke the pool: a fresh one, once
            try:
                return pool.submit(embed_texts, texts)
            except BrokenProcessPool:
                pool.shutdown(wait=False)
                pool = _pool(workers, embed, embed_only=True)
        return None

    def finished(prep: Prepared, futures: list[Future[list[list[float]]]]) -> None:
        dense: list[list[float]] = []
        for fut in futures:
            try:
                dense.extend(fut.result())
            except Exception:  # noqa: BLE001 - the consumer embeds again and reports the error
                prep.dense = None
                return
        prep.dense = dense if len(dense) == len(prep.chunks) else None

    try:
        while held or source is not None:
            waiting = {f for f in waiting if not f.done()}
            if held and all(f.done() for f in held[0][2]):
                i, res, futures = held.popleft()
                if isinstance(res, Prepared):
                    finished(res, futures)
                yield i, res
                continue
            if source is not None and len(held) < hold and len(waiting) < 2 * workers:
                nxt = next(source, None)
                if nxt is None:
                    source = None
                    continue
                i, res = nxt
                tasks: list[Future[list[list[float]]]] = []
                if isinstance(res, Prepared) and res.dense is None:
                    texts = [c.context_text() for c in res.chunks]
                    for k in range(0, len(texts), size):
                        fut = submit(texts[k:k + size])
                        if fut is None:  # no pool can be started: the consumer embeds
                            tasks = []
                            break
                        tasks.append(fut)
                        waiting.add(fut)
                held.append((i, res, tasks))
                continue
            done, _ = wait(waiting or held[0][2], return_when=FIRST_COMPLETED)
            waiting -= done
        pool.shutdown(wait=True)
    except BaseException:  # a signal, Ctrl-C or the consumer stopped: do not wait for tasks
        _kill(pool)
        close = getattr(source, "close", None)
        if callable(close):
            close()  # the parse workers of run_prepare stop too
        raise
