"""Item navigation: the chunks that hold the numbered item a question names (第五条, Clause 4,
Article 12) become a ranked list of the fusion, beside the dense and keyword lists.

A question naming an article ("第五条规定了什么？") shares almost no words with the article's
text, and in a collection of several laws or contracts the label's few characters lose to
every chunk about 第五章 or 第五十五条: a new-user trial's collection of three Chinese laws and
a regulation answered "not found" because no retrieved chunk held a 第五条 (each law has one),
and "What does Clause 4 say?" was answered from an unrelated page. Here the label is asked of
the keyword index in both of its forms (第五条 and 第5条), and a hit counts only when its chunk
opens a line with that item, or sits under a heading opening with it
(``corpus.labels.line_labels``; a cross-reference inside a sentence — "违反本法第五条规定" — is
not the item). The list is fused as the page list is (``rag.fusion.fuse``, ``pages``).
"""

from __future__ import annotations

from corpus.item_scope import chunk_labels
from corpus.labels import Label, zh_numeral
from corpus.types import Chunk, ChunkStore, SearchFilter, SearchHit, SparseVector
from rag.types import QueryTokenizer

__all__ = ["holds_item", "item_hits", "label_forms"]


def label_forms(label: Label) -> list[str]:
    """The ways a document writes ``label``: 第五条 and 第5条 for a Chinese label, the label
    as asked for an English one (Clause 4)."""
    if label.kind.isascii():
        return [label.text]
    n = label.number[0]
    return [f"第{zh_numeral(n)}{label.kind}", f"第{n}{label.kind}"]


def holds_item(chunk: Chunk, label: Label) -> bool:
    """True when ``chunk`` opens a line with ``label``'s item (same kind and number, either
    form), or one of its section headings opens with it (``corpus.item_scope.chunk_labels``)."""
    return any(lb.number == label.number for lb in chunk_labels(chunk, label.kind))


def item_hits(store: ChunkStore, tokenizer: QueryTokenizer, collection: str, label: Label,
              limit: int, flt: SearchFilter | None) -> list[SearchHit]:
    """The keyword hits for ``label``'s forms (:func:`label_forms`, one query) whose chunk
    holds the item (:func:`holds_item`), best first; ``[]`` when the label gives no query
    terms. :raises corpus.errors.StoreError: the index query failed."""
    sparse: SparseVector = tokenizer.sparse_query(" ".join(label_forms(label)))
    if sparse.is_empty():
        return []
    return [h for h in store.keyword_search(collection, sparse, limit, flt)
            if holds_item(h.chunk, label)]
