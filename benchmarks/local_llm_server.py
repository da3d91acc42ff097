"""Serve a local GGUF model as an OpenAI-compatible chat-completions server on 127.0.0.1 with
the prebuilt ``xllamacpp`` wheel (optional extra ``llm``; not a runtime dependency).

usage: .venv/bin/python benchmarks/local_llm_server.py MODEL.gguf [--port 8089] [--ctx 8192]
       [--threads auto|N]

``--threads auto`` (default) = :func:`free_cores`: the cores not busy (1-minute load average),
one left for the gateway, at least 1. Measured on the 2-core machine beside other work: 2 server
threads generated 0.4-1 token/s, 1 thread 16 token/s (llama.cpp threads spin-wait on each
other; one descheduled thread stalls them all), so on 2 cores this is always 1. Then a speed
probe prints the budget settings that fit the model on this machine (``--no-probe`` skips it;
the gateway sizes the same budgets itself at start-up, ``LOOPGATE_LLM_BUDGETS=probe``: set them
only to pin them).

Prints ``http://127.0.0.1:PORT/v1`` once ``GET /health`` answers 200, then serves until killed.
The model: ``../shared/tools/fetch-local-llm.sh`` prints its path (Qwen2.5-Coder-1.5B, Q4_K_M).
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import httpx


def free_cores(ncpu: int | None = None, load: float | None = None) -> int:
    """Server threads for this machine: ``ncpu`` (usable cores; default the process's
    affinity) minus the busy ones (``load``, default the 1-minute load average, rounded), at
    most ``ncpu - 1`` (a core for the gateway and the embedder), at least 1."""
    if ncpu is None:
        ncpu = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
            (os.cpu_count() or 1)
    if load is None:
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    return max(1, min(ncpu - 1, ncpu - round(load)))


def start(model: str, port: int, ctx: int = 8192, threads: int = 1) -> object:
    """Start the server in-process (returns the ``xllamacpp.Server``; keep a reference)."""
    import xllamacpp as xlc

    p = xlc.CommonParams()
    p.model.path = model
    p.n_ctx = ctx
    p.n_parallel = 1
    p.use_jinja = True
    p.cpuparams.n_threads = threads
    p.cpuparams_batch.n_threads = threads
    p.hostnames = ["127.0.0.1"] if isinstance(p.hostnames, list) else "127.0.0.1"
    p.port = port
    p.cache_prompt = True
    p.warmup = False
    return xlc.Server(p)


def suggested_settings(base: str) -> str:
    """Probe the served model's speed (``loop.llm_speed``) and return the settings that fit it:
    the pick protocol for the LoopAgent with extractive RAG answers (scope ``loop``: a small
    model's RAG answer took 30-118 s), the per-call timeout and the loop deadline of
    :func:`loop.llm_speed.fit_budgets`, and the request deadline the gateway's own start-up
    probe sets (``gateway.wiring.llm_budgets``: the loop's plus ``REQUEST_MARGIN_S``)."""
    import asyncio

    from gateway.wiring.llm_budgets import REQUEST_MARGIN_S

    speed, fit = asyncio.run(measured_budgets(base))
    return (f"# measured: prompt {speed.prompt_tps} tok/s, generation >= {speed.gen_tps} "
            f"tok/s\nLOOPGATE_LLM_PROTOCOL=pick LOOPGATE_LLM_SCOPE=loop "
            f"LOOPGATE_LLM_TIMEOUT_S={fit.call_timeout_s} "
            f"LOOPGATE_LOOP_DEADLINE_S={fit.deadline_s} "
            f"LOOPGATE_REQUEST_DEADLINE_S={fit.deadline_s + REQUEST_MARGIN_S:.1f}")


async def measured_budgets(base: str) -> tuple[Any, Any]:
    """The served model's speed (``loop.llm_speed.probe_speed``, JSON protocol, 600 s per
    call) and the budgets :func:`loop.llm_speed.fit_budgets` fits to it."""
    from loop import LLMConfig
    from loop.llm_client import AsyncLLMClient
    from loop.llm_speed import fit_budgets, probe_speed

    client = AsyncLLMClient(LLMConfig(base_url=base, protocol="json", timeout_s=600))
    try:
        speed = await probe_speed(client)
    finally:
        await client.aclose()
    return speed, fit_budgets(speed)


def wait_health(base: str, timeout_s: float = 120.0) -> bool:
    """Poll ``GET /health`` until 200 or ``timeout_s``."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        try:
            if httpx.get(base.removesuffix("/v1") + "/health", timeout=2).status_code == 200:
                return True
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    return False


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--port", type=int, default=8089)
    ap.add_argument("--ctx", type=int, default=8192)
    ap.add_argument("--threads", default="auto", help="'auto' (free cores) or a number")
    ap.add_argument("--no-probe", action="store_true",
                    help="skip the speed probe and the suggested budget settings")
    a = ap.parse_args()
    threads = free_cores() if a.threads == "auto" else int(a.threads)
    server = start(a.model, a.port, a.ctx, threads)
    base = f"http://127.0.0.1:{a.port}/v1"
    if not wait_health(base):
        raise SystemExit("the local LLM server did not become healthy")
    print(base, flush=True)
    print(f"threads: {threads}", flush=True)
    if not a.no_probe:
        print(suggested_settings(base), flush=True)
    try:
        while True:
            time.sleep(3600)
    finally:
        del server


if __name__ == "__main__":
    main()
