"""The offline policy's answer: evidence of the chunks read, ranked (key terms, rank prior,
figure bonus, revision-history penalty, optionally dense similarity), and the ``answer`` call
built from it (:class:`loop.policies.offline.OfflinePolicy` drives these). Pure functions but
:func:`similarities`, which calls the embedder (blocking). Knobs: ``corpus.tuning.OfflineTuning``
(``TUNING.offline``), weights ``TUNING.evidence``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection

from corpus.citations import display_quote
from corpus.evidence import TermMatcher, rank_prior
from corpus.evidence.cases import asks_value, case_series, named_case
from corpus.evidence.units import through_next
from corpus.item_scope import item_units, numbers_items
from corpus.item_text import asks_whole_item, item_passages
from corpus.labels import asked_item
from corpus.tuning import TUNING, OfflineTuning
from loop.controller import LoopState
from loop.evidence import (
    Evidence,
    asks_quantity,
    asks_revision,
    best_evidence,
    is_revision_history,
    spread_weights,
)
from loop.types import NOT_FOUND, ToolCall, UnitEmbedder

__all__ = ["answer_call", "cases_for", "coverage_floor", "dense_settled", "lexical_evidence",
           "passage_text", "ranked_evidence", "seed_evidence", "similarities"]

Similarity = dict[tuple[str, str], float]


def coverage_floor(state: LoopState, min_coverage: float | None) -> float:
    """The share of key-term weight a unit must cover to be cited: ``min_coverage``, else the
    loop's ``LoopConfig.min_coverage``."""
    return state.ctx.config.min_coverage if min_coverage is None else min_coverage


def lexical_evidence(state: LoopState, tuning: OfflineTuning) -> list[Evidence]:
    """Units of the chunks read, ranked by key-term coverage (the matcher's unknown terms
    discounted, ``TermMatcher.known``) + a rank prior from the order chunks were shown in
    (``search_weight / (1 + search_decay * rank)``) - the revision-history penalty (unless the
    question asks about versions) + the figure bonus (``quantity_bonus`` for a quantity
    question, whose statement rows also weigh by their label cover); the coverage part of the
    ranking read under :func:`loop.evidence.spread_weights` (a term most chunks read hold
    weighs less, ``spread_discount``); at most 500. For a question naming a numbered item
    (第二十一条, Clause 4: ``corpus.labels.asked_item``) the units of other items are left out
    (``corpus.item_scope.item_units``)."""
    order = {cid: i for i, cid in enumerate(state.ctx.seen)}
    bonus = {cid: rank_prior(i, tuning.search_decay, tuning.search_weight)
             for cid, i in order.items()}
    if not asks_revision(state.question):
        for cid, c in state.ctx.seen.items():
            if is_revision_history(c):
                bonus[cid] -= TUNING.evidence.revision_penalty
    label = asked_item(state.question)
    m = state.matcher.known([c.context_text() for c in state.ctx.seen.values()], label=label)
    quantity = asks_quantity(state.question)
    nb = tuning.quantity_bonus if quantity else TUNING.evidence.number_bonus
    read = list(state.ctx.read.values())
    ev = best_evidence(read, m, limit=500, bonus=bonus, number_bonus=nb, figure_rows=quantity,
                       rank_weights=spread_weights(m, read, tuning.spread_discount), label=label)
    # a unit of another numbered item is no answer to the one asked (the answer check refuses
    # it: ``other_item``), so it must not outrank the item's own units: the dense re-rank put
    # 第二十五条's sentence citing 第二十一条 first for "第21条规定了什么？" (a new-user trial);
    # where some unit is in the item asked, a unit of a text numbering nothing is no answer
    kept, inside = item_units(state.question, ev,
                              lambda e: (e.text, e.chunk.text, e.chunk.section_path))
    if label is not None and not inside and numbers_items(state.question, read):
        # the texts read number such items and none is the one asked: the item is not there
        # (as the RAG scope check, rag.answerability; a trial's 第十五条 of a ten-article
        # regulation was answered by the regulation's title line)
        return []
    return inside or kept


def ranked_evidence(tuning: OfflineTuning, floor: float,
                    similarity: Similarity | None, lexical: list[Evidence]) -> list[Evidence]:
    """``lexical`` re-ranked with ``dense_weight`` × the unit's dense similarity to the question
    (``similarity``: cosine by ``(chunk id, unit text)``, min-max scaled over the units
    embedded), cut to the units covering at least ``floor``; ``[]`` (say not found) when the
    unit best by its ``plain`` score (the key terms' own weights, not the spread ones: what
    the floors were set on) + dense is below ``floor`` and no unit covers ``floor +
    strong_margin``."""
    ev = lexical
    lo = hi = 0.0
    span = 1.0
    if similarity:
        lo, hi = min(similarity.values()), max(similarity.values())
        span = (hi - lo) or 1.0

    def dense(e: Evidence) -> float:
        v = similarity.get((e.chunk.chunk_id, e.text)) if similarity else None
        return 0.0 if v is None else tuning.dense_weight * (v - lo) / span

    if similarity:
        ev = sorted(ev, key=lambda e: (-(e.score + dense(e)), e.rank, len(e.text)))
    def plain(e: Evidence) -> float:
        return e.score if e.plain is None else e.plain

    first = min(ev, key=lambda e: (-(plain(e) + dense(e)), e.rank, len(e.text))) if ev else None
    if first is None or (first.coverage < floor
                         and max(e.coverage for e in ev) < floor + tuning.strong_margin):
        return []  # the best-ranked unit is weak and nothing else is clearly strong
    return [e for e in ev if e.coverage >= floor]  # below the floor a unit is no evidence


