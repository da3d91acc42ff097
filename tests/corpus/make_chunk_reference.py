"""Write ``chunk_reference.json``: the chunks the whole-document chunker of commit 033691d
makes of the inputs of ``test_chunk_stream.py``, as digests (no document text).

That chunker was kept in the tree as ``tests/corpus/_chunker_reference.py`` until
``REFERENCE_COMMIT``'s successor; this script runs it from git history on today's parser
output, so the reference can be pinned again after a parser change::

    .venv/bin/python -m tests.corpus.make_chunk_reference
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

from corpus.errors import ParseError
from corpus.parsers import parse_file
from tests.corpus.test_chunk_stream import (
    REFERENCE,
    SHARED,
    chunk_digest,
    generated,
    parse_digest,
    real_files,
)

#: the last commit holding tests/corpus/_chunker_reference.py (the chunker of 033691d)
REFERENCE_COMMIT = "f63f96d3bda9ad4fc6df9d97d5a1b7938ccf2c4d"


def old_chunker() -> types.ModuleType:
    repo = Path(__file__).resolve().parents[2]
    source = subprocess.run(
        ["git", "show", f"{REFERENCE_COMMIT}:tests/corpus/_chunker_reference.py"],
        cwd=repo, capture_output=True, text=True, check=True).stdout
    module = types.ModuleType("_chunker_reference")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(source, "_chunker_reference.py", "exec"), module.__dict__)
    return module


def pin(path: Path, chunker: types.ModuleType) -> dict[str, Any]:
    try:
        doc = parse_file(path)
    except ParseError:
        return {"parse": None, "chunks": None}
    chunks = chunker.chunk_document(doc, rel_path="d")
    return {"parse": parse_digest(doc), "chunks": [chunk_digest(c) for c in chunks]}


def main() -> None:
    chunker = old_chunker()
    inputs: dict[str, dict[str, Any]] = {}
    for path in real_files():
        inputs[path.relative_to(SHARED).as_posix()] = pin(path, chunker)
        print(path.relative_to(SHARED), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("md", "txt"):
            path = Path(tmp) / f"big.{kind}"
            path.write_text(generated(kind, 3000, 7), encoding="utf-8")
            inputs[f"generated/big.{kind}"] = pin(path, chunker)
    about = ("chunks of the whole-document chunker of 033691d (tests/corpus/"
             "make_chunk_reference.py): per input (a path below ../shared, or a generated file) "
             "the digest of its parsed document and per chunk '<page_start>-<page_end> <digest "
             "of all fields>'; chunks null: the file does not parse")
    rows = [json.dumps(k, ensure_ascii=False) + ": "
            + json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
            for k, v in sorted(inputs.items())]
    REFERENCE.write_text(
        "{\n" + f'"about": {json.dumps(about)},\n"reference_from": "{REFERENCE_COMMIT}",\n'
        + '"inputs": {\n' + ",\n".join(rows) + "\n}}\n", encoding="utf-8")


if __name__ == "__main__":
    main()
