"""Page navigation inside resolved documents: the pages whose title names what the question asks
for become a third ranked list of the fusion (issue 15, item 2).

A question that resolved to a few documents (``rag.resolve``) and names a statement ("using the
balance sheet …"), or a quantity that is read from one ("net PP&E", "capital expenditure",
"DPO"), is answered from the page titled with that statement. Such a page shares its words with
a dozen others of the same filing, so BM25 and dense similarity rank it 6th–20th; its title
(``corpus.page_titles``) says what it is.

Scoring (pure; the vocabulary is ``rag/statements.json``, field knowledge, not fitted)::

    wanted(q)     = statements the question names (weight 2) or cues (weight 1)
    fit(page, s)  = weight(s) × how plainly a line of the page's title names s
                    (:meth:`StatementVocabulary.fit`; compared without spaces and punctuation:
                    PDF text often splits a word, "Balance Shee t")
    continuation  = a page with no title right after a fitting page fits half as well
    pages         = round robin over the wanted statements, each one's pages best fit first,
                    until ``max_pages`` pages
    page list     = the pages' chunks interleaved: the first chunk of each page, then the
                    second …

Page heads are written at ingest (the catalogue's ``pages`` record per ``doc_id``; built from
the stored chunks once for documents ingested before) and kept in a bounded LRU keyed by
``doc_id`` (the sha256 of the document's bytes: a changed document has a new id, so nothing
goes stale). A question costs one ``get_chunks`` read for the chosen pages' chunks.
"""

from __future__ import annotations

import json
import re
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from corpus.page_titles import PageHead
from corpus.types import ChunkStore, SearchHit

__all__ = ["PageNavigator", "StatementVocabulary", "squash"]

_PACKAGED = Path(__file__).with_name("statements.json")
_T = TypeVar("_T")
_NOT_WORD = re.compile(r"[^0-9a-z\u3400-\u9fff]+")


def squash(text: str) -> str:
    """Lower-case NFKC text with everything but letters, digits and CJK removed."""
    return _NOT_WORD.sub("", unicodedata.normalize("NFKC", text).lower())


def _phrase(p: str) -> re.Pattern[str]:
    return re.compile(r"(?<![a-z0-9])" + re.escape(p.lower()) + r"(?![a-z0-9])")


@dataclass(frozen=True)
class _Statement:
    name: str
    titles: tuple[str, ...]  # squashed
    named: tuple[re.Pattern[str], ...]
    cues: tuple[re.Pattern[str], ...]
    squashed: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # multi-word named, cues

    def asked(self, text: str, flat: str, which: int) -> bool:
        pats = self.named if which == 0 else self.cues
        return any(p.search(text) for p in pats) or any(w in flat for w in self.squashed[which])


@lru_cache(maxsize=4)
def _load(path: str) -> tuple[_Statement, ...]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return tuple(
        _Statement(
            s["name"],
            tuple(squash(t) for t in s["titles"]),
            tuple(_phrase(p) for p in s.get("named", [])),
            tuple(_phrase(p) for p in s.get("cues", [])),
            tuple(
                tuple(squash(p) for p in s.get(key, []) if " " in p)
                for key in ("named", "cues")
            ),  # type: ignore[arg-type]
        )
        for s in data["statements"]
    )


