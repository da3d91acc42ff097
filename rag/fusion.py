"""Pure fusion logic of hybrid retrieval (no I/O): weighted reciprocal rank fusion, the
document-level step, and merging of adjacent chunks of one section.

Weighted RRF (Cormack, Clarke & Büttcher 2009, "Reciprocal Rank Fusion outperforms Condorcet and
individual rank learning methods"; weights as in Qdrant's ``Fusion.Rrf(k, weights)``)::

    rrf(c) = Σ_source  w_source / (k + rank_source(c))        rank is 1-based

Duplicate text (case 16): a candidate whose chunk text equals, after
``corpus.text_identity.normalize_text(compat=False)`` (NFC, line endings, trailing blanks), a
better candidate's is dropped, so two copies of one paragraph (a document and its re-upload, or
two versions sharing a section) never take two of the top-k places; the next candidate moves
up. Only candidates up to the k-th kept item are normalised (about 7 µs per 1,000 characters).

Document-level step (issue 3, item 2: questions that name a document's subject should find it):
each candidate document gets a prior in [0, 2] = its share of the candidates' RRF mass (best
document = 1) + how well the question's key terms match its title and path (company names,
years, form types such as ``10-K``; each term weighted by its rarity among the candidate
documents, best document = 1); every chunk of that document gains
``doc_weight * prior / (k + 1)``, i.e. ``doc_weight`` is in units of "one rank-1 vote".
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence

from corpus.text_identity import normalize_text
from corpus.types import Chunk, SearchHit
from rag.types import RetrievedChunk

__all__ = ["document_priors", "fuse", "merge_adjacent", "title_match", "unique_text"]

_SPLIT = re.compile(r"[\s_\-./\\()\[\],;:]+")
_ALNUM = re.compile(r"^([a-z]+)(\d{2,})$")


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def _title_terms(term: str) -> tuple[str, ...]:
    """A key term and, for a letters+digits code (``fy2018``, ``q3``), its digit part too."""
    m = _ALNUM.match(term)
    return (term, m.group(2)) if m else (term,)


def _matches(term: str, hay: str, tokens: set[str]) -> bool:
    if term.isascii():
        return term in tokens or (len(term) >= 3 and any(t.startswith(term) for t in tokens))
    return term in hay


def title_match(key_terms: Sequence[str], title: str, path: str) -> float:
    """Share (0..1) of ``key_terms`` found in a document's title or path.

    ASCII terms match whole tokens of the title/path (split on spaces and ``_ - . /``) or, from
    three characters on, a token's start (``3m`` matches ``3M_2018_10K``; ``fy2018`` also
    matches through its digits ``2018``); CJK terms match as substrings.
    """
    terms = [t for t in (_norm(k) for k in key_terms) if t]
    if not terms:
        return 0.0
    hay = _norm(f"{title} {path}")
    tokens = {t for t in _SPLIT.split(hay) if t}
    hits = sum(1 for t in terms if any(_matches(v, hay, tokens) for v in _title_terms(t)))
    return hits / len(terms)


def _title_scores(docs: dict[str, Chunk], key_terms: Sequence[str]) -> dict[str, float]:
    """Title/path match per document, each term weighted by its rarity among the candidate
    documents' titles (``log(1 + n / df)``), the best document scaled to 1 (0 when none)."""
    terms = list(dict.fromkeys(t for t in (_norm(k) for k in key_terms) if t))
    if not terms or not docs:
        return {}
    per_doc: dict[str, set[str]] = {}
    for d, ch in docs.items():
        hay = _norm(f"{ch.title} {ch.path}")
        tokens = {t for t in _SPLIT.split(hay) if t}
        per_doc[d] = {t for t in terms if any(_matches(v, hay, tokens) for v in _title_terms(t))}
    n = len(docs)
    df = {t: sum(1 for m in per_doc.values() if t in m) for t in terms}
    raw = {d: sum(math.log1p(n / df[t]) for t in m) for d, m in per_doc.items()}
    top = max(raw.values())
    return {d: v / top for d, v in raw.items()} if top > 0 else {}


def document_priors(
    scored: dict[str, float], chunks: dict[str, Chunk], key_terms: Sequence[str]
) -> dict[str, float]:
    """Prior in [0, 2] per document id: its share of the candidates' RRF mass (best document =
    1) + its title/path match with the question's key terms (rarest matches count most, best
    document = 1)."""
    mass: dict[str, float] = defaultdict(float)
    docs: dict[str, Chunk] = {}
    for cid, s in scored.items():
        ch = chunks[cid]
        mass[ch.doc_id] += s
        docs.setdefault(ch.doc_id, ch)
    if not mass:
        return {}
    top = max(mass.values()) or 1.0
    titles = _title_scores(docs, key_terms)
    return {d: mass[d] / top + titles.get(d, 0.0) for d in mass}


