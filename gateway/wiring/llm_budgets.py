"""Budgets from the configured model's measured speed, once at start-up (issue 14 item 4).

A small local model on a busy machine takes seconds to minutes per call: with the fixed
defaults (60 s per LLM call, 20 s per LoopAgent run, 30 s per request) every LLM-driven loop
ran into its deadline. :func:`fit_llm_budgets` sends the two short calls of
:func:`loop.llm_speed.probe_speed` through a client for the configured endpoint and sizes

- ``llm_timeout_s`` — ``Budgets.call_timeout_s`` (twice the estimated pick call),
- ``loop_deadline_s`` — ``Budgets.deadline_s`` (the offline pass plus two such calls),
- ``request_deadline_s`` — the loop deadline plus :data:`REQUEST_MARGIN_S`,

each never below its fixed value (a fast server keeps the defaults: one start-up measurement
must not tighten them) and within :func:`loop.llm_speed.fit_budgets`' 10–600 s.

``LOOPGATE_LLM_BUDGETS``: ``probe`` (default) probes when an LLM is configured and reads or
answers (``llm_scope=all``); a budget the operator set (environment or settings file) stays as
set, and with all three set nothing is probed. ``fixed`` never probes. The probe has its own
timeout (``LOOPGATE_LLM_PROBE_TIMEOUT_S``, no retries): a server that fails or hangs costs
start-up at most that long and the fixed budgets stay, flagged ``status: "failed"``.

The report (a JSON-ready dict: mode, status, detail, measured speeds, when, the budgets in
effect and where each came from) is logged and shown by ``GET /readyz`` (``llm_budgets``).

Usage example::

    settings, report = fit_llm_budgets(settings)   # blocking, at most the probe timeout
    report["budgets"]       # {"llm_timeout_s": 56.6, "loop_deadline_s": 118.2, ...}
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import logging
import time
from datetime import UTC, datetime
from typing import Any

from gateway.settings import Settings
from gateway.wiring.factories import llm_config
from loop.llm_client import AsyncLLMClient
from loop.llm_speed import Budgets, LLMSpeed, fit_budgets, probe_speed

__all__ = ["BUDGET_FIELDS", "REQUEST_MARGIN_S", "describe", "fit_llm_budgets"]

log = logging.getLogger("loopgate.gateway")
#: the settings the probe sizes, in the order reported
BUDGET_FIELDS = ("llm_timeout_s", "loop_deadline_s", "request_deadline_s")
#: seconds of the request deadline over the loop's: the defaults' margin (30 s over 20 s) —
#: the conversation stage and the retrieval (``timeout_retrieve_s``, 5 s) run before the loop
REQUEST_MARGIN_S = 10.0


def fit_llm_budgets(settings: Settings) -> tuple[Settings, dict[str, Any]]:
    """``settings`` with the budgets the probe sized (a copy; unchanged when nothing was
    fitted) and the report. Blocking (call it from a thread or a CLI); never raises for the
    LLM's sake: a failed or hung probe returns ``settings`` as given, flagged in the report."""
    budgets = {f: float(getattr(settings, f)) for f in BUDGET_FIELDS}
    set_by_operator = [f for f in BUDGET_FIELDS if f in settings.model_fields_set]
    source = {f: ("set" if f in set_by_operator else "default") for f in BUDGET_FIELDS}
    report: dict[str, Any] = {"mode": settings.llm_budgets, "status": "fixed", "detail": "",
                              "budgets": budgets, "source": source}
    cfg = llm_config(settings)
    if cfg is None:
        report["detail"] = "no LLM configured"
        return settings, report
    if settings.llm_budgets == "fixed":
        report["detail"] = "LOOPGATE_LLM_BUDGETS=fixed: the configured budgets"
        return settings, report
    if settings.llm_scope == "conversation":
        report["detail"] = ("llm_scope=conversation: the LoopAgent reads offline, the "
                            "conversation stage has its own timeout; nothing to size")
        return settings, report
    if len(set_by_operator) == len(BUDGET_FIELDS):
        report["detail"] = "every budget set by the operator: not probed"
        return settings, report
    limit = settings.llm_probe_timeout_s
    cfg = dataclasses.replace(cfg, timeout_s=limit, max_retries=0)
    t0 = time.perf_counter()
    try:
        speed = _run_probe(AsyncLLMClient(cfg), limit)
    except Exception as exc:  # noqa: BLE001 - start-up goes on with the fixed budgets
        why = ("no answer within the probe timeout" if isinstance(exc, TimeoutError)
               else f"{type(exc).__name__}: {exc}")
        report.update(status="failed", probe_s=round(time.perf_counter() - t0, 2),
                      detail=f"speed probe failed ({why}): fixed budgets kept")
        log.warning("LLM budgets: %s; %s", report["detail"], _fmt(budgets, source))
        return settings, report
    fit = fit_budgets(speed)
    fitted = _fitted(fit, settings)
    update = {f: v for f, v in fitted.items()
              if f not in set_by_operator and v > budgets[f]}
    budgets.update(update)
    source.update({f: "probe" for f in update})
    report.update(
        status="fitted" if update else "kept",
        detail=("budgets sized from the measured speed" if update else
                "the measured speed fits within the configured budgets: kept"),
        prompt_tps=speed.prompt_tps, gen_tps=speed.gen_tps,
        measured_at=datetime.fromtimestamp(speed.measured_at, UTC).isoformat(timespec="seconds"),
        probe_s=round(time.perf_counter() - t0, 2), fit=fitted)
    log.info("LLM budgets: prompt %.2f tok/s, generation >= %.2f tok/s (probe %.1f s): %s",
             speed.prompt_tps, speed.gen_tps, report["probe_s"], _fmt(budgets, source))
    return (settings.model_copy(update=update) if update else settings), report


def _fitted(fit: Budgets, settings: Settings) -> dict[str, float]:
    """The three budgets ``fit`` gives (the request deadline: the loop's plus the margin)."""
    return {"llm_timeout_s": fit.call_timeout_s, "loop_deadline_s": fit.deadline_s,
            "request_deadline_s": round(fit.deadline_s + REQUEST_MARGIN_S, 1)}


def _run_probe(client: AsyncLLMClient, limit_s: float) -> LLMSpeed:
    """:func:`probe_speed` on its own event loop in a worker thread (callers may or may not
    run a loop), cancelled after ``limit_s``; the client is closed either way.

    :raises TimeoutError: no speed within ``limit_s``. :raises loop.errors.LLMError: a call
        failed.
    """

    async def go() -> LLMSpeed:
        try:
            async with asyncio.timeout(limit_s):
                return await probe_speed(client)
        finally:
            await client.aclose()

    pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="llm-probe")
    try:
        # the loop's own timeout ends the probe; this one only guards against a stuck thread
        return pool.submit(asyncio.run, go()).result(timeout=limit_s + 5.0)
    except concurrent.futures.TimeoutError:
        raise TimeoutError from None
    finally:
        pool.shutdown(wait=False)


def _fmt(budgets: dict[str, float], source: dict[str, str]) -> str:
    return ", ".join(f"{f} {budgets[f]:g} s ({source[f]})" for f in BUDGET_FIELDS)


def describe(report: dict[str, Any]) -> str:
    """One line for a terminal: the measured speed (or why none) and the budgets in effect."""
    if "prompt_tps" in report:
        head = (f"prompt {report['prompt_tps']:g} tok/s, generation >= {report['gen_tps']:g} "
                f"tok/s ({report['status']})")
    else:
        head = f"{report['status']}: {report['detail']}"
    return f"{head}; {_fmt(report['budgets'], report['source'])}"
