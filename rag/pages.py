"""Page navigation inside resolved documents: the pages whose title names what the question asks
for become a third ranked list of the fusion (issue 15, item 2).

A question that resolved to a few documents (``rag.resolve``) and names a statement ("using the
balance sheet …"), or a quantity that is read from one ("net PP&E", "capital expenditure",
"DPO"), is answered from the page titled with that statement. Such a page shares its words with
a dozen others of the same filing, so BM25 and dense similarity rank it 6th–20th; its title
(``corpus.page_titles``) says what it is.

Scoring (pure; the vocabulary is ``rag/statements.json``, field knowledge, not fitted)::

    wanted(q)     = statements the question names (weight 2) or cues (weight 1)
    score(page)   = Σ weight over the wanted statements one of whose titles the page's title
                    holds (compared without spaces and punctuation: PDF text often splits a
                    word, "Balance Shee t")
    continuation  = a page with no title right after a scored page scores half of it
    page list     = chunks of the best ``max_pages`` pages, best page first, document order

Page heads are built once per document from its chunks and kept in a bounded LRU keyed by
``doc_id`` (the sha256 of the document's bytes: a changed document has a new id, so nothing
goes stale).
"""

from __future__ import annotations

import json
import re
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from corpus.page_titles import PageHead, page_heads
from corpus.types import Chunk, ChunkStore, SearchHit

__all__ = ["PageNavigator", "StatementVocabulary", "squash"]

_PACKAGED = Path(__file__).with_name("statements.json")
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


@lru_cache(maxsize=4)
def _load(path: str) -> tuple[_Statement, ...]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return tuple(
        _Statement(
            s["name"],
            tuple(squash(t) for t in s["titles"]),
            tuple(_phrase(p) for p in s.get("named", [])),
            tuple(_phrase(p) for p in s.get("cues", [])),
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
        out = []
        for i, st in enumerate(self.statements):
            if any(p.search(text) for p in st.named):
                out.append((i, 2.0))
            elif any(p.search(text) for p in st.cues):
                out.append((i, 1.0))
        return out

    def holds(self, index: int, title: str) -> bool:
        """True when ``title`` (a page head) names statement ``index``."""
        s = squash(title)
        return bool(s) and any(t in s for t in self.statements[index].titles)


class PageNavigator:
    """The page list of a question over its resolved documents.

    :param store: the chunk store (``document_chunks`` is read once per document).
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
        self._cache: OrderedDict[tuple[str, str], tuple[list[PageHead], dict[str, Chunk]]] = (
            OrderedDict()
        )
        self._lock = threading.Lock()

    def heads(self, collection: str, doc_id: str) -> tuple[list[PageHead], dict[str, Chunk]]:
        """Page heads of one document and its chunks on titled pages (cached).

        :raises StoreError: when the chunks cannot be read.
        """
        key = (collection, doc_id)
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
        chunks = self.store.document_chunks(collection, doc_id)
        heads = page_heads(chunks)
        keep = {cid for h in heads for cid in h.chunk_ids}
        value = (heads, {c.chunk_id: c for c in chunks if c.chunk_id in keep})
        with self._lock:
            self._cache[key] = value
            while len(self._cache) > self._cache_docs:
                self._cache.popitem(last=False)
        return value

    def page_hits(self, collection: str, doc_ids: Sequence[str], question: str) -> list[SearchHit]:
        """Chunks of the best-titled pages of ``doc_ids`` for ``question``, best page first
        (``score`` = the page score); ``[]`` when the question asks for no statement.

        :raises StoreError: when a document's chunks cannot be read.
        """
        wanted = self.vocabulary.wanted(question)
        if not wanted or not doc_ids:
            return []
        scored: list[tuple[float, int, str, PageHead]] = []
        chunks: dict[str, Chunk] = {}
        for rank, doc_id in enumerate(doc_ids):
            heads, by_id = self.heads(collection, doc_id)
            chunks.update(by_id)
            prev = 0.0
            for h in heads:
                s = sum(w for i, w in wanted if self.vocabulary.holds(i, h.title))
                cont = not s and not h.title and prev > 0
                if cont:
                    s = prev / 2
                prev = 0.0 if cont else s
                if s > 0:
                    scored.append((s, rank, doc_id, h))
        scored.sort(key=lambda t: (-t[0], t[1], t[3].page))
        out: list[SearchHit] = []
        seen: set[str] = set()
        for s, _rank, _doc, h in scored[: self.max_pages]:
            for cid in h.chunk_ids:
                if cid not in seen and cid in chunks:
                    seen.add(cid)
                    out.append(SearchHit(chunks[cid], s))
        return out