def seed_evidence(tuning: OfflineTuning, floor: float, lexical: list[Evidence],
                  seeds: Collection[str]) -> tuple[list[Evidence], float]:
    """The evidence the loop answers with when :func:`ranked_evidence` says not found but the
    RAG candidates it started from hold the answer: ``(units, floor used)``, ``([], floor)``
    for none.

    When the unit ranked first by key terms and the rank prior (``lexical[0]``) lies in a
    chunk of ``seeds`` (the RAG path's candidates, by chunk id) — the retrieval, which weighs
    the whole question with the corpus IDF and the dense similarity, and the loop's own
    ranking point at the same passage — the passage is kept at a floor lowered by
    ``strong_margin``: a long question (a dozen key terms, many of them words of the request
    itself: "use", "metric", "company", "explain") leaves the right statement row or handbook
    line under ``floor`` while the RAG path answers with it. The units kept are those of the
    seed chunks covering ``floor - strong_margin``, in ``lexical`` order; the unit ranked first
    must be one of them (otherwise the loop has no better place than one RAG did not pick, and
    not found stands). Pure."""
    relaxed = max(0.0, floor - tuning.strong_margin)
    if not lexical or lexical[0].chunk.chunk_id not in seeds or lexical[0].coverage < relaxed:
        return [], floor
    return [e for e in lexical if e.chunk.chunk_id in seeds and e.coverage >= relaxed], relaxed


def dense_settled(tuning: OfflineTuning, floor: float, lexical: list[Evidence],
                  eps: float = 1e-9) -> bool:
    """True when :func:`answer_call` over :func:`ranked_evidence` gives the same call whatever
    the dense similarities are, so the ``dense_units`` units need not be embedded.

    The dense term adds 0..``dense_weight`` to each of the first ``dense_units`` units of
    ``lexical`` (min-max scaled: any value in that range) and 0 to the others. Settled when
    (1) the not-found decision cannot change — some unit covers ``floor + strong_margin``,
    or every unit that could rank first by its ``plain`` score + dense is on the same side of
    ``floor`` — and (2) among the units covering ``floor``, a leading run keeps its places
    (each unit's score above every later unit's score + its largest dense term) and either
    already holds ``max_citations`` cited chunks or no later unit could be cited (below the
    best unit's coverage - ``close``, or in a chunk the run already cites). Conservative:
    a False may be an answer the dense term would not have changed either. Measured on the
    8 zh PDFs (offline loop, 37 answer turns): 3 settled.
    """
    if not lexical:
        return True
    w = tuning.dense_weight
    embedded = {(e.chunk.chunk_id, e.text) for e in lexical[:tuning.dense_units]}

    def lift(i: int) -> float:  # a unit's largest dense term (by key, as ranked_evidence)
        e = lexical[i]
        return w if (e.chunk.chunk_id, e.text) in embedded else 0.0

    def plain(e: Evidence) -> float:
        return e.score if e.plain is None else e.plain

    if max(e.coverage for e in lexical) < floor + tuning.strong_margin:
        top = max(plain(e) for e in lexical)
        sides = {e.coverage < floor for i, e in enumerate(lexical)
                 if plain(e) + lift(i) >= top - eps}
        if sides == {True}:
            return True  # "not found" whatever the dense term
        if len(sides) > 1:
            return False
    cited = [(e, lift(i)) for i, e in enumerate(lexical) if e.coverage >= floor]
    if not cited:
        return True
    later = [float("-inf")] * (len(cited) + 1)  # best score + dense of the units after i
    for i in range(len(cited) - 1, -1, -1):
        later[i] = max(later[i + 1], cited[i][0].score + cited[i][1])
    run = 0
    while run < len(cited) and cited[run][0].score > later[run + 1] + eps:
        run += 1
    if run == 0:
        return False
    thr = max(floor, cited[0][0].coverage - tuning.close)
    chunks: set[str] = set()
    picks = 0
    for e, _ in cited[:run]:
        if e.chunk.chunk_id not in chunks:
            chunks.add(e.chunk.chunk_id)
            picks += e.coverage >= thr
    return picks >= tuning.max_citations or not any(
        e.coverage >= thr and e.chunk.chunk_id not in chunks for e, _ in cited[run:])


