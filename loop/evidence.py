"""Evidence scoring: split chunks into sentences and table rows and score each by how much of the
question's key-term weight it covers (the offline policy's answer, and the controller's answer
from the evidence read so far when a budget ends the loop).

Pure functions, no I/O. A unit is always a verbatim substring of its chunk, so it can be quoted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from corpus.injection import clean_segments, in_injection
from corpus.statement_rows import parse_row, row_weight
from corpus.term_match import code_terms, foreign_code, holds_term
from corpus.tokenizer import asks_quantity, holds_figure
from corpus.types import Chunk

__all__ = [
    "Evidence",
    "TermMatcher",
    "asks_quantity",
    "asks_revision",
    "best_evidence",
    "is_revision_history",
    "split_units",
    "term_weight",
]

_SENT = re.compile(r"[^。！？；!?;\n]+(?:[。！？；!?;]|$)|[^\n]+", re.M)
_EN_SENT = re.compile(r"(?<=[a-z0-9\)][.!?])\s+(?=[A-Z])")
_CJK = re.compile(r"[\u3400-\u9fff]")
# separators inside a code (hyphens of every kind, the soft hyphen, spaces, _ . /)
_SEPARATORS = re.compile(r"[\s\-_./\u00ad\u2010-\u2015\u2212]+")
_DIGIT = re.compile(r"\d")
# share of a term's weight credited when it is not in the unit but in the chunk's title /
# section path / table header (CONTEXT) or elsewhere in the chunk text (CHUNK)
CONTEXT_CREDIT = 0.6
CHUNK_CREDIT = 0.35
# weight kept by a key term that no chunk seen in the loop contains (TermMatcher.known);
# measured on the development questions (offline loop): 0.5 → zh-pdf evidence hit 73.3 %, dev
# 64.3 %, unanswerable refused 20 %; 0.25 → 80.0 %, 64.7 %, 15 %; 0 → 86.7 %, 66.1 %, 10 %
UNKNOWN_TERM_FACTOR = 0.25
# share of a compound Chinese key term's weight credited, per character its sub-words cover,
# when the compound itself is not in the text: the question's 申请专利 against the document's
# 专利申请权 (both cut by jieba's search mode into 申请 + 专利, as BM25 indexes them)
PART_CREDIT = 0.75


# a document's own change log: it restates old and new values of the parameters the body
# specifies ("供电电压范围从 2.7 V ~ 3.6 V 改为 3.0 V ~ 3.6 V"), a look-alike of the real answer
_REVISION_SECTION = re.compile(
    r"^\s*(?:第\s*\d+\s*章\s*|\d+(?:\.\d+)*\.?\s+|appendix\s+\w+[:.]?\s*)?(?:修订历史|修订记录|修改记录|修改历史|版本历史|版本记录|更新记录|更新历史|变更记录|变更历史"
    r"|文档历史|文档修订|(?:document\s+)?revision\s+history|change\s*log|document\s+history"
    r"|version\s+history|record\s+of\s+(?:changes|revisions)|amendment\s+history)\s*$",
    re.I,
)
_REVISION_WORDS = re.compile(
    r"版本|修订|修改|变更|更新|改为|改成|revis|version|chang|amend|updat", re.I
)


def is_revision_history(chunk: Chunk) -> bool:
    """True when ``chunk`` sits under a revision-history heading (修订历史, 修改记录,
    Revision History, Change Log …) in its section path."""
    return any(_REVISION_SECTION.match(h) for h in chunk.section_path)


def asks_revision(question: str) -> bool:
    """True when the question is about versions or changes (版本, 修改, revision …), so a
    revision history is the place to read."""
    return bool(_REVISION_WORDS.search(question))


@dataclass(frozen=True, slots=True)
class Evidence:
    """One candidate evidence unit: ``text`` (verbatim in ``chunk``), ``coverage`` 0..1 of the
    key-term weight, ``matched`` terms, ``rank`` of its chunk in the input, ``score`` the
    ranking score (coverage + the bonuses of :func:`best_evidence`)."""

    chunk: Chunk
    text: str
    coverage: float
    matched: tuple[str, ...]
    rank: int
    score: float = 0.0


def term_weight(term: str) -> float:
    """Weight of a key term: CJK characters count 2, digits 2, others 1, capped at 8."""
    w = sum(2 if (_CJK.match(ch) or ch.isdigit()) else 1 for ch in term)
    return float(min(8, max(1, w)))


def _join_lines(lines: list[str]) -> str:
    """Join a paragraph's lines: no space where either side is CJK (PDF line breaks inside
    Chinese sentences), one space otherwise — equal to the chunk text under the citation
    check's whitespace normal form (``corpus.citations``)."""
    out = ""
    for ln in lines:
        if out and not (_CJK.match(out[-1]) or _CJK.match(ln[0])):
            out += " "
        out += ln
    return out