class StatementVocabulary:
    """Which statements a question asks for, and whether a page title is one of them.

    :param path: the vocabulary (default: the packaged ``rag/statements.json``).
    :raises OSError, ValueError, KeyError: the file is missing or malformed.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.statements = _load(str(path or _PACKAGED))

    def wanted(self, question: str) -> list[tuple[int, float]]:
        """``(statement index, weight)``: 2 for a statement the question names, 1 for one a cue
        points to; statements not asked for are left out."""
        text = unicodedata.normalize("NFKC", question).lower()
        flat = squash(text)
        out = []
        for i, st in enumerate(self.statements):
            if st.asked(text, flat, 0):
                out.append((i, 2.0))
            elif st.asked(text, flat, 1):
                out.append((i, 1.0))
        return out

    def holds(self, index: int, title: str) -> bool:
        """True when ``title`` (a page head) names statement ``index``."""
        return self.fit(index, title) > 0

    def fit(self, index: int, title: str) -> float:
        """How plainly a page head names statement ``index``, in [0, 1]: 0 when none of its
        titles is in the head; else the best over head lines holding one of
        ``sqrt(len(title) / len(line))`` (both squashed) — "Consolidated Balance Sheets" (0.72)
        before "Table 9: Selected income statement data" (0.64) or a line of an auditor's report
        naming the statements (≈ 0.4) — times 0.9 per line above it."""
        best = 0.0
        for n, line in enumerate(title.split(" / ")):
            flat = squash(line)
            for t in self.statements[index].titles:
                if t and t in flat:
                    best = max(best, (len(t) / len(flat)) ** 0.5 * 0.9**n)
        return best


def _round_robin(lists: Sequence[Sequence[_T]]) -> Iterator[_T]:
    """The first item of each list, then the second of each, … (lists of any lengths)."""
    for depth in range(max((len(x) for x in lists), default=0)):
        for lst in lists:
            if depth < len(lst):
                yield lst[depth]


class PageNavigator:
    """The page list of a question over its resolved documents.

    :param store: the chunk store holding the catalogue.
    :param vocabulary: the statement vocabulary (default: packaged).
    :param max_pages: pages in the list (default 4).
    :param cache_docs: documents whose page heads are kept (LRU, default 64).
    """

    def __init__(
        self,
        store: ChunkStore,
        *,
        vocabulary: StatementVocabulary | None = None,
        max_pages: int = 4,
        cache_docs: int = 64,
    ) -> None:
        self.store = store
        self.vocabulary = vocabulary or StatementVocabulary()
        self.max_pages = max_pages
        self._cache_docs = cache_docs
        self._cache: OrderedDict[tuple[str, str], list[PageHead]] = OrderedDict()
        self._lock = threading.Lock()

    def heads(self, collection: str, doc_id: str) -> list[PageHead]:
        """Page heads of one document (the catalogue's ``pages`` record; cached).

        :raises StoreError: when the record or the chunks cannot be read.
        """
        from corpus.catalogue import Catalogue

        key = (collection, doc_id)
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
        heads = Catalogue(self.store).page_heads(collection, doc_id)  # type: ignore[arg-type]
        with self._lock:
            self._cache[key] = heads
            while len(self._cache) > self._cache_docs:
                self._cache.popitem(last=False)
        return heads

    def page_hits(self, collection: str, doc_ids: Sequence[str], question: str) -> list[SearchHit]:
        """Chunks of the best-titled pages of ``doc_ids`` for ``question``, best page first
        (``score`` = the page score); ``[]`` when the question asks for no statement.

        :raises StoreError: when a document's chunks cannot be read.
        """
        wanted = self.vocabulary.wanted(question)
        if not wanted or not doc_ids:
            return []
        # per wanted statement: its pages by fit (weight × plainness), documents in resolution
        # order breaking ties; a page with no title right after a fitting page continues it
        ranked: list[list[tuple[float, int, int, PageHead]]] = [[] for _ in wanted]
        for rank, doc_id in enumerate(doc_ids):
            heads = self.heads(collection, doc_id)
            for j, (i, w) in enumerate(wanted):
                prev = 0.0
                for h in heads:
                    f = w * self.vocabulary.fit(i, h.title)
                    cont = not f and not h.title and prev > 0
                    if cont:
                        f = prev / 2
                    prev = 0.0 if cont else f
                    if f > 0:
                        ranked[j].append((f, rank, h.page, h))
        for lst in ranked:
            lst.sort(key=lambda t: (-t[0], t[1], t[2]))
        # round robin over the statements: each one's best page first, then the second best …
        pages: dict[tuple[int, int], tuple[float, PageHead]] = {}
        for f, rank, page, h in _round_robin(ranked):
            if len(pages) >= self.max_pages:
                break
            pages.setdefault((rank, page), (f, h))
        # the pages' chunks interleaved: first chunk of each page, then the second …
        order: dict[str, float] = {}
        for f, cid in _round_robin([[(f, c) for c in h.chunk_ids] for f, h in pages.values()]):
            order.setdefault(cid, f)
        if not order:
            return []
        chunks = {c.chunk_id: c for c in self.store.get_chunks(collection, list(order))}
        return [SearchHit(chunks[cid], f) for cid, f in order.items() if cid in chunks]
