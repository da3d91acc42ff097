"""What the question commands print: one citation's lines (every mode of ``loopgate ask``),
and the report of a RAG answer (``--mode rag``): its JSON form and the human-readable one
(answer, citations, related, confidence with its features, the retrieved items, timings); the
"not found" of a question that leans on an earlier turn there is none of (every mode)."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

from rich.console import Console

from corpus.types import Citation
from gateway.routing.reference import DanglingReference, unresolved_answer
from rag.types import RagAnswer

__all__ = ["answer_to_dict", "print_citation", "print_rag_answer", "print_unresolved"]


def answer_to_dict(ans: RagAnswer) -> dict[str, Any]:
    """JSON-safe form of a :class:`rag.types.RagAnswer`."""
    r = ans.retrieval
    return {
        "answer": ans.answer,
        "found": ans.found,
        "citations": [c.to_dict() for c in ans.citations],
        "related": [c.to_dict() for c in ans.related],
        "evidence": [{"text": e.text, "score": e.score} for e in ans.evidence],
        "confidence": round(r.confidence.value, 4),
        "features": {k: round(v, 4) for k, v in r.confidence.features.to_dict().items()},
        "mode": r.mode,
        "flags": list(r.flags),
        "items": [
            {
                "chunk_ids": list(it.chunk_ids),
                "path": it.chunk.path,
                "section": it.chunk.section,
                "pages": list(it.pages),
                "score": round(it.score, 5),
                "dense_score": it.dense_score,
                "keyword_score": it.keyword_score,
                "dense_rank": it.dense_rank,
                "keyword_rank": it.keyword_rank,
            }
            for it in r.items
        ],
        "timings_ms": {k: round(v, 2) for k, v in ans.timings_ms.items()},
    }


def print_rag_answer(ans: RagAnswer, *, console: Console | None = None) -> None:
    """Human-readable report of a :class:`rag.types.RagAnswer` (rich)."""
    from rich.table import Table

    # document text is printed verbatim: no Rich markup, no emoji codes (":x:" in /etc/passwd
    # lines came out as an emoji)
    con = console or Console(emoji=False)
    r = ans.retrieval
    con.print(f"[bold]answer[/bold] ({'found' if ans.found else 'not found'}):")
    con.print(ans.answer, markup=False, emoji=False)
    for i, c in enumerate(ans.citations, 1):
        print_citation(con, f"[{i}]", c)
    if ans.related:
        con.print("[bold]related[/bold]:")
    for c in ans.related:
        print_citation(con, "-", c)
    feats = "  ".join(f"{k}={v:.3f}" for k, v in r.confidence.features.to_dict().items())
    # the retrieval's confidence is not the answer's: a "not found" answer says why beside it
    # (a new-user trial read "Not found" above "confidence 0.801" and could not tell which held)
    support = "" if ans.support_p is None else f"  [bold]answer support[/bold] {ans.support_p:.3f}"
    why = ("" if ans.found or not ans.answer_flags
           else f"\n[bold]not found because[/bold] {', '.join(ans.answer_flags)}")
    con.print(
        f"[bold]retrieval confidence[/bold] {r.confidence.value:.3f} ({r.mode}"
        f"{'; flags: ' + ', '.join(r.flags) if r.flags else ''}){support}{why}\n  {feats}"
    )
    table = Table(title="retrieved", show_edge=False)
    for col in ("#", "path", "section", "pages", "rrf", "dense", "bm25"):
        table.add_column(col, overflow="fold")
    for i, it in enumerate(r.items, 1):
        p0, p1 = it.pages
        table.add_row(
            str(i),
            it.chunk.path,
            it.chunk.section[:50],
            f"{p0}" if p0 == p1 else f"{p0}-{p1}",
            f"{it.score:.4f}",
            _num(it.dense_score),
            _num(it.keyword_score),
        )
    con.print(table)
    con.print(
        "[bold]timings[/bold] " + "  ".join(f"{k} {v:.1f} ms" for k, v in ans.timings_ms.items())
    )


def print_citation(con: Console, mark: str, c: Citation | Mapping[str, Any]) -> None:
    """One citation (a :class:`corpus.types.Citation` or its ``to_dict()`` form) as two lines:
    ``mark`` (``[1]`` or ``-``), file, section path, page / lines; then the quote."""
    from corpus.citations import citation_location

    if isinstance(c, Mapping):
        path, section, quote = c["path"], c["section_path"], c["quote"]
    else:
        path, section, quote = c.path, c.section_path, c.quote
    con.print(
        f"  {mark} {path} | {' > '.join(section) or '(top)'} | "
        f'{citation_location(c)}\n      "{quote}"',
        markup=False, emoji=False,
    )


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def print_unresolved(question: str, ref: DanglingReference, as_json: bool) -> None:
    """The "not found" of a question that leans on an earlier turn there is none of
    (``gateway.routing.reference``), as ``/v1/query`` answers it (flag ``unresolved_reference``)."""
    answer = unresolved_answer(question, ref)
    if as_json:
        body = {"answer": answer, "found": False, "citations": [],
                "flags": ["unresolved_reference"],
                "unresolved_reference": {"kind": ref.kind, "phrase": ref.phrase}}
        sys.stdout.write(json.dumps(body, ensure_ascii=False, indent=2) + "\n")
    else:
        print(answer)