def similarities(state: LoopState, embedder: UnitEmbedder, dense_units: int,
                 lexical: list[Evidence]) -> Similarity:
    """Cosine of the question and each of the ``dense_units`` best units of ``lexical`` (each
    embedded as :func:`passage_text`: under its chunk's headings), by ``(chunk id, unit
    text)``. Blocking: one question and up to ``dense_units`` passages
    through the embedder; its errors propagate."""
    units = lexical[:dense_units]
    if not units:
        return {}
    q = embedder.embed_query(state.question)
    vecs = embedder.embed_passages([passage_text(e) for e in units])
    return {(e.chunk.chunk_id, e.text): float(sum(a * b for a, b in zip(q, v, strict=True)))
            for e, v in zip(units, vecs, strict=True)}


def passage_text(e: Evidence) -> str:
    """What :func:`similarities` embeds for a unit: its chunk's heading line (document name,
    title, section path: the head of ``Chunk.context_text``), a table row's header row, then
    the unit — every unit read in the place it sits, so a value row (``| Tstore | 存储温度 |
    –40 | 150 | °C |``) is compared as what it is about, not against prose that names the
    document's subject again."""
    c = e.chunk
    head = c.context_text()[: -len(c.text)].strip() if c.text else ""
    header = c.table_header() if e.text.lstrip().startswith("|") else ""
    return "\n".join(p for p in (head, header if header != e.text else "", e.text) if p)


def answer_call(ev: list[Evidence], tuning: OfflineTuning, floor: float,
                matcher: TermMatcher | None = None, question: str | None = None) -> ToolCall:
    """The ``answer`` call for ranked evidence ``ev`` (:func:`ranked_evidence`): "not found"
    when empty, else the best unit of each chunk covering at least ``floor`` and within
    ``close`` of the best, at most ``max_citations``, each quoted and cited; "not found" too,
    citing them as the closest passages, when every one only repeats the question's words
    (``matcher.echoes``: a page footer naming the survey the question quotes, a map's street
    label). With the
    ``question`` and its ``matcher``, a first unit that is one case of an enumerating sentence
    gives way to the case the question names, else to the whole series (:func:`cases_for`)."""
    if not ev:
        return ToolCall("answer", {"response": NOT_FOUND, "found": False, "citations": []})
    best_per_chunk: dict[str, Evidence] = {}
    for e in ev:  # ranked: the first unit seen of a chunk is its best
        best_per_chunk.setdefault(e.chunk.chunk_id, e)
    picked = [
        e
        for e in best_per_chunk.values()
        if e.coverage >= max(floor, ev[0].coverage - tuning.close)
    ][: tuning.max_citations]
    picked[0] = past_heading(picked[0], matcher)
    found = matcher is None or not all(matcher.echoes(e.text) for e in picked)
    if matcher is not None and question is not None:
        picked[0] = cases_for(picked[0], question, matcher)
    return ToolCall(  # not found when every unit cited only repeats the question's words
        "answer",
        {
            "response": "\n".join(display_quote(e.text) for e in picked) if found else NOT_FOUND,
            "found": found,
            "citations": [{"chunk_id": e.chunk.chunk_id, "quote": e.text} for e in picked],
        },
    )


def past_heading(e: Evidence, matcher: TermMatcher | None = None) -> Evidence:
    """``e``, or — when its unit is only a heading of its chunk (its title or a section of its
    path, Markdown marks aside), or with the question's ``matcher`` only repeats the
    question's words (:meth:`corpus.evidence.TermMatcher.past_echo`: a caption, a name, a
    code; then only when the two are written as one run), and a unit follows it in the
    chunk — the verbatim passage from the heading through that next unit: a heading names
    what the text under it says (a trial: "What does Clause 4 say?" was answered "Clause 4
    Service Levels", "What is the warranty period?" with the FAQ's heading; zh-PDF dev
    zhpdf:03 "2.1.10 基本精度" holds its value, "0.1%", on the next line, which alone no
    longer says what it is)."""
    heads = {" ".join(h.split()) for h in (e.chunk.title, *e.chunk.section_path) if h}
    if " ".join(e.text.lstrip("#").split()) in heads:
        return dataclasses.replace(e, text=through_next(e.chunk, e.text, "scan"))
    got = matcher.past_echo(e.chunk, e.text, "scan") if matcher is not None else e.text
    return dataclasses.replace(e, text=got) if got != e.text else e


def cases_for(e: Evidence, question: str, matcher: TermMatcher) -> Evidence:
    """``e``, or — when its unit is one case of an enumerating sentence of its chunk
    (``corpus.evidence.cases``) that the question, asking a value the cases state, does not
    name — the case it names, else the whole series as one verbatim passage (as the RAG path
    does, ``rag.cases``). A question asking what a numbered item says ("第三十九条规定了什么？",
    ``corpus.item_text``) gets the item's whole text when ``e``'s chunk opens it."""
    if (asked := asks_whole_item(question)) is not None:
        parts = item_passages(asked, e.chunk)
        return dataclasses.replace(e, text=parts[0][1]) if parts else e
    if not asks_value(question, matcher.terms):
        return e
    series = case_series(e.chunk, e.text, matcher, style="scan")
    if series is None:
        return e
    named = named_case(series, matcher.terms, matcher.normalize)
    if named == series.index:
        return e
    return dataclasses.replace(e, text=series.units[named] if named is not None else series.text)
