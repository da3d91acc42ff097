"""Import PyMuPDF without its optional ONNX layout analyser.

PyMuPDF 2 imports ``pymupdf.layout`` (when installed, e.g. by pymupdf4llm) at import time:
about 5 s and a model in memory in every worker process, and ``find_tables()`` then consults
the model by default. LoopGate uses neither (tables: ``find_tables(use_layout=False)`` on
ruled pages), so the sub-import is blocked when PyMuPDF is not yet loaded; ``import pymupdf``
catches the resulting ImportError. If another module imported PyMuPDF first, the analyser is
loaded but still unused.
"""

from __future__ import annotations

import sys

if "pymupdf" not in sys.modules:
    sys.modules.setdefault("pymupdf.layout", None)  # type: ignore[arg-type]

import pymupdf  # noqa: E402

__all__ = ["pymupdf"]

if hasattr(pymupdf, "no_recommend_layout"):
    pymupdf.no_recommend_layout()  # no "Consider using the pymupdf_layout package" on stdout