_SENT_END = tuple('。！？.!?;；:：”"’)）】」')


_WRAPPED = 20  # characters: a shorter last line is a heading or label, not a wrapped line


def _paragraphs(text: str, headings: frozenset[str] = frozenset()) -> list[list[str]]:
    """Non-blank lines grouped by blank lines, except that a text paragraph whose last line is a
    wrapped line (at least 20 characters, not one of ``headings``) that does not end a sentence
    continues into the next text paragraph: a PDF text block can end mid-sentence
    (``…并按照规`` / ``定留存…``), and a unit must not start in the middle of a word."""
    out: list[list[str]] = []
    for para in re.split(r"\n\s*\n", text):
        lines = [ln.strip() for ln in para.split("\n") if ln.strip()]
        if not lines:
            continue
        prev = out[-1] if out else None
        if (
            prev
            and not _row_line(prev[-1])
            and not _row_line(lines[0])
            and len(prev[-1]) >= _WRAPPED
            and prev[-1] not in headings
            and lines[0] not in headings
            and not prev[-1].endswith(_SENT_END)
        ):
            prev.extend(lines)
        else:
            out.append(lines)
    return out


def _row_line(line: str) -> bool:
    """A table row: a Markdown ``| … |`` line, or a statement row written as a text line
    (``Net income $ 3,033 $ 10,073 $ 11,588``: a label and 2–8 period cells,
    :func:`corpus.statement_rows.parse_row`)."""
    return line.startswith("|") or parse_row(line) is not None


def split_units(chunk: Chunk, max_len: int = 300) -> list[str]:
    """Sentences and table rows of ``chunk``, ≥ 4 characters each. Paragraph lines are joined
    (a sentence may span PDF lines), except table rows: a Markdown row or a statement row written
    as a text line (:func:`_row_line`) is a unit of its own, never joined with the lines around
    it (a PDF statement page has no blank lines between its rows). Every unit is a quote the
    citation check verifies."""
    units: list[str] = []
    heads = frozenset((chunk.title, *chunk.section_path))  # cut at injection lines (corpus)
    for lines in (p for seg in clean_segments(chunk.text) for p in _paragraphs(seg, heads)):
        text_lines: list[str] = []
        for ln in [*lines, ""]:
            if not ln or _row_line(ln):
                if text_lines:
                    joined = _join_lines(text_lines)
                    for m in _SENT.finditer(joined):
                        for piece in _EN_SENT.split(m.group(0)):
                            piece = piece.strip()
                            if len(piece) >= 4:
                                units.append(piece[:max_len])
                    text_lines = []
                if ln and not set(ln) <= set("|-: "):
                    units.append(ln)
            else:
                text_lines.append(ln)
    return units


