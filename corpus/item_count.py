"""How many numbered items a document has, asked as "这部法律共有多少条？", "该办法一共几章？" or
"How many articles does the regulation have?": counted from the labels opening its lines and
headings (``corpus.item_scope.chunk_labels``: 第一条 … 第九十八条, Article 1 …), answered with
the count and the last item's opening line, cited verbatim (``corpus.citations.make_citation``).

A trial asked "共有多少条" of a regulation and was answered with its title: no retrieved
passage states the count, which is the number of the last article. A count is answered only
when the document numbers its items 1 … N with at most a tenth of the numbers missing (an OCR
slip; a document citing another law's 第二百条 once does not count 200 articles), and never for
a question that also names an item ("第三章共有多少条": the items of one chapter are not
counted here). The document is the first of the retrieved chunks that numbers items of the
asked kind.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from corpus.citations import make_citation
from corpus.item_scope import chunk_labels
from corpus.labels import asked_item, zh_numeral
from corpus.types import Chunk, Citation

__all__ = ["asked_count", "count_answer"]

# 共有多少条 / 一共几章 / 有多少个条款; not 条件 (conditions), 条例 (a regulation), 节日, 章程
_ZH_COUNT = re.compile(r"(?:多少|几)\s*个?\s*(条|章|节)(?![件例日程])")
_EN_COUNT = re.compile(r"\bhow\s+many\s+(articles|clauses|sections|chapters)\b", re.IGNORECASE)
_MISSING_SHARE = 0.1  # numbers of 1 … N a document may lack and still be counted (module doc)


def asked_count(question: str) -> str | None:
    """The item kind whose count ``question`` asks (``条``, ``章``, ``节``; ``article``,
    ``clause``, ``section``, ``chapter``), or ``None`` — also when it names an item itself."""
    if asked_item(question) is not None:
        return None
    if (m := _ZH_COUNT.search(question)) is not None:
        return m.group(1)
    if (m := _EN_COUNT.search(question)) is not None:
        return m.group(1).lower().removesuffix("s")
    return None


def _count(chunks: Iterable[Chunk], kind: str) -> tuple[int, Chunk, str] | None:
    """``(N, chunk, label text)`` of the last item of ``kind`` in ``chunks`` (one document, in
    document order; its last place) when its items are numbered 1 … N (at most
    :data:`_MISSING_SHARE` of them missing)."""
    seen: dict[int, tuple[Chunk, str]] = {}
    for c in chunks:
        for lb in chunk_labels(c, kind):
            if len(lb.number) == 1 and lb.number[0] >= 1:
                seen[lb.number[0]] = (c, lb.text)  # the last place: a table of contents
                # lists the chapters again before them (网络安全法 p.1 cited 第七章 otherwise)
    if not seen:
        return None
    n = max(seen)
    if len(seen) < (1 - _MISSING_SHARE) * n:
        return None
    return n, *seen[n]


def count_answer(question: str, chunks: Sequence[Chunk],
                 document_chunks: Callable[[str], list[Chunk]]) -> tuple[str, Citation] | None:
    """The answer to a count of items (:func:`asked_count`) and the citation of the last
    item's opening line, or ``None`` (no count asked, no retrieved chunk numbering items of
    that kind, items not numbered 1 … N, the line not verifiable).

    :param chunks: the retrieved (or read) chunks, best first.
    :param document_chunks: ``doc_id -> every chunk of that document`` (blocking; the store's
        ``document_chunks``; its errors are raised).
    :returns: ``("共 98 条（第一条至第九十八条）：第九十八条 本法自…", citation)`` in the
        question's language.
    """
    kind = asked_count(question)
    if kind is None:
        return None
    first = next((c for c in chunks if next(chunk_labels(c, kind), None) is not None), None)
    if first is None:
        return None
    got = _count(document_chunks(first.doc_id), kind)
    if got is None:
        return None
    n, chunk, label = got
    line = next((ln.strip() for ln in chunk.text.splitlines() if ln.strip().startswith(label)),
                label)
    cit = make_citation(chunk, line)
    if cit is None:
        return None
    if kind.isascii():
        name = kind.capitalize()
        return f"{n} {kind}s ({name} 1 to {name} {n}): {cit.quote}", cit
    return f"共{n}{kind}（第一{kind}至第{zh_numeral(n)}{kind}）：{cit.quote}", cit
