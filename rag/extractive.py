"""Extractive answer without an LLM: the best evidence sentences or table rows of the top
chunks, each with a verified verbatim quote and its page and lines.

A unit is a sentence (split after ``. ! ? 。 ！ ？ ；`` or at a line break) or, in a table chunk,
one body row (its header row is kept in front when quoting would otherwise lose the column
names). Each unit is scored by the question's key terms it holds — numbers and codes weigh
double, every term once — times a rank prior ``1 / (1 + 0.25 * item_rank)``, lightly normalised by
length; the best few become evidence. A question naming a page ("page 3", "第3页") weighs units
of chunks on that page 3x, the page read by its printed label first
(:func:`corpus.page_labels.chunk_on_page`). Every quote goes through
``corpus.citations.make_citation`` (verbatim check + page/line mapping); a unit that does not
verify is dropped, never shown. A unit that addresses the reader as a model ("ignore previous
instructions", "SYSTEM: …", 忽略之前的指令), or is cut from such a line, is never evidence
(:func:`corpus.injection.in_injection`).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Sequence

from corpus.citations import display_quote
from corpus.injection import clean_segments, in_injection
from corpus.page_labels import chunk_on_page, page_refs
from corpus.presence import specific_terms
from corpus.statement_rows import asked_years, parse_row, period_header, read_cell, row_weight
from corpus.term_match import code_terms, foreign_code, holds_term
from corpus.tokenizer import asks_quantity, holds_figure
from corpus.types import Chunk, Citation
from rag.expand import QueryExpander
from rag.types import Evidence, Retrieval

__all__ = ["NOT_FOUND_TEXT", "answer_text", "display_text", "evidence_units", "extract_answer",
           "score_unit"]

NOT_FOUND_TEXT = "Not found: the documents retrieved do not answer this confidently."
# Sentence ends, blank lines, and line starts that open a list item, heading or clause; a single
# line break (a PDF's hard wrap) stays inside the sentence.
_SENT = re.compile(
    r"(?<=[.!?;])\s+|(?<=[。！？；])\s*|\n\s*\n\s*"
    r"|\n(?=\s*(?:[-*•#]|\d{1,3}[.)、]\s|第[一二三四五六七八九十百零〇\d]{1,6}[条章节款]))"
)
_HEADING = re.compile(r"(?m)^[ \t]*#{1,6}[ \t][^\n]*$")
_LINE = re.compile(r"(?m)^[^\n]*$")
_OPEN_END = re.compile(r"(?:[，、：,:（(]|[^\W\d_])$")
_ITEM_START = re.compile(
    r"\s*(?:[-*•#|]|\d{1,3}[.)、]\s|第[一二三四五六七八九十百零〇\d]{1,6}[条章节款])"
)
_TABLE_SEP = re.compile(r"^\|?\s*:?-{2,}")
_DIGIT = re.compile(r"\d")
_MIN_UNIT = 12
_MAX_UNIT = 600

CitationMaker = Callable[[Chunk, str], Citation | None]


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def evidence_units(chunk: Chunk) -> list[str]:
    """Candidate quotes of a chunk, verbatim substrings of ``chunk.text``: sentences, or table
    body rows (Markdown ``| … |`` lines other than the header and the ``---`` separator)."""
    units: list[str] = []
    heads = (chunk.title, *chunk.section_path)
    lines = chunk.text.splitlines()
    if chunk.kind == "table" or sum(1 for ln in lines if ln.lstrip().startswith("|")) >= 3:
        seen_header = False
        for ln in lines:
            s = ln.strip()
            if not s.startswith("|"):
                units.extend(_sentences(s, heads))
                continue
            if _TABLE_SEP.match(s):
                continue
            if not seen_header:
                seen_header = True
                continue
            if len(s) >= 5:
                units.append(s)
        return units
    # sentences never run across an injection line (corpus.injection) into the text beside it
    return [u for seg in clean_segments(chunk.text) for u in _sentences(seg, heads)]


def _sentences(text: str, headings: Sequence[str] = ()) -> list[str]:
    """Sentences of ``text`` as verbatim substrings (line breaks inside kept). Markdown heading
    lines are boundaries, never evidence. A piece that ends mid-sentence (after ``，、：,:`` or
    a word, as a PDF line break between paragraphs leaves it) joins the next one; a run-on
    longer than ``_MAX_UNIT`` falls back to its lines."""
    heads = {h.strip() for h in headings if h.strip()}
    bounds = [(m.start(), m.end()) for m in _HEADING.finditer(text)]
    if heads:  # parsers keep heading text without its ``#``: match the chunk's section path
        bounds += [
            (m.start(), m.end()) for m in _LINE.finditer(text) if m.group(0).strip() in heads
        ]
    out: list[str] = []
    pos = 0
    for a, b in sorted(bounds):
        if a >= pos:
            out.extend(_segment_sentences(text[pos:a]))
            pos = b
    out.extend(_segment_sentences(text[pos:]))
    return out


def _segment_sentences(text: str) -> list[str]:
    spans: list[tuple[int, int]] = []
    pos = 0
    for m in _SENT.finditer(text):
        if m.start() > pos:
            spans.append((pos, m.start()))
        pos = m.end()
    if pos < len(text):
        spans.append((pos, len(text)))
    merged: list[tuple[int, int]] = []
    for a, b in spans:
        if (
            merged
            and _OPEN_END.search(text[merged[-1][0] : merged[-1][1]].rstrip())
            and not (_ITEM_START.match(text[a:b]))
        ):
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    out = []
    for a, b in merged:
        s = text[a:b].strip()
        pieces = [ln.strip() for ln in s.splitlines()] if len(s) > _MAX_UNIT else [s]
        for p in pieces:
            if len(p) >= _MIN_UNIT or (p and not p.isascii() and len(p) >= 6):
                out.append(p[:_MAX_UNIT])
    return out


def display_text(quote: str) -> str:
    """A quote on one line, as :func:`corpus.citations.display_quote` gives it (the form
    ``make_citation`` already returns): line breaks next to CJK characters dropped, other
    whitespace runs one space."""
    return display_quote(quote)


CONTEXT_CREDIT = 0.6  # share of a term's weight when it is only in the unit's context
#: weight of a unit in a document's revision history (修改记录, 修订历史, Revision History,
#: Change Log) unless the question asks about versions or changes: a row "V1.0 | 2020.12.22 |
#: 微调蓝牙接收灵敏度" names the asked quantity and holds figures (a date, a version), but not
#: the value, which the specification table states. Design value (a strong demotion, not a ban).
CHANGELOG_WEIGHT = 0.2
_CHANGELOG = re.compile(r"修改记录|修订历史|修订记录|版本历史|更新记录|变更记录|revision history|"
                        r"change ?log|document history|release notes", re.IGNORECASE)
_ASKS_HISTORY = re.compile(r"版本|修改|修订|变更|更新|改为|改成|version|revision|chang|histor|"
                           r"release|updat", re.IGNORECASE)
# rank prior of a unit: 1 / (1 + RANK_DECAY * rank of its retrieval item). 0.25: on the 504
# answerable dev questions (same retrievals, decay swept 0 / 0.25 / 0.5 / 1 / 2 / 4) evidence hit
# 71.4 % at 0.5 -> 73.8 % at 0.25, no dataset lower (FinanceBench 49.2 -> 55.6, DRCD 89.3 ->
# 93.8); 0 (rank ignored) 72.2 % with the first citation at gold only 59.1 %; 1.0 and above lower
RANK_DECAY = 0.25


def score_unit(
    unit: str, key_terms: Sequence[str], normalize: Callable[[str], str] | None = None,
    context: str = "",
) -> float:
    """Key-term evidence score of one unit (0 when it holds none of the terms); ``normalize``
    brings the unit to the key terms' form (default NFKC + lower case). A term missing from the
    unit but present in ``context`` (its chunk's title, section path and table header, already
    normalised) counts :data:`CONTEXT_CREDIT` of its weight: a table row ``| 工作电压 | 3.0 V ~
    3.6 V |`` names neither the product nor the table, its context does (the same rule as the
    LoopAgent's evidence scoring, ``loop.evidence``). Terms holding a digit match exactly
    (:func:`corpus.term_match.holds_term`: ``fw-301`` is not in ``fw-3010``)."""
    text = (normalize or _norm)(unit)
    score = 0.0
    own = False
    for term in key_terms:
        if not term:
            continue
        weight = 2.0 if _DIGIT.search(term) else 1.0
        if holds_term(term, text):  # exact: fw-301 is not in fw-3010
            score += weight
            own = True
        elif context and holds_term(term, context):
            score += CONTEXT_CREDIT * weight
    if not own:
        return 0.0
    return score / math.log2(8 + len(unit) / 40)


def _context(chunk: Chunk, normalize: Callable[[str], str]) -> str:
    return normalize(" ".join((chunk.title, *chunk.section_path, chunk.path,
                               chunk.table_header())))


def extract_answer(
    retrieval: Retrieval,
    key_terms: Sequence[str],
    make_citation: CitationMaker,
    *,
    max_evidence: int = 3,
    normalize: Callable[[str], str] | None = None,
) -> list[Evidence]:
    """Choose up to ``max_evidence`` verified evidence units from the retrieval's items.

    :param retrieval: the retrieval (items best first).
    :param key_terms: the question's key terms (normalised by the tokenizer).
    :param make_citation: ``corpus.citations.make_citation(chunk, quote) -> Citation | None``.
    :param normalize: text normaliser of the key terms' form (``Tokenizer.normalize``).
    :returns: evidence best first; empty when nothing verifiable was found. A statement row
        chosen as evidence (``corpus.statement_rows``) gets as its ``reading`` the cell under
        the first year the question names (``corpus.presence.specific_terms``) that heads one
        of its columns.
    """
    # multi-word field phrases the query was expanded with ("purchases of property, plant and
    # equipment" for "capital expenditure") count as terms a unit may hold (rag.expand)
    terms = sorted(
        {t for t in QueryExpander.terms_for_evidence(key_terms, retrieval.expansions) if t.strip()}
    )
    # a question asking for a figure ("工作电压范围是多少") is answered by a unit holding one:
    # such units weigh 1.5x (the answer figure is not among the key terms, so term matching
    # alone preferred an overview sentence naming the product; new-user trial); digits of the
    # question's own codes (ESP32-PICO-D4) are no figure
    figure = 1.5 if asks_quantity(retrieval.question) else 1.0
    codes = code_terms(terms)
    pages = page_refs(retrieval.question)  # "page 3": the printed label first (page_labels)
    asks_history = bool(_ASKS_HISTORY.search(retrieval.question))
    years = asked_years(specific_terms(key_terms, (normalize or _norm)(retrieval.question)))
    # (score, order, unit, chunk, the chunks merged before it in its item: a period header of a
    # statement row may sit there, read only for the few units kept)
    scored: list[tuple[float, int, str, Chunk, Sequence[Chunk]]] = []
    order = 0
    for rank, item in enumerate(retrieval.items):
        prior = 1.0 / (1.0 + RANK_DECAY * rank)
        for j, chunk in enumerate(item.chunks):
            ctx = _context(chunk, normalize or _norm)
            on_page = 3.0 if pages and any(chunk_on_page(chunk, p) for p in pages) else 1.0
            if not asks_history and _CHANGELOG.search(
                    " ".join((*chunk.section_path[-1:], chunk.text[:80]))):
                # the innermost heading or the chunk's opening: a document whose title or
                # first heading is its revision history (a datasheet's) is not demoted whole
                on_page *= CHANGELOG_WEIGHT
            for unit in evidence_units(chunk):
                order += 1
                s = score_unit(unit, terms, normalize, ctx) * prior * on_page
                if s <= 0:  # no key term: never kept, so the costlier checks below are skipped
                    continue
                if in_injection(chunk.text, unit) or (
                        codes and foreign_code((normalize or _norm)(unit), codes)):
                    continue  # an order to a model (corpus.injection), or another code of
                    # the question code's family: never the answer
                if (figure > 1.0 and _DIGIT.search(unit)
                        and holds_figure((normalize or _norm)(unit), terms)):
                    # the statement row whose label the question names (corpus.statement_rows)
                    s *= figure * row_weight(unit, terms, normalize or _norm)
                scored.append((s, order, unit, chunk, item.chunks[:j]))
    if not scored and retrieval.items:  # no key term anywhere: the top chunk's first sentence
        top = retrieval.items[0].chunk
        first = [u for u in evidence_units(top) if not in_injection(top.text, u)][:1]
        scored = [(1e-3, 0, first[0], top, ())] if first else []
    scored.sort(key=lambda t: (-t[0], t[1]))
    out: list[Evidence] = []
    seen: set[str] = set()
    for s, _, unit, chunk, before in scored:
        if unit in seen:
            continue
        seen.add(unit)
        cit = make_citation(chunk, unit)
        if cit is None:
            continue
        out.append(Evidence(text=unit, score=round(s, 4), citation=cit,
                            reading=_reading(unit, chunk, before, years)))
        if len(out) >= max_evidence:
            break
    return out


def answer_text(evidence: Evidence) -> str:
    """The answer shown for the best evidence unit: its verified quote, led by the asked
    period's cell when the unit is a statement row (``"Net income, 2019: $ 11,588 — Net income
    $ 3,033 $ 10,073 $ 11,588"``); every number in it is in the quoted row."""
    quote = evidence.citation.quote
    return f"{evidence.reading} — {quote}" if evidence.reading else quote


def _reading(unit: str, chunk: Chunk, before: Sequence[Chunk], years: Sequence[str]) -> str:
    """``"<label>, <year>: <cell>"`` when ``unit`` is a statement row with a period header above
    it (in its chunk, or in ``before``, the chunks merged before it) holding one of ``years``;
    ``""`` otherwise."""
    if not years:
        return ""
    row = parse_row(unit)
    if row is None:
        return ""
    at = chunk.text.find(unit)
    above = "\n".join([*(c.text for c in before), chunk.text[: max(at, 0)]])
    got = read_cell(row, period_header(above, len(row.cells)), years)
    return f"{row.label}, {got[0]}: {got[1].raw}" if got else ""
