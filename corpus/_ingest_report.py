"""Result types of an ingest run (used by ``corpus.ingest``): the per-file :class:`FileResult`,
the :class:`IngestProgress` events and the :class:`IngestReport` summary (its ``to_dict`` is the
CLI's ``--json`` output). The folder walk and the file checks are in ``corpus._ingest_files``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

__all__ = ["FileResult", "FileStatus", "IngestProgress", "IngestReport"]

FileStatus = Literal[
    "ingested", "replaced", "unchanged", "embedded", "removed", "skipped", "failed"
]


@dataclass(slots=True)
class FileResult:
    """Outcome for one file: ``path`` relative to the ingest root, ``status``, page and chunk
    counts, and for ``failed``/``skipped`` an ``error_code`` and ``error_message``.

    ``duplicate_of``: for ``error_code == "duplicate"`` (status ``skipped``, or ``removed`` when
    the path held another version before), the stored path of the document with the same text.
    ``warnings``: the ingested document's non-fatal findings, each ``"code: explanation"``
    (codes in ``corpus.errors.WARNING_CODES``: ``extension_mismatch``, ``repaired_pdf``,
    ``probable_duplicate``, …)."""

    path: str
    status: FileStatus
    pages: int = 0
    chunks: int = 0
    doc_id: str = ""
    error_code: str = ""
    error_message: str = ""
    duplicate_of: str = ""
    warnings: list[str] = field(default_factory=list)


@dataclass(slots=True)
class IngestProgress:
    """Progress after each file: files done of total, pages and chunks so far, the last file;
    ``bytes_done`` / ``bytes_total`` of the files that are read (not the unchanged ones: the
    time-left estimate) and the seconds since the run started."""

    files_done: int
    files_total: int
    pages: int
    chunks: int
    path: str
    status: FileStatus
    bytes_done: int = 0
    bytes_total: int = 0
    elapsed_s: float = 0.0


@dataclass(slots=True)
class IngestReport:
    """The summary of one run (``to_dict`` is the CLI's ``--json`` output)."""

    collection: str
    root: str
    files: list[FileResult] = field(default_factory=list)
    ignored: int = 0
    keyword_only: bool = True
    corpus_version: int = 0
    elapsed_s: float = 0.0
    #: findings about the whole collection (``embed_runtime_differs: …``), not one file
    warnings: list[str] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        """Number of files per status (every status present, zeros included)."""
        out = dict.fromkeys(FileStatus.__args__, 0)  # type: ignore[attr-defined]
        for f in self.files:
            out[f.status] += 1
        return out

    @property
    def pages(self) -> int:
        """Pages of the documents the collection holds from this run's files."""
        return sum(f.pages for f in self.files if f.status not in ("failed", "removed", "skipped"))

    @property
    def chunks(self) -> int:
        """Chunks of the documents the collection holds from this run's files."""
        return sum(f.chunks for f in self.files if f.status not in ("failed", "removed", "skipped"))

    @property
    def changed(self) -> bool:
        """True when the run changed the collection's content."""
        return any(f.status in ("ingested", "replaced", "removed", "embedded") for f in self.files)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe summary: counts, totals and one entry per file."""
        return {
            "collection": self.collection,
            "root": self.root,
            "counts": self.counts,
            "pages": self.pages,
            "chunks": self.chunks,
            "ignored": self.ignored,
            "keyword_only": self.keyword_only,
            "corpus_version": self.corpus_version,
            "changed": self.changed,
            "elapsed_s": round(self.elapsed_s, 3),
            "warnings": list(self.warnings),
            "files": [asdict(f) for f in self.files],
        }
