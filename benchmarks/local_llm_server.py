"""Serve a local GGUF model as an OpenAI-compatible chat-completions server on 127.0.0.1 with
the prebuilt ``xllamacpp`` wheel (optional extra ``llm``; not a runtime dependency).

usage: .venv/bin/python benchmarks/local_llm_server.py MODEL.gguf [--port 8089] [--ctx 8192]

Prints ``http://127.0.0.1:PORT/v1`` once ``GET /health`` answers 200, then serves until killed.
The model: ``../shared/tools/fetch-local-llm.sh`` prints its path (Qwen2.5-Coder-1.5B, Q4_K_M).
"""

from __future__ import annotations

import argparse
import time

import httpx


def start(model: str, port: int, ctx: int = 8192, threads: int = 2) -> object:
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
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    server = start(a.model, a.port, a.ctx, a.threads)
    base = f"http://127.0.0.1:{a.port}/v1"
    if not wait_health(base):
        raise SystemExit("the local LLM server did not become healthy")
    print(base, flush=True)
    try:
        while True:
            time.sleep(3600)
    finally:
        del server


if __name__ == "__main__":
    main()
