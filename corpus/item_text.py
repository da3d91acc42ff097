"""The whole text of a numbered item when a question asks what it says: "劳动合同法第三十九条规定了
什么？" was answered by one of its six cases, "第十九条规定了什么？" by its first clause up to a
"；" (new-user trials); "What does Clause 4 say?" likewise. The answer is the item from the line
its label opens to the next label of its kind (第四十条), read on into the next chunk of the
document when the item goes on there, at most :data:`MAX_CHARS` characters per chunk.

Built on :mod:`corpus.labels`; pure, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from corpus.labels import Label, asked_item, line_labels
from corpus.types import Chunk

__all__ = ["MAX_CHARS", "asks_whole_item", "item_passages"]

#: the longest passage quoted from one chunk (characters): an article of a law or a contract
#: clause runs to a few hundred; a longer one is cut at a line end
MAX_CHARS = 1200

# what the item says, not a value in it: 规定了什么 / 内容是什么 / 讲了什么 / 怎么规定的,
# "what does Clause 4 say / state / provide", "what is in Article 3"
_WHOLE = re.compile(
    r"规定了?(?:些)?什么|(?:的|具体)?内容(?:是什么|有哪些|为何)?[？?]?$|(?:说|讲|写)了?(?:些)?什么"
    r"|(?:怎么|如何|怎样)规定|是怎么说的"
    r"|\bwhat\s+(?:does|do|did)\s+.{0,60}?\b(?:say|state|provide|stipulate|cover|contain)s?\b"
    r"|\bwhat\s+is\s+(?:in|the\s+(?:text|content|wording)\s+of)\b", re.I)


def asks_whole_item(question: str) -> Label | None:
    """The item ``question`` names when it asks what that item says (module docstring), else
    ``None``: "第三十九条规定了什么？" → 第三十九条; "第三十九条的赔偿标准是多少？" → ``None``
    (a value in it)."""
    asked = asked_item(question)
    return asked if asked is not None and _WHOLE.search(question) else None


def _opens(line: str, asked: Label) -> bool:
    got = line_labels(line)
    return bool(got) and got[0].kind == asked.kind and got[0].number == asked.number


def _ends(line: str, asked: Label) -> bool:
    got = line_labels(line)
    return bool(got) and got[0].kind == asked.kind and got[0].number != asked.number


def item_passages(asked: Label, chunk: Chunk, following: Sequence[Chunk] = ()
                  ) -> list[tuple[Chunk, str]]:
    """``[(chunk, passage), …]``: the verbatim text of item ``asked`` from the line of
    ``chunk`` its label opens to the next line opening another label of its kind, then on in
    ``following`` (the chunks after ``chunk`` in its document, in order) while no such label
    comes; ``[]`` when no line of ``chunk`` opens with ``asked``."""
    lines = chunk.text.splitlines(keepends=True)
    start = next((i for i, ln in enumerate(lines) if _opens(ln, asked)), None)
    if start is None:
        return []
    out: list[tuple[Chunk, str]] = []
    cur, first = chunk, start
    for nxt in (None, *following):
        if nxt is not None:
            cur, lines, first = nxt, nxt.text.splitlines(keepends=True), 0
        taken: list[str] = []
        ended = False
        for i, ln in enumerate(lines[first:]):
            if (i or nxt is not None) and _ends(ln, asked):
                ended = True
                break
            if taken and sum(map(len, taken)) + len(ln) > MAX_CHARS:
                ended = True
                break
            taken.append(ln)
        passage = "".join(taken).strip()
        if passage:
            out.append((cur, passage))
        if ended or not taken:
            break
    return out