class TermMatcher:
    """Which of a question's key terms a text holds, with their weights.

    Key terms come from ``corpus.tokenizer.Tokenizer.key_terms`` (normalised: NFKC, lower case,
    Simplified, English stemmed), so a text is compared through the same tokenizer: a term
    matches when it is one of ``tokenizer.terms(text)`` or a substring of
    ``tokenizer.normalize(text)``. Without a tokenizer, lower-cased substring matching.
    Results are cached per text (one matcher per question).
    """

    def __init__(self, terms: Sequence[str], tokenizer: Any = None) -> None:
        self.terms = [t for t in dict.fromkeys(terms) if t.strip()]
        self.weights = [term_weight(t) for t in self.terms]
        self.total = sum(self.weights) or 1.0
        self._norm = getattr(tokenizer, "normalize", None) or str.lower
        self._analyse = getattr(tokenizer, "terms", None)
        self._cache: dict[str, tuple[str, ...]] = {}
        self._credit_cache: dict[str, dict[str, float]] = {}
        # codes written with separators → without them: the text may write ESP32-PICO-D4 with
        # soft hyphens (a PDF title), spaces (a file name) or none
        self._codes = {t: flat for t in self.terms
                       if _SEPARATORS.search(t) and len(flat := _SEPARATORS.sub("", t)) >= 6
                       and _DIGIT.search(flat)}
        # compound Chinese terms → their search-mode sub-words (申请专利 → 申请, 专利)
        self.parts: dict[str, tuple[str, ...]] = {}
        if self._analyse is not None:
            for t in self.terms:
                if len(t) >= 3 and all(_CJK.match(ch) for ch in t):
                    sub = tuple(p for p in self._analyse(t) if p != t and p in t)
                    if sub:
                        self.parts[t] = sub

    def known(self, texts: Sequence[str], factor: float = UNKNOWN_TERM_FACTOR) -> TermMatcher:
        """The same terms, with the weight of each term that occurs in none of ``texts`` (the
        chunks the loop has seen) multiplied by ``factor``: a word the corpus never uses (a
        colloquial word of a paraphrased question) is weak evidence either way, but a specific
        term no chunk holds still lowers coverage (an unanswerable question). ``self`` when
        every term or no term occurs."""
        hit = {t for x in texts for t in self.credits(x)}
        if not hit or len(hit) == len(self.terms):
            return self
        sub = TermMatcher(self.terms)
        sub.weights = [
            w if t in hit else w * factor for t, w in zip(self.terms, self.weights, strict=True)
        ]
        sub.total = sum(sub.weights) or 1.0
        sub._norm, sub._analyse, sub._cache = self._norm, self._analyse, self._cache
        sub._credit_cache, sub.parts, sub._codes = self._credit_cache, self.parts, self._codes
        return sub

    @property
    def codes(self) -> tuple[str, ...]:
        """Key terms that are codes written with separators and holding a digit
        (``esp32-pico-d4``, ``gb/t-2423.1``): they match a text whatever separates their
        parts there (soft hyphens, spaces, none)."""
        return tuple(self._codes)

    def matched(self, text: str) -> tuple[str, ...]:
        """Key terms present in ``text`` (a code, :attr:`codes`, also with other separators;
        never inside a longer code or number: ``fw-301`` is not in ``fw-3010``)."""
        got = self._cache.get(text)
        if got is None:
            low = self._norm(text)
            toks = set(self._analyse(text)) if self._analyse else set()
            # exact: a code or number never matches a longer one (corpus.term_match)
            got = tuple(t for t in self.terms if t in toks or holds_term(t, low))
            if len(self._cache) < 50_000:
                self._cache[text] = got
        return got

    def credits(self, text: str) -> dict[str, float]:
        """Key terms ``text`` holds, each with the share of its weight credited: 1.0 when the
        term is there; for a compound Chinese term that is not, ``PART_CREDIT`` × the share of
        its characters the sub-words present in ``text`` cover (0 → left out)."""
        got = self._credit_cache.get(text)
        if got is not None:
            return got
        got = dict.fromkeys(self.matched(text), 1.0)
        if self.parts and len(got) < len(self.terms):
            low = self._norm(text)
            for t, sub in self.parts.items():
                if t in got:
                    continue
                covered = [False] * len(t)
                for p in sub:
                    if p in low:
                        i = t.find(p)
                        covered[i : i + len(p)] = [True] * len(p)
                share = sum(covered) / len(t)
                if share >= 0.5:
                    got[t] = PART_CREDIT * share
        if len(self._credit_cache) < 50_000:
            self._credit_cache[text] = got
        return got

    def coverage(self, text: str) -> float:
        """Share (0..1) of the key-term weight ``text`` holds (:meth:`credits`)."""
        cr = self.credits(text)
        got = sum(w * cr.get(t, 0.0) for t, w in zip(self.terms, self.weights, strict=True))
        return got / self.total


