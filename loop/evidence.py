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

from corpus.tokenizer import asks_quantity
from corpus.types import Chunk

__all__ = [
    "Evidence", "TermMatcher", "asks_quantity", "best_evidence", "split_units", "term_weight",
]

_SENT = re.compile(r"[^。！？；!?;\n]+(?:[。！？；!?;]|$)|[^\n]+", re.M)
_EN_SENT = re.compile(r"(?<=[a-z0-9\)][.!?])\s+(?=[A-Z])")
_CJK = re.compile(r"[\u3400-\u9fff]")
_NUM = re.compile(r"\d")
# share of a term's weight credited when it is not in the unit but in the chunk's title /
# section path / table header (CONTEXT) or elsewhere in the chunk text (CHUNK)
CONTEXT_CREDIT = 0.6
CHUNK_CREDIT = 0.35
# weight kept by a key term that no chunk seen in the loop contains (TermMatcher.known);
# measured on the development questions (offline loop): 0.5 → zh-pdf evidence hit 73.3 %, dev
# 64.3 %, unanswerable refused 20 %; 0.25 → 80.0 %, 64.7 %, 15 %; 0 → 86.7 %, 66.1 %, 10 %
UNKNOWN_TERM_FACTOR = 0.25


@dataclass(frozen=True, slots=True)
class Evidence:
    """One candidate evidence unit: ``text`` (verbatim in ``chunk``), ``coverage`` 0..1 of the
    key-term weight, ``matched`` terms."""

    chunk: Chunk
    text: str
    coverage: float
    matched: tuple[str, ...]
    rank: int


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


_SENT_END = tuple("。！？.!?;；:：”\"’)）】」")


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
        if (prev and not prev[-1].startswith("|") and not lines[0].startswith("|")
                and len(prev[-1]) >= _WRAPPED and prev[-1] not in headings
                and lines[0] not in headings and not prev[-1].endswith(_SENT_END)):
            prev.extend(lines)
        else:
            out.append(lines)
    return out


def split_units(chunk: Chunk, max_len: int = 300) -> list[str]:
    """Sentences and table rows of ``chunk``, ≥ 4 characters each. Paragraph lines are joined
    (a sentence may span PDF lines); every unit is a quote the citation check verifies."""
    units: list[str] = []
    for lines in _paragraphs(chunk.text, frozenset((chunk.title, *chunk.section_path))):
        text_lines: list[str] = []
        for ln in [*lines, ""]:
            if ln.startswith("|") or not ln:
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

    def known(self, texts: Sequence[str], factor: float = UNKNOWN_TERM_FACTOR) -> TermMatcher:
        """The same terms, with the weight of each term that occurs in none of ``texts`` (the
        chunks the loop has seen) multiplied by ``factor``: a word the corpus never uses (a
        colloquial word of a paraphrased question) is weak evidence either way, but a specific
        term no chunk holds still lowers coverage (an unanswerable question). ``self`` when
        every term or no term occurs."""
        hit = {t for x in texts for t in self.matched(x)}
        if not hit or len(hit) == len(self.terms):
            return self
        sub = TermMatcher(self.terms)
        sub.weights = [w if t in hit else w * factor for t, w in zip(self.terms, self.weights,
                                                                     strict=True)]
        sub.total = sum(sub.weights) or 1.0
        sub._norm, sub._analyse, sub._cache = self._norm, self._analyse, self._cache
        return sub

    def matched(self, text: str) -> tuple[str, ...]:
        """Key terms present in ``text``."""
        got = self._cache.get(text)
        if got is None:
            low = self._norm(text)
            toks = set(self._analyse(text)) if self._analyse else set()
            got = tuple(t for t in self.terms if t in toks or t in low)
            if len(self._cache) < 50_000:
                self._cache[text] = got
        return got

    def coverage(self, text: str) -> float:
        """Share (0..1) of the key-term weight ``text`` holds."""
        hit = set(self.matched(text))
        got = sum(w for t, w in zip(self.terms, self.weights, strict=True) if t in hit)
        return got / self.total


def best_evidence(chunks: Sequence[Chunk], matcher: TermMatcher, limit: int = 5,
                  bonus: Mapping[str, float] | None = None,
                  number_bonus: float = 0.02) -> list[Evidence]:
    """Units of ``chunks`` ranked by key-term coverage (ties: earlier chunk, shorter unit).

    A term not in the unit but in the chunk's title / section path / path / table header counts
    ``CONTEXT_CREDIT`` of its weight, elsewhere in the chunk ``CHUNK_CREDIT``.
    ``number_bonus`` is added for units holding a digit (larger for questions asking for a
    quantity, see :func:`asks_quantity`). ``bonus`` (by chunk id) is added to the ranking
    score only (e.g. the chunk's normalised search score, which carries the corpus IDF that
    key-term coverage lacks).
    :returns: at most ``limit`` evidence units with at least one term in the unit itself.
    """
    if not matcher.terms:
        return []
    out: list[tuple[float, int, int, Evidence]] = []
    for rank, chunk in enumerate(chunks):
        ctx = set(matcher.matched(" ".join((chunk.title, *chunk.section_path, chunk.path,
                                            chunk.table_header()))))
        body = set(matcher.matched(chunk.text))
        for unit in split_units(chunk):
            matched = set(matcher.matched(unit))
            if not matched:
                continue
            got = sum(w if t in matched else (w * CONTEXT_CREDIT if t in ctx else
                                              (w * CHUNK_CREDIT if t in body else 0.0))
                      for t, w in zip(matcher.terms, matcher.weights, strict=True))
            cov = got / matcher.total
            extra = ((number_bonus if _NUM.search(unit) else 0.0)
                     + (bonus or {}).get(chunk.chunk_id, 0.0))
            ev = Evidence(chunk, unit, round(cov, 4), tuple(sorted(matched)), rank)
            out.append((-(cov + extra), rank, len(unit), ev))
    out.sort(key=lambda x: x[:3])
    return [e for *_, e in out[:limit]]
