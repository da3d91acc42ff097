"""Evidence for a question asked in the other language than the passages retrieved for it: the
units chosen by the multilingual embedding, not by shared words.

The extractive answer (``rag.extractive``) scores a sentence or table row by the question's key
terms it holds. An English question on Chinese documents shares no words with them but the few
dictionary terms the conversation stage appended (``gateway.conversation.crosslang``), so the
answer unit was often the wrong one although dense retrieval had found the page: on the 8 zh-PDF
collection, the 30 zh-PDF dev questions asked in English (``benchmarks/crosslang``) had the gold
page among the top-5 items' units for 25, and the answer's citation on it for 12; the unit whose
e5 vector is closest to the question's was on it for 17 (prototype measured this session).
e5 is trained for this (Wang et al. 2024, "Multilingual E5 Text Embeddings", cross-lingual
retrieval); the same vectors rank sentences as they rank chunks.

The language test reads scripts only (``corpus.scripts``): a question of Latin letters whose
top items are mostly CJK, or the reverse (a Chinese question over English passages).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from corpus.evidence import nfkc_lower, split_units
from corpus.evidence.recognise import excluded
from corpus.scripts import PASSAGE_CJK_MIN, QUESTION_OTHER_MAX, other_script, script_share
from corpus.types import Chunk, Citation
from rag.extractive import verified_evidence
from rag.types import Evidence, Retrieval, RetrievedChunk

__all__ = ["PASSAGE_CJK_MIN", "QUESTION_OTHER_MAX", "cross_language", "dense_evidence",
           "script_share"]

TOP_ITEMS = 3  # items whose units are compared (the retrieval's best)
MAX_UNITS = 64  # units embedded per question at the most (latency: ~10-20 ms each on 2 cores)
_MIN_UNIT_CHARS = 8  # a heading number or a lone cell says nothing


def _no_reading() -> str:
    return ""  # a unit chosen by its vector is shown as quoted (no statement-cell reading)


def cross_language(question: str, items: Sequence[RetrievedChunk]) -> bool:
    """True when ``question`` is in another script than both the text of its top
    :data:`TOP_ITEMS` items and that of the best item alone (module docstring); ``False``
    without items. The best item counts on its own: in a mixed collection a Chinese question
    whose best item is the Chinese regulation it asks about, followed by two English files,
    shares its words with the passage that answers (a new-user trial's "第二十条的内容" was
    answered by the vector-closest unit, another article)."""
    if not items:
        return False
    q = script_share(question)
    return all(other_script(q, script_share(" ".join(c.text for it in top for c in it.chunks)))
               for top in (items[:TOP_ITEMS], items[:1]))


def dense_evidence(
    retrieval: Retrieval,
    make_citation: Callable[[Chunk, str], Citation | None],
    embed_query: Callable[[str], Sequence[float]],
    embed_passages: Callable[[Sequence[str]], Sequence[Sequence[float]]],
    *,
    max_evidence: int = 3,
    codes: Sequence[str] = (),
    normalize: Callable[[str], str] = nfkc_lower,
) -> list[Evidence]:
    """Up to ``max_evidence`` verified units of the top :data:`TOP_ITEMS` items, best first by
    the cosine of their passage vector with the question's (``Evidence.score`` = the cosine,
    -1..1). Units are the extractive ones (``corpus.evidence.split_units``, ``"quote"``), at
    most :data:`MAX_UNITS`, none that the extractive path leaves out either
    (``corpus.evidence.recognise.excluded``: another code of the family of one of ``codes``,
    an injection, a line of links); a unit whose quote does not verify is dropped.

    :param embed_query: the question embedder (e5's ``"query: "`` prefix added by it).
    :param embed_passages: the passage embedder (``"passage: "``), vectors in input order.
    :param codes: the question's codes (``corpus.term_match.code_terms`` of its key terms).
    :param normalize: the key terms' normaliser (``Tokenizer.normalize``).
    :raises Exception: what the embedder raises (``rag.errors.EmbedderError``).
    """
    units: list[tuple[str, Chunk]] = []
    for item in retrieval.items[:TOP_ITEMS]:
        for chunk in item.chunks:
            for u in split_units(chunk, "quote"):
                if len(u.strip()) >= _MIN_UNIT_CHARS and not excluded(chunk, u, codes, normalize):
                    units.append((u, chunk))
    units = units[:MAX_UNITS]
    if not units:
        return []
    q = np.asarray(embed_query(retrieval.question), dtype=np.float32)
    v = np.asarray(embed_passages([u for u, _ in units]), dtype=np.float32)
    sims = v @ q
    order = (int(i) for i in np.argsort(-sims, kind="stable"))
    ranked = ((float(sims[i]), units[i][0], units[i][1], _no_reading) for i in order)
    return verified_evidence(ranked, make_citation, max_evidence)
