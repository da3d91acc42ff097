"""Public API of ``loop``: one sorted ``__all__`` that resolves, and sync/async twins that match."""

from __future__ import annotations

import inspect

import loop
from loop import LoopAgent


def test_all_is_sorted_and_resolves():
    assert loop.__all__ == sorted(loop.__all__)
    for name in loop.__all__:
        assert getattr(loop, name) is not None, name


def test_run_and_run_async_have_identical_signatures():
    sync = inspect.signature(LoopAgent.run)
    asyn = inspect.signature(LoopAgent.run_async)
    assert list(sync.parameters) == list(asyn.parameters)
    assert inspect.iscoroutinefunction(LoopAgent.run_async)
    assert not inspect.iscoroutinefunction(LoopAgent.run)


def test_loop_never_imports_rag_or_gateway():
    import pathlib

    root = pathlib.Path(loop.__file__).parent
    for f in root.rglob("*.py"):
        text = f.read_text(encoding="utf-8")
        assert "import rag" not in text and "from rag" not in text, f
        assert "import gateway" not in text and "from gateway" not in text, f
