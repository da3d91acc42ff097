"""Which of a question's key terms a text holds, with their weights (:class:`TermMatcher`).

Two weightings (:data:`Weighting`), one per reader, each measured with its path's scorer:
``"chars"`` (the LoopAgent: CJK characters and digits count 2, other characters 1, capped at 8,
:func:`term_weight`) and ``"digits"`` (the RAG path's extractive answer: a term holding a digit
2, any other 1).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any, Literal

from corpus.evidence.bounds import Bound, bound_direction, states_bound
from corpus.evidence.recognise import DIGIT, flat_code
from corpus.evidence.units import CJK, UnitStyle, through_next
from corpus.labels import Label, label_term, names_item
from corpus.term_match import holds_term
from corpus.tuning import TUNING
from corpus.types import Chunk

__all__ = ["TermMatcher", "Weighting", "nfkc_lower", "term_weight"]

Weighting = Literal["chars", "digits"]
_CACHE_MAX = 50_000  # texts remembered per matcher (one matcher per question)
_SECTION_NUMBER = re.compile(r"^\s*\d+(?:\.\d+)*\.?\s+")  # "2.2 ", "3. " opening a heading


def nfkc_lower(text: str) -> str:
    """NFKC, then lower case: the key terms' form without a tokenizer."""
    return unicodedata.normalize("NFKC", text).lower()


def term_weight(term: str, weighting: Weighting = "chars") -> float:
    """Weight of a key term. ``"chars"``: CJK characters count 2, digits 2, others 1, capped at
    8 (1..8). ``"digits"``: 2.0 when the term holds a digit (numbers and codes) or is a
    numbered label in Chinese numerals (第二十二条: ``corpus.labels``), else 1.0."""
    if weighting == "digits":
        # a numbered label in Chinese numerals (第二十二条) is a number as much as 第22条
        return 2.0 if DIGIT.search(term) or label_term(term) is not None else 1.0
    w = sum(2 if (CJK.match(ch) or ch.isdigit()) else 1 for ch in term)
    return float(min(8, max(1, w)))


_NEGATED = ("non-", "non ", "non\u2011")  # "non-operating", "non current": the negated form


def only_negated(term: str, text: str) -> bool:
    """True when every place ``text`` (normalised: lower case) writes a word starting with the
    alphabetic key term ``term`` is its negated compound ("non-operating" for ``oper``): a
    question asking "total operating income" does not find its "operating" in "Total
    non-operating income (expense)" (a new-user trial got that row for Amazon's 2019
    operating income: it held all three words, the Operating income row two). ``False`` when
    ``term`` holds anything but letters or is not written at a word start (a stem matched
    through the tokenizer's analysis)."""
    if not term.isalpha():
        return False
    starts = [m.start() for m in re.finditer(r"(?<![^\W\d_])" + re.escape(term), text)]
    return bool(starts) and all(text[max(0, i - 4):i] in _NEGATED for i in starts)