def best_evidence(
    chunks: Sequence[Chunk],
    matcher: TermMatcher,
    limit: int = 5,
    bonus: Mapping[str, float] | None = None,
    number_bonus: float = 0.02,
    figure_rows: bool = False,
) -> list[Evidence]:
    """Units of ``chunks`` ranked by key-term coverage (ties: earlier chunk, shorter unit).

    A term not in the unit but in the chunk's title / section path / path / table header counts
    ``CONTEXT_CREDIT`` of its weight (for a statement row written as a text line, the chunk text
    above it is its header), elsewhere in the chunk ``CHUNK_CREDIT``.
    ``number_bonus`` is added for units holding a digit (larger for questions asking for a
    quantity, see :func:`asks_quantity`). ``figure_rows`` (a question asking for a figure): the
    coverage part of the ranking score of a statement row holding a figure is multiplied by
    :func:`corpus.statement_rows.row_weight` (1 + label cover), as the RAG path's extractive
    answer weighs it (``rag.extractive``). ``bonus`` (by chunk id) is added to the ranking
    score only (e.g. the chunk's normalised search score, which carries the corpus IDF that
    key-term coverage lacks).
    A unit that names another code of the family of a code of the question and not the
    question's own (``fw-3010`` for ``fw-301``, :func:`corpus.term_match.foreign_code`) is left
    out, and so is one addressing the reader as a model, or cut from such a
    line (:func:`corpus.injection.in_injection`).
    :returns: at most ``limit`` evidence units with at least one term in the unit itself.
    """
    if not matcher.terms:
        return []
    codes = code_terms(matcher.terms)
    out: list[tuple[float, int, int, Evidence]] = []
    for rank, chunk in enumerate(chunks):
        ctx = matcher.credits(
            " ".join((chunk.title, *chunk.section_path, chunk.path, chunk.table_header()))
        )
        body = matcher.credits(chunk.text)
        for unit in split_units(chunk):
            own = matcher.credits(unit)
            matched = {t for t, c in own.items() if c >= 1.0}
            if (not own or (codes and foreign_code(matcher._norm(unit), codes))
                    or in_injection(chunk.text, unit)):
                continue  # another code of the family, or an order to a model (corpus.injection)
            # a statement row is read under the lines above it (company, statement, unit,
            # periods), as a Markdown row under its header row: they are its context
            head = (matcher.credits(chunk.text[:max(0, chunk.text.find(unit))])
                    if not unit.startswith("|") and parse_row(unit) is not None else ctx)
            got = sum(
                w
                * max(
                    own.get(t, 0.0),
                    CONTEXT_CREDIT * max(ctx.get(t, 0.0), head.get(t, 0.0)),
                    CHUNK_CREDIT * body.get(t, 0.0),
                )
                for t, w in zip(matcher.terms, matcher.weights, strict=True)
            )
            cov = got / matcher.total
            figure = bool(_DIGIT.search(unit)) and holds_figure(matcher._norm(unit), matched)
            weight = row_weight(unit, matcher.terms, matcher._norm) if figure_rows and figure \
                else 1.0
            extra = (number_bonus if figure else 0.0) + (bonus or {}).get(chunk.chunk_id, 0.0)
            score = cov * weight + extra
            ev = Evidence(chunk, unit, round(cov, 4), tuple(sorted(matched)), rank, score)
            out.append((-score, rank, len(unit), ev))
    out.sort(key=lambda x: x[:3])
    return [e for *_, e in out[:limit]]
