"""Run the gateway image's exact ENTRYPOINT + CMD (deploy/Dockerfile) as a plain process on
loopback: the in-image paths and the bind address/port are the only things rewritten."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import dockerfile

from benchmarks._common import free_port as free_port  # the deploy tests take it from here
from benchmarks._common import wait_healthy as healthz_ok

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "deploy/Dockerfile"


def image_command() -> tuple[list[str], list[str]]:
    """The last ENTRYPOINT and CMD of deploy/Dockerfile (exec form)."""
    cmds = dockerfile.parse_file(str(DOCKERFILE))
    entry = [c for c in cmds if c.cmd.upper() == "ENTRYPOINT"][-1]
    cmd = [c for c in cmds if c.cmd.upper() == "CMD"][-1]
    assert entry.json and cmd.json, "ENTRYPOINT and CMD must use the exec (JSON) form"
    return list(entry.value), list(cmd.value)


def local_command(port: int) -> list[str]:
    """ENTRYPOINT + CMD with /app/prestart.py → the repo's copy, python → this interpreter,
    0.0.0.0 → 127.0.0.1 and port 8000 → ``port``."""
    entry, cmd = image_command()
    out = []
    for arg in entry + cmd:
        if arg == "python":
            arg = sys.executable
        elif arg == "/app/prestart.py":
            arg = str(REPO / "deploy/prestart.py")
        elif arg == "0.0.0.0":
            arg = "127.0.0.1"
        elif arg == "8000":
            arg = str(port)
        out.append(arg)
    return out


def start_gateway(port: int, env: dict[str, str], log_path: Path) -> subprocess.Popen[bytes]:
    """Start the gateway (own process group) with ``env`` added to a LOOPGATE_-free environment."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("LOOPGATE_")}
    base["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{base.get('PATH', '')}"
    log = open(log_path, "wb")  # noqa: SIM115 - closed by stop_gateway via the process
    return subprocess.Popen(
        local_command(port),
        env={**base, **env},
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=log_path.parent,
        start_new_session=True,
    )


def wait_healthy(
    proc: subprocess.Popen[bytes], port: int, log_path: Path, timeout_s: float = 90.0
) -> None:
    """Poll /healthz until it answers 200; fail with the process log if it dies or times out."""
    if healthz_ok(f"http://127.0.0.1:{port}", proc, timeout_s):
        return
    if proc.poll() is not None:
        raise AssertionError(
            f"gateway exited with {proc.returncode}:\n{log_path.read_text(errors='replace')}"
        )
    raise AssertionError(
        f"gateway not healthy after {timeout_s} s:\n{log_path.read_text(errors='replace')}"
    )


def stop_gateway(proc: subprocess.Popen[bytes]) -> int:
    """SIGTERM (uvicorn shuts down gracefully), SIGKILL after 20 s; returns the exit code."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
    if proc.stdout is not None:
        proc.stdout.close()
    return int(proc.returncode)