def fuse(
    dense: Sequence[SearchHit],
    keyword: Sequence[SearchHit],
    *,
    top_k: int,
    rrf_k: int = 60,
    dense_weight: float = 1.0,
    keyword_weight: float = 1.0,
    doc_weight: float = 0.0,
    key_terms: Sequence[str] = (),
    merge: bool = True,
    pages: Sequence[SearchHit] = (),
    page_weight: float = 1.0,
) -> list[RetrievedChunk]:
    """Fuse the dense and keyword hit lists into at most ``top_k`` result items, best first.

    :param dense: dense hits, best first (``score`` = cosine); ``keyword`` BM25 hits likewise.
    :param rrf_k: RRF constant; ``dense_weight`` / ``keyword_weight`` per-source weights.
    :param doc_weight: weight of the document-level step (0 = off).
    :param key_terms: the question's key terms (for the title/path match of the document step).
    :param merge: merge consecutive chunks of one section (see :func:`merge_adjacent`).
    :param pages: a third ranked list, chunks of the pages whose title names what the question
        asks for (``rag.pages``), fused at ``page_weight`` in units of the similarity lists
        given: ``page_weight × (dense_weight [dense given] + keyword_weight [keyword given])``
        (1.0 = as much as both together).
    :returns: result items with fused score and per-source scores/ranks; no two of their
        chunks have the same normalised text (:func:`unique_text`).
    """
    chunks: dict[str, Chunk] = {}
    scored: dict[str, float] = defaultdict(float)
    d_rank: dict[str, tuple[int, float]] = {}
    k_rank: dict[str, tuple[int, float]] = {}
    p_rank: dict[str, tuple[int, float]] = {}
    similarity = dense_weight * bool(dense) + keyword_weight * bool(keyword)
    for hits, weight, ranks in (
        (dense, dense_weight, d_rank),
        (keyword, keyword_weight, k_rank),
        (pages, page_weight * similarity, p_rank),
    ):
        for rank, hit in enumerate(hits, start=1):
            cid = hit.chunk.chunk_id
            if cid in ranks:
                continue
            chunks.setdefault(cid, hit.chunk)
            ranks[cid] = (rank, hit.score)
            scored[cid] += weight / (rrf_k + rank)
    if doc_weight > 0 and scored:
        priors = document_priors(scored, chunks, key_terms)
        bonus = doc_weight / (rrf_k + 1)
        for cid in scored:
            scored[cid] += bonus * priors.get(chunks[cid].doc_id, 0.0)
    ranked = sorted(scored, key=lambda c: (-scored[c], c))
    items = [
        RetrievedChunk(
            chunks=(chunks[c],),
            score=scored[c],
            dense_score=d_rank[c][1] if c in d_rank else None,
            keyword_score=k_rank[c][1] if c in k_rank else None,
            dense_rank=d_rank[c][0] if c in d_rank else None,
            keyword_rank=k_rank[c][0] if c in k_rank else None,
        )
        for c in ranked
    ]
    if merge:
        return merge_adjacent(items, top_k)
    out: list[RetrievedChunk] = []
    for item in unique_text(items):
        if len(out) >= top_k:
            break
        out.append(item)
    return out


def unique_text(items: Iterable[RetrievedChunk]) -> Iterator[RetrievedChunk]:
    """``items`` in order, leaving out each item whose chunk text (of its first chunk) equals,
    after :func:`corpus.text_identity.normalize_text` (NFC), that of an item already given. Lazy: a
    caller that stops after k items pays for the texts it saw."""
    seen: set[str] = set()
    for item in items:
        key = normalize_text(item.chunks[0].text, compat=False)
        if key not in seen:
            seen.add(key)
            yield item


def _best(a: float | int | None, b: float | int | None, *, high: bool) -> float | int | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b) if high else min(a, b)


def _adjacent(item: RetrievedChunk, ch: Chunk) -> int:
    """-1 when ``ch`` goes right before ``item``, +1 right after, 0 when not adjacent."""
    first, last = item.chunks[0], item.chunks[-1]
    if ch.doc_id != first.doc_id or ch.section_path != first.section_path:
        return 0
    if ch.ordinal == last.ordinal + 1 or ch.chunk_id == last.next_id:
        return 1
    if ch.ordinal == first.ordinal - 1 or ch.chunk_id == first.prev_id:
        return -1
    return 0


def merge_adjacent(items: Sequence[RetrievedChunk], top_k: int) -> list[RetrievedChunk]:
    """Merge each item into an earlier (better) item it directly continues (same document,
    same section path, consecutive ordinals), until ``top_k`` items are filled.

    A merged item keeps the better item's score and the best per-source scores/ranks; merging
    frees a slot, so a candidate further down moves into the top-k. A candidate whose text
    repeats a better one's is dropped first (:func:`unique_text`).
    """
    out: list[RetrievedChunk] = []
    for item in unique_text(items):
        ch = item.chunks[0]
        for i, prev in enumerate(out):
            side = _adjacent(prev, ch)
            if side and len(item.chunks) == 1:
                merged = (ch, *prev.chunks) if side < 0 else (*prev.chunks, ch)
                out[i] = RetrievedChunk(
                    chunks=merged,
                    score=prev.score,
                    dense_score=_best(prev.dense_score, item.dense_score, high=True),
                    keyword_score=_best(prev.keyword_score, item.keyword_score, high=True),
                    dense_rank=_best(prev.dense_rank, item.dense_rank, high=False),  # type: ignore[arg-type]
                    keyword_rank=_best(prev.keyword_rank, item.keyword_rank, high=False),  # type: ignore[arg-type]
                )
                break
        else:
            if len(out) >= top_k:
                break
            out.append(item)
    return out
