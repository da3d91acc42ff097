"""A fingerprint of the embedding runtime, stored with a collection: the vector of one fixed
passage, so a query embedded by another runtime than the one that built the index is noticed.

Why: the packaged e5-small is an int8-quantised ONNX model, and its vectors depend on the ONNX
Runtime's integer kernels. Measured on this project's machine: a 526-character passage embedded
by onnxruntime 1.24.4 and by 1.31.1 / 1.32.0 differs by up to 6.4e-3 in one component (first
components 0.02679 vs 0.02036), and :data:`PROBE_PASSAGE`'s first 16 components by up to 4.1e-3
(1.24.4 vs 1.32.0), while one runtime agrees with itself to 1e-5 (batched or not,
``tests/corpus/test_ingest_pipeline.py``); a short question differs by ~2e-5 only. An index
built under one runtime and queried under another (a replica on a newer image, an upgrade
between ingest and serve) is silently a little off — dense search degraded, nothing failing.

The probe mixes English prose, figures and Chinese so the passage is long enough for the
difference to show (115 tokens with e5's ``"passage: "`` prefix: whole under the default
``embed_max_tokens`` of 256; a smaller setting cuts it, alike at ingest and at query time). ``corpus`` never imports ``rag``: the caller passes the embedder in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["PROBE_DIMS", "PROBE_PASSAGE", "PROBE_TOLERANCE", "probe_vector", "runtime_name",
           "vectors_differ"]

PROBE_PASSAGE = (
    "LoopGate embedding probe. GitLab's fiscal year runs from February 1 to January 31; net "
    "sales were $14,694 million in fiscal 2023 against $14,544 million in 2022, and the "
    "operating margin fell by 1.7 points. The ESP32-PICO-D4 works from 3.0 V to 3.6 V and is "
    "stored at up to 125 °C. 网络运营者应当采取监测、记录网络运行状态、网络安全事件的技术措施，"
    "并按照规定留存相关的网络日志不少于六个月。"
)
#: components of the probe vector stored (the first ones; enough to tell runtimes apart)
PROBE_DIMS = 16
#: largest difference in one component still the same runtime: one runtime agrees with
#: itself to 1e-5, two runtime versions' probes differed by 4.1e-3 (module docstring)
PROBE_TOLERANCE = 1e-3


def probe_vector(embedder: Any) -> list[float]:
    """The first :data:`PROBE_DIMS` components of ``embedder.embed_passages([PROBE_PASSAGE])``,
    rounded to 6 decimals (JSON-friendly).

    :param embedder: a ``corpus.types.PassageEmbedder``.
    :raises Exception: whatever the embedder raises (``rag.errors.EmbedderError`` …).
    """
    vec = embedder.embed_passages([PROBE_PASSAGE])[0]
    return [round(float(v), 6) for v in vec[:PROBE_DIMS]]


def runtime_name() -> str:
    """``"onnxruntime 1.32.0"``, or ``""`` when onnxruntime is not installed."""
    try:
        from importlib.metadata import version

        return f"onnxruntime {version('onnxruntime')}"
    except Exception:  # not installed (keyword-only setups): nothing to name
        return ""


def vectors_differ(stored: Sequence[float], current: Sequence[float]) -> bool:
    """True when two probe vectors differ by more than :data:`PROBE_TOLERANCE` in any component
    (or differ in length): they come from different runtimes or model files."""
    if len(stored) != len(current):
        return True
    return any(abs(float(a) - float(b)) > PROBE_TOLERANCE for a, b in zip(stored, current,
                                                                             strict=True))
