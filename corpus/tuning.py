"""Tuning: every constant chosen or fitted on the evaluation data, in one typed, frozen model.

The modules that use a value read it from :data:`TUNING` (``TUNING.evidence.context_credit``)
instead of keeping a module constant, so there is one place to look for what was tuned, and
``loopgate eval`` records the values a run used (``summary.json`` → ``tuning``,
:func:`tuning_record`). Each field's description names its source: the dev run and figure that
chose it, or the commit that set it (``git show <hash>``). A value marked *design* was set by
reasoning and checked, not swept.

Not here: the fitted models kept as data (``corpus/answer_support.json``,
``rag/calibration.json``, ``gateway/routing/routing.json``), and settings an operator chooses
(``gateway.settings.Settings``: top-k, RRF k, timeouts, ``LoopConfig``).

Usage example::

    from corpus.tuning import TUNING

    credit = TUNING.evidence.context_credit  # 0.6
    other = TUNING.model_copy(update={"evidence": TUNING.evidence.model_copy(
        update={"rank_decay": 0.5})})  # a sweep builds its own copy; TUNING stays frozen
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "TUNING",
    "CrossLanguageTuning",
    "EvidenceTuning",
    "FigureTuning",
    "IngestTuning",
    "OfflineTuning",
    "PdfTuning",
    "PickTuning",
    "Tuning",
    "tuning_record",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class EvidenceTuning(_Frozen):
    """Weights of the evidence scorer (``corpus.evidence``), shared by the RAG path's
    extractive answer (``rag.extractive``) and the LoopAgent (``loop.evidence``)."""

    context_credit: float = Field(0.6, ge=0, le=1, description=(
        "Share of a key term's weight credited when it is not in the unit but in its chunk's "
        "title / section path / path / table header (a table row names neither product nor "
        "table). Both paths. Source: 2235e4a (loop), a32f243 (rag); design, not swept."))
    chunk_credit: float = Field(0.35, ge=0, le=1, description=(
        "Share credited when the term is elsewhere in the unit's chunk (LoopAgent only). "
        "Source: 2235e4a; design, not swept."))
    unknown_term_factor: float = Field(0.25, ge=0, le=1, description=(
        "Weight kept by a key term no chunk seen in the loop holds (TermMatcher.known). "
        "Source: 492562d, offline loop on the dev questions: 0.5 -> zh-pdf evidence hit "
        "73.3 %, dev 64.3 %, unanswerable refused 20 %; 0.25 -> 80.0 %, 64.7 %, 15 %; "
        "0 -> 86.7 %, 66.1 %, 10 %."))
    part_credit: float = Field(0.75, ge=0, le=1, description=(
        "Share of a compound Chinese term's weight per character its search-mode sub-words "
        "cover when the compound is absent (申请专利 against 专利申请权, zhpdf:60). Source: "
        "dbff370 (dev offline loop: zh-pdf evidence hit 80.0 -> 83.3 % with the commit's "
        "other rules)."))
    bound_credit: float = Field(1.0, ge=0, le=1, description=(
        "Share of the weight of a key term asking an extreme (最长, 最少, maximum, shortest) "
        "credited to a text stating a bound of that direction instead (不得超过, 不少于, up "
        "to, at least; corpus.evidence.bounds): a law states the maximum as 不得超过. Both "
        "paths. Source: the new-user trial '劳动合同的试用期最长不得超过多久？' answered from "
        "'…支付周期最长不得超过十五日' at 0.991; design, not swept."))
    row_weight: float = Field(1.0, ge=0, description=(
        "A statement row whose label the question names weighs 1 + row_weight x label cover "
        "when the question asks a figure (both paths). Source: 32a0e17, set not swept; RAG "
        "whole corpus (session 8): FinanceBench evidence hit 55.6 -> 58.7 %, MMLongBench "
        "table evidence 50.8 -> 54.2 %, no dataset lower."))
    rank_decay: float = Field(0.25, ge=0, description=(
        "RAG rank prior of a unit: 1 / (1 + rank_decay x rank of its retrieval item). "
        "Source: 7cc6c0c, swept 0/0.25/0.5/1/2/4 on the same retrievals of the 504 answerable "
        "dev questions: evidence hit 71.4 % at 0.5 -> 73.8 % at 0.25 (FinanceBench 49.2 -> "
        "55.6, DRCD 89.3 -> 93.8), 0: 72.2 % with the first citation at gold only 59.1 %."))
    figure_factor: float = Field(1.5, ge=1, description=(
        "RAG: a unit holding a figure weighs this much (times the row weight) when the "
        "question asks a quantity. Source: a32f243 (a new-user trial: term matching alone "
        "preferred an overview sentence naming the product); design, not swept."))
    changelog_weight: float = Field(0.2, ge=0, le=1, description=(
        "RAG: weight of a unit of a revision history (修改记录, Revision History …) unless "
        "the question asks about versions or changes. Source: 843026c (the CH583 "
        "'BLE接收灵敏度是多少' parts answered from the p.113 change log); design value."))
    revision_penalty: float = Field(1.0, ge=0, description=(
        "LoopAgent: ranking penalty of a revision-history chunk unless the question asks "
        "about versions or changes. Source: dbff370 (zhpdf:08 answered from the change log's "
        "'供电电压范围从 2.7 V ~ 3.6 V 改为 3.0 V ~ 3.6 V' on p.23, not the p.6 "
        "specification)."))
    number_bonus: float = Field(0.02, ge=0, description=(
        "LoopAgent: ranking bonus of a unit holding a figure when the question asks no "
        "quantity (a tie-break). Source: 3183b40; design."))


class OfflineTuning(_Frozen):
    """The LoopAgent's offline reading policy (``loop.policies.offline.OfflinePolicy``)."""

    max_reads: int = Field(6, ge=1, description=(
        "Chunks read before answering. Source: af1ab95; design (bounded by LoopConfig)."))
    per_turn: int = Field(3, ge=1, le=3, description=(
        "Reads proposed in one turn (the controller runs up to 3 calls a turn). Source: "
        "af1ab95."))
    term_search: bool = Field(True, description=(
        "Also search the key terms alone in the first turn. Source: af1ab95."))
    max_citations: int = Field(3, ge=1, description=(
        "Evidence units cited (distinct chunks) within `close` of the best. Source: 5cbc861 "
        "(dev: zh-pdf evidence hit 66.7 -> 73.3 %, unanswerable refused 12.5 -> 20 %, with "
        "the rank prior)."))
    close: float = Field(0.5, ge=0, le=1, description=(
        "Coverage below the best unit's at which another chunk's unit is still cited. "
        "Source: 5cbc861 (as max_citations)."))
    search_weight: float = Field(0.3, ge=0, description=(
        "Weight of a chunk's rank prior: search_weight / (1 + search_decay x rank), rank = the "
        "order the chunk was shown in. Source: 5cbc861 (as max_citations)."))
    search_decay: float = Field(0.5, ge=0, description=(
        "Decay of that rank prior. Source: 5cbc861; the RAG path's decay was 0.5 then "
        "(7cc6c0c lowered it there only)."))
    quantity_bonus: float = Field(0.2, ge=0, description=(
        "Ranking bonus of a unit holding a figure when the question asks a quantity (多少, "
        "how many). Source: 3183b40."))
    refine: bool = Field(True, description=(
        "Search once more after the first turn (relevance feedback). Source: dbff370, "
        "9cdbb73 (zhpdf:10: rank 17 -> 1)."))
    strong_margin: float = Field(0.15, ge=0, le=1, description=(
        "Answer when the best-ranked unit covers min_coverage or another covers min_coverage "
        "+ strong_margin. Source: dbff370; dev offline loop, full collection, no embedder: "
        "0.15 refuses 9 of 43 unanswerable at evidence hit 65.9 % (zh-pdf 83.3 %); 0 gives "
        "67.2 % (86.7 %) but refuses 1 of 43."))
    dense_weight: float = Field(0.3, ge=0, description=(
        "Weight of a unit's min-max scaled dense similarity on the answer turn (with an "
        "embedder). Source: 440bc78; dev offline loop: evidence hit 65.9 -> 66.5 %, "
        "answer-contains 42.5 -> 44.2 %, unanswerable refused 9 -> 10 of 43."))
    dense_units: int = Field(30, ge=1, description=(
        "Best units by key terms embedded on the answer turn. Source: 440bc78 (60, ~0.8 s per "
        "question on 2 cores); 60 -> 30 by helper-G once each unit is embedded under its "
        "chunk's headings (offline_rank.passage_text, 2.9x the characters: 60 units of the "
        "CH583 datasheet 350 -> 900 ms on a quiet core, 30 about half of that): 8 zh PDFs + 50 "
        "GitLab pages, auto, same parts at the gold place (67/75), zh-PDF dev evidence hit "
        "rag / loop / auto 23 / 28 / 28 of 30 and GitLab 129/143 with 60 and 30."))
    seed_first: bool = Field(True, description=(
        "The first reads are the RAG candidates holding a key term, in RAG's order. Source: "
        "30c19ae (issue 14: start from what RAG already found)."))
    spread_discount: float = Field(0.75, ge=0, le=1, description=(
        "Ranking weight of a key term on the answer turn x (1 - spread_discount x the share "
        "of chunks read holding it): the subject every chunk names (a product code, an "
        "organisation) no longer lifts a sentence naming it over the row holding the asked "
        "value. Source: helper-G, issue 16 (8 zh PDFs + 50 GitLab pages, auto: multi-part "
        "Chinese parts cited from another page, e.g. 'ESP32-PICO-D4 片上存储包括：' over "
        "'| Tstore | 存储温度 | -40 | 150 | °C |'); design value, not swept."))
    subject_share: float = Field(0.8, ge=0, le=1, description=(
        "Share of five or more candidates holding a question's code for it to name their "
        "document (the refine search leaves it out). Source: 9cdbb73 (zhpdf:10)."))


