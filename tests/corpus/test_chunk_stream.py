"""The streaming chunker (``corpus.chunker.iter_chunks``, issue 20 item 4) gives exactly the
chunks of the whole-document chunker it replaced (the chunker at commit 033691d): same ids,
text, offsets, line maps and pages, on every real document of ../shared/cases and
../shared/eval it can read (every 4th PDF), and on generated files large enough that the window
is trimmed many times. The page heads gathered batch by batch and the profile built from the
cover chunks alone equal those built from the whole chunk list.

The old chunker's chunks are pinned in ``chunk_reference.json``: for each input, a digest of
the parsed document it was given and a digest of every chunk it made (all fields, see
:func:`chunk_digest`); ``make_chunk_reference.py`` wrote it, running the old chunker taken from
git history. An input whose parsed document no longer has the pinned digest (a parser changed)
is not compared; rerun that script to pin the reference on the new parser output."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from corpus.chunker import DocumentChunks, iter_chunks
from corpus.errors import ParseError
from corpus.page_titles import PageHead, PageHeadsBuilder, title_lines
from corpus.parsers import SUPPORTED_SUFFIXES, parse_file
from corpus.profile import build_profile, cover_chunks
from corpus.types import Chunk, DocumentInfo, ParsedDocument

SHARED = Path(__file__).resolve().parents[3] / "shared"
REFERENCE = Path(__file__).with_name("chunk_reference.json")


def real_files() -> list[Path]:
    roots = [SHARED / "cases", SHARED / "eval"]
    files = sorted(p for r in roots if r.is_dir() for p in r.rglob("*")
                   if p.is_file() and p.suffix.lower() in SUPPORTED_SUFFIXES)
    # every non-PDF, and every 4th PDF (parsing all eval PDFs takes minutes)
    pdfs = [p for p in files if p.suffix.lower() == ".pdf"]
    return [p for p in files if p.suffix.lower() != ".pdf"] + pdfs[::4]


def _digest(data: Any) -> str:
    raw = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def parse_digest(doc: ParsedDocument) -> str:
    """Digest of what the chunker reads of a parsed document (not its path)."""
    return _digest([doc.doc_id, doc.title, doc.media_type, doc.page_count,
                    [dataclasses.asdict(b) for b in doc.blocks],
                    sorted(doc.page_labels.items()), sorted(doc.page_warnings.items())])[:16]


def chunk_digest(chunk: Chunk) -> str:
    """``"<page_start>-<page_end> <digest of every field>"``: equal digests, equal chunks."""
    return f"{chunk.page_start}-{chunk.page_end} {_digest(dataclasses.asdict(chunk))[:12]}"


def _all_lines_heads(chunks: list[Chunk]) -> list[PageHead]:
    """Page heads the way ``page_heads`` computed them before streaming: every line of every
    page held, sorted, then the title rule."""
    seen: dict[int, dict[int, str]] = defaultdict(dict)
    ids: dict[int, list[str]] = defaultdict(list)
    for ch in chunks:
        for p in range(ch.page_start, ch.page_end + 1):
            ids[p].append(ch.chunk_id)
        for i, (offset, page, line) in enumerate(ch.line_map):
            end = ch.line_map[i + 1][0] if i + 1 < len(ch.line_map) else len(ch.text)
            text = ch.text[offset:end].strip("\n")
            if line not in seen[page] and text.strip():
                seen[page][line] = text
    return [PageHead(p, " / ".join(title_lines([t for _, t in sorted(seen[p].items())])),
                     tuple(ids[p])) for p in sorted(ids)]


def _same(path: Path, pinned: dict[str, Any]) -> int:
    """Streamed = the old chunker's chunks as pinned; batch-fed page heads and the cover-only
    profile equal the whole-document ones. -1: the file does not parse (nor did it when
    pinned); 0: its parsed document is not the one pinned, not compared."""
    try:
        doc = parse_file(path)
    except ParseError:
        return -1
    if parse_digest(doc) != pinned["parse"]:
        return 0
    stream = DocumentChunks(doc, "d")
    new = list(stream)
    assert [chunk_digest(c) for c in new] == pinned["chunks"], path
    assert len(stream) == len(new) and [c for b in stream.batches(7) for c in b] == new
    builder = PageHeadsBuilder()
    for b in stream.batches(5):
        builder.add(b)
    assert builder.heads() == _all_lines_heads(new), path
    info = DocumentInfo(doc.doc_id, "d", doc.title, doc.media_type, doc.page_count, len(new),
                        0.0, False)
    assert build_profile(info, cover_chunks(stream)) == build_profile(info, new), path
    return len(new)


@pytest.fixture(scope="module")
def reference() -> dict[str, dict[str, Any]]:
    return dict(json.loads(REFERENCE.read_text(encoding="utf-8"))["inputs"])


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared not present")
def test_streamed_chunks_equal_the_whole_document_chunker_on_real_files(
        reference: dict[str, dict[str, Any]]) -> None:
    files = [SHARED / rel for rel in reference if not rel.startswith("generated/")]
    counts = [_same(p, reference[p.relative_to(SHARED).as_posix()]) for p in files if p.exists()]
    changed = sum(1 for n in counts if n == 0)
    assert len(files) > 50 and sum(1 for n in counts if n > 0) > 50, (
        f"{changed} of {len(files)} pinned inputs parse differently now: rerun "
        "tests/corpus/make_chunk_reference.py", counts[:9])


def generated(kind: str, paragraphs: int, seed: int) -> str:
    rng = random.Random(seed)
    words = "pump valve sensor 网络 日志 torque | cell ---".split()
    out = ["# Title\n\n"] if kind == "md" else []
    for i in range(paragraphs):
        if kind == "md" and rng.random() < 0.08:
            out.append("#" * rng.randint(1, 4) + f" Heading {i}\n\n")
            if rng.random() < 0.3:
                out.append(f"## Sub {i}\n\n")  # a heading with no body of its own
        if kind == "md" and rng.random() < 0.05:
            rows = rng.randint(1, 60)
            out.append("| a | b |\n|---|---|\n" + "".join(f"| r{j} x | {j} |\n"
                                                         for j in range(rows)) + "\n")
            continue
        n = rng.choice((3, 20, 120, 400))
        out.append(" ".join(rng.choice(words) for _ in range(n)) + ".\n\n")
        if rng.random() < 0.05:
            out.append(f"{i}\n\n")  # a bare page number: junk
    return "".join(out)


@pytest.mark.parametrize("kind", ["md", "txt"])
def test_streamed_chunks_equal_the_reference_on_large_generated_files(
        tmp_path: Path, kind: str, reference: dict[str, dict[str, Any]]) -> None:
    path = tmp_path / f"big.{kind}"
    path.write_text(generated(kind, 3000, 7), encoding="utf-8")
    assert _same(path, reference[f"generated/big.{kind}"]) > 300, (
        "the generated file parses differently now: rerun tests/corpus/make_chunk_reference.py")


def test_bad_sizes_are_refused_before_any_chunk() -> None:
    from corpus.types import Block

    d = ParsedDocument("p", "0" * 64, "t", "text", 1, [Block("text", "x")])
    with pytest.raises(ValueError):
        iter_chunks(d, rel_path="p", min_chars=10, target_chars=5)