class TermMatcher:
    """Which of a question's key terms a text holds, with their weights.

    Key terms come from ``corpus.tokenizer.Tokenizer.key_terms`` (normalised: NFKC, lower case,
    Simplified, English stemmed), so a text is compared through the same tokenizer: a term
    matches when it is one of ``tokenizer.terms(text)`` or held by
    ``tokenizer.normalize(text)`` (``corpus.term_match.holds_term``: a code or number never
    inside a longer one). Without a tokenizer, ``normalize`` (default: lower case) and
    ``holds_term`` alone. Results are cached per text (one matcher per question).

    :param terms: key terms (duplicates and blanks dropped, order kept).
    :param tokenizer: ``corpus.tokenizer.Tokenizer`` or ``None``.
    :param normalize: the text normaliser when there is no tokenizer.
    :param weighting: :data:`Weighting` (module docstring).

    Usage example::

        m = TermMatcher(tok.key_terms("ESP32-PICO-D4 的工作电压是多少"), tok)
        m.coverage("| 工作电压 | 3.0 V ~ 3.6 V |")  # share 0..1 of the key-term weight
    """

    def __init__(self, terms: Sequence[str], tokenizer: Any = None, *,
                 normalize: Callable[[str], str] | None = None,
                 weighting: Weighting = "chars") -> None:
        self.terms = [t for t in dict.fromkeys(terms) if t.strip()]
        self.weights = [term_weight(t, weighting) for t in self.terms]
        self.total = sum(self.weights) or 1.0
        self.normalize: Callable[[str], str] = (
            getattr(tokenizer, "normalize", None) or normalize or str.lower)
        self._analyse = getattr(tokenizer, "terms", None)
        self._plain = [(t, not DIGIT.search(t)) for t in self.terms]
        # a question that does not say "non" asks X, not non-X (only_negated)
        self._negatable = "non" not in self.terms
        self._cache: dict[str, tuple[tuple[str, ...], frozenset[str]]] = {}
        self._credit_cache: dict[str, dict[str, float]] = {}
        # codes written with separators → without them: the text may write ESP32-PICO-D4 with
        # soft hyphens (a PDF title), spaces (a file name) or none
        self._codes = {t: flat for t in self.terms if (flat := flat_code(t)) is not None}
        # a term asking an extreme (最长, minimum) → the bound a text states instead
        # (不得超过, at least: corpus.evidence.bounds)
        self.bounds: dict[str, Bound] = {
            t: d for t in self.terms if (d := bound_direction(t)) is not None}
        # compound Chinese terms → their search-mode sub-words (申请专利 → 申请, 专利)
        self.parts: dict[str, tuple[str, ...]] = {}
        if self._analyse is not None:
            for t in self.terms:
                if len(t) >= 3 and all(CJK.match(ch) for ch in t):
                    sub = tuple(p for p in self._analyse(t) if p != t and p in t)
                    if sub:
                        self.parts[t] = sub

    def known(self, texts: Sequence[str],
              factor: float = TUNING.evidence.unknown_term_factor,
              label: Label | None = None) -> TermMatcher:
        """The same terms, with the weight of each term that occurs in none of ``texts`` (the
        chunks the loop has seen) multiplied by ``factor``: a word the corpus never uses (a
        colloquial word of a paraphrased question) is weak evidence either way, but a specific
        term no chunk holds still lowers coverage (an unanswerable question). ``self`` when
        every term or no term occurs. A term of ``label`` (the numbered item the question
        asks, ``corpus.labels.asked_item``: the "21" of 第21条) is held by a text naming that
        item in either form (第二十一条: a new-user trial's "第21条规定了什么？" weighed "21" as
        unknown, and 第二十五条's sentence citing the article outscored the article)."""
        hit = {t for x in texts for t in self.credits(x)}
        # the terms of ``label`` (the item the question asks: 第21条 → "21")
        asked = self.credits(label.text) if label is not None else {}
        for t in self.terms:  # 第23条 is held where 第二十三条 is written
            lb = label_term(t) or (label if t in asked else None)
            if t not in hit and lb is not None and any(names_item(x, lb) for x in texts):
                hit.add(t)
        if not hit or len(hit) == len(self.terms):
            return self
        sub = TermMatcher(self.terms)
        sub.weights = [
            w if t in hit else w * factor for t, w in zip(self.terms, self.weights, strict=True)
        ]
        sub.total = sum(sub.weights) or 1.0
        sub.normalize, sub._analyse, sub._cache = self.normalize, self._analyse, self._cache
        sub._credit_cache, sub.parts, sub._codes = self._credit_cache, self.parts, self._codes
        sub.bounds = self.bounds
        return sub

    @property
    def codes(self) -> tuple[str, ...]:
        """Key terms that are codes written with separators and holding a digit
        (``esp32-pico-d4``, ``gb/t-2423.1``): they match a text whatever separates their
        parts there (soft hyphens, spaces, none)."""
        return tuple(self._codes)

    def matched(self, text: str) -> tuple[str, ...]:
        """Key terms present in ``text`` (a code, :attr:`codes`, also with other separators;
        never inside a longer code or number: ``fw-301`` is not in ``fw-3010``), none written
        only in its negated compound (:meth:`negated`)."""
        return self._match(text)[0]

    def negated(self, text: str) -> frozenset[str]:
        """The key terms ``text`` writes only in their negated compound (:func:`only_negated`:
        "non-operating" for ``oper``), when the question does not say "non": such a unit
        states the opposite of the term, so its context (heading, table header, chunk) does not
        lend it that term either ("Consolidated Statements of Operations" over "Total
        non-operating income")."""
        return self._match(text)[1]

    def _match(self, text: str) -> tuple[tuple[str, ...], frozenset[str]]:
        """``(matched, negated)`` of ``text``, read once and cached."""
        got = self._cache.get(text)
        if got is None:
            low = self.normalize(text)
            toks = set(self._analyse(text)) if self._analyse else set()
            # exact: a code or number never matches a longer one (corpus.term_match); a term
            # without a digit is a substring test (what holds_term does for it)
            held = tuple(t for t, plain in self._plain if t in toks
                         or (t in low if plain else holds_term(t, low)))
            neg = (frozenset(t for t in held if only_negated(t, low)) if self._negatable
                   else frozenset())
            got = tuple(t for t in held if t not in neg), neg
            if len(self._cache) < _CACHE_MAX:
                self._cache[text] = got
        return got

    def credits(self, text: str) -> dict[str, float]:
        """Key terms ``text`` holds, each with the share of its weight credited: 1.0 when the
        term is there; for a compound Chinese term that is not,
        ``TUNING.evidence.part_credit`` × the share of its characters the sub-words present in
        ``text`` cover (below half → left out); for a term asking an extreme (最长, minimum)
        that is not, ``TUNING.evidence.bound_credit`` when ``text`` states a bound of its
        direction (不得超过, at least: :mod:`corpus.evidence.bounds`)."""
        got = self._credit_cache.get(text)
        if got is not None:
            return got
        got = dict.fromkeys(self.matched(text), 1.0)
        if self.bounds and len(got) < len(self.terms):
            low = self.normalize(text)
            for t, direction in self.bounds.items():
                if t not in got and states_bound(low, direction):
                    got[t] = TUNING.evidence.bound_credit
        if self.parts and len(got) < len(self.terms):
            low = self.normalize(text)
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
                    got[t] = TUNING.evidence.part_credit * share
        if len(self._credit_cache) < _CACHE_MAX:
            self._credit_cache[text] = got
        return got

    def coverage(self, text: str) -> float:
        """Share (0..1) of the key-term weight ``text`` holds (:meth:`credits`)."""
        cr = self.credits(text)
        got = sum(w * cr.get(t, 0.0) for t, w in zip(self.terms, self.weights, strict=True))
        return got / self.total

    def echoes(self, text: str) -> bool:
        """``text`` says nothing the question does not: with a tokenizer, every term of it (a
        section number opening it aside) is one of the key terms, a part of a code among them
        (``db32`` of ``db32/t``) or a Chinese word inside one. ``False`` without a tokenizer,
        for a text with no term and for a table row (``|``: its cells are values). Such a
        line answers nothing (MMLongBench dev: "Button functions during a workout" for "How
        many distinct button functions are there during a workout?"; a survey's name for a
        question quoting it; "DB32/T 1580—2019" for "DB32/T 1580—2019是哪天发布…")."""
        if self._analyse is None or text.lstrip().startswith("|"):
            return False
        own = set(self._analyse(_SECTION_NUMBER.sub("", text, count=1)))
        if not own:
            return False
        terms = set(self.terms)
        joined = [k for k in terms if not k.isalnum()]  # codes written with separators
        return all(t in terms or any(t in k for k in joined)
                   or (all(CJK.match(ch) for ch in t) and any(t in k for k in terms))
                   for t in own)

    def past_echo(self, chunk: Chunk, unit: str, style: UnitStyle) -> str:
        """``unit`` of ``chunk``, or — when it :meth:`echoes` the question and the unit after
        it (:func:`corpus.evidence.units.split_units` in ``style``) is written as one run with
        it — the verbatim passage through that next unit
        (:func:`corpus.evidence.units.through_next`); after a table cell ("Press") the next
        unit may be far from it, and the cell stays alone. Both readers quote an echoing best
        unit so (``rag.extractive``, ``loop.policies.offline_rank.past_heading``)."""
        if not self.echoes(unit):
            return unit
        got = through_next(chunk, unit, style)
        return got if got.startswith(unit) else unit