class FigureTuning(_Frozen):
    """The figure step: a computed or looked-up figure from statement rows
    (``corpus.derived``, used by ``rag.compose`` and ``loop.agent``)."""

    document_search_top_k: int = Field(8, ge=1, description=(
        "Keyword hits searched inside a document for a formula's missing line item. Source: "
        "9aadca9 (the income statement page of a FinanceBench dev filing came 5th for "
        "'operating income', after MD&A pages)."))
    above_chunks: int = Field(4, ge=0, description=(
        "Chunks read above a statement row for its period header. Source: 9aadca9 (a "
        "cash-flow statement of three page parts, FinanceBench dev filings)."))


class CrossLanguageTuning(_Frozen):
    """Cross-language terms (``gateway.conversation.crosslang``)."""

    own_language_share: float = Field(0.5, ge=0, le=1, description=(
        "In a mixed collection, no terms when a document of the question's own language holds "
        "more than this share of its words. Source: 81f1089, chosen seeing the English "
        "GitLab questions among the 8 zh PDFs (50-62 % of their words on a GitLab page) and "
        "the English zh-PDF questions (25-50 %)."))


class IngestTuning(_Frozen):
    """Ingest and the directory (``corpus._ingest_worker``, ``corpus.directory_build``)."""

    stream_chars: int = Field(2_000_000, ge=1, description=(
        "Above this many characters a document prepared in a worker is chunked as a stream. "
        "Source: c72994f (the 50 MB text file: 102 -> 116 CPU-s with every pass "
        "re-chunked)."))
    short_chunk_chars: int = Field(140, ge=0, description=(
        "A chunk this short (spaces collapsed) keeps its extractive directory entry and is "
        "not sent to the LLM: the summary bound. Source: 0c7e9c9 (139 of the 563 zh-PDF "
        "chunks)."))


class PdfTuning(_Frozen):
    """PDF structure (``corpus.parsers._pdf_page``)."""

    table_min_fill: float = Field(0.4, ge=0, le=1, description=(
        "A ruled grid is a table only when this share of its cells holds text. Source: "
        "98bc819, measured on FinanceBench (Pfizer's income statement gave a 4-column "
        "'table' whose first cell held all 30 row labels)."))
    table_max_lines_per_row: float = Field(2.5, gt=0, description=(
        "... and it has at most this many visual lines per row. Source: 98bc819 (Verizon's "
        "prose under rules gave 5-column rows with one filled cell)."))


class PickTuning(_Frozen):
    """The LoopAgent's pick step with a small LLM (``loop.policies.read_pick``)."""

    max_candidates: int = Field(5, ge=1, description=(
        "Lines shown to the model. Source: 79dcd5e; the offline ranking's top 5 held the "
        "gold page for 26 of 30 answerable zh-PDF questions (top 3: 25, top 8: 27)."))
    more_candidates: int = Field(8, ge=0, description=(
        "Lines of a second pick round (after the offline answer's line, shown again) when the "
        "model's first reply names no line holding its value: the next units of the offline "
        "ranking with its dense re-rank, none shown before; 0 = no second round. Source: "
        "issue 14, zh-PDF dev (e5 + BM25 collection of the 8 PDFs): of the answerable "
        "questions whose gold line was not among the first 5, the ranking held it at places "
        "6-15 for 2 (zhpdf:26 10th, zhpdf:41 15th); 8 lines keep a round near 500 prompt "
        "tokens."))
    max_value_chars: int = Field(30, ge=1, description=(
        "A copied value at most this long. Source: 0112e1e (zh-PDF run 2: 2 of 34 longer "
        "replies came back cut by max_tokens)."))


class Tuning(_Frozen):
    """All tuned constants, by the part of the product that reads them (frozen)."""

    evidence: EvidenceTuning = Field(default_factory=EvidenceTuning)
    offline: OfflineTuning = Field(default_factory=OfflineTuning)
    figure: FigureTuning = Field(default_factory=FigureTuning)
    cross_language: CrossLanguageTuning = Field(default_factory=CrossLanguageTuning)
    ingest: IngestTuning = Field(default_factory=IngestTuning)
    pdf: PdfTuning = Field(default_factory=PdfTuning)
    pick: PickTuning = Field(default_factory=PickTuning)


#: The values the product runs with.
TUNING = Tuning()


def tuning_record(tuning: Tuning = TUNING) -> dict[str, Any]:
    """The values as plain JSON data (``{"evidence": {"context_credit": 0.6, …}, …}``), as
    ``loopgate eval`` writes them into ``summary.json``."""
    return tuning.model_dump(mode="json")
