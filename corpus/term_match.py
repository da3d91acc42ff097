"""Exact matching of key terms in text: a code or number in a question never matches a longer
one (issue 17 item 7).

Key terms and texts are both in the tokenizer's normal form (``Tokenizer.normalize``: NFKC,
lower case, Simplified). A term without a digit (a Latin stem, a Chinese word) matches as a
substring, as before (``warranti`` ⊂ ``warranties``). A term holding a digit must stand alone:

- a code (``fw-301``, ``esp32-pico-d4``: letters and digits) is matched whatever separates its
  parts in the text (hyphens of every kind, soft hyphen, spaces, ``_ . /``, none; a run of
  letters and a run of digits are parts: ``af220`` matches ``af-220``), with no
  letter or digit right before it and, right after it, no letter or digit and no ``-``/``_``/``.``
  with another code part (``fw-3010``, ``fw-301a``, ``esp32-pico-d4-v3`` are other codes; a
  word may follow: ``esp32_pico_d4_datasheet.pdf`` names ``esp32-pico-d4``);
- a number, date or version (``301``, ``10``, ``2.3.1``, ``2024-01-01``) has no digit (nor
  digit + ``.``/``,``) on either side; letters may touch it (``v2.3.1``, ``8kw``).

:func:`foreign_code` says when a unit names another code of the same family than the
question's (``fw-3010`` for ``fw-301``): such a unit is no evidence for the question's code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from rapidfuzz.distance import DamerauLevenshtein

__all__ = ["code_terms", "flat_code", "foreign_code", "has_code_part", "holds_term", "is_code",
           "is_period", "one_edit_from"]

_DIGIT = re.compile(r"\d")
_LETTER = re.compile(r"[a-z]")
_SEP = r"[\s\-_./\u00ad\u2010-\u2015\u2212]*"
_SPLIT = re.compile(r"[\s\-_./\u00ad\u2010-\u2015\u2212]+")
_LETTERS_DIGITS = re.compile(r"\s+|(?<=[a-z])(?=\d)|(?<=\d)(?=[a-z])")
# code-like tokens of a normalised text: letters and digits joined by separators, or a letter
# run followed by digits (same shapes as the tokenizer's ``code`` rule)
_CODE_TOKEN = re.compile(
    r"(?<![a-z0-9])(?:[a-z0-9]+(?:[-_/][a-z0-9]+)+|[a-z]+\d[a-z0-9]*)(?![a-z0-9])"
)


def is_code(term: str) -> bool:
    """True for a product / part code: starts with a letter and holds a digit (``fw-301``,
    ``esp32``), or holds a separator, a letter and a digit (``3m-8000``). Numbers with units
    (``8kw``), versions and dates are no codes."""
    if not (_DIGIT.search(term) and _LETTER.search(term)):
        return False
    return term[0].isalpha() or bool(re.search(r"[-_/]", term))


_PERIOD = re.compile(
    r"^(?:fy|q[1-4]|h[12]|cy)?'?\d{2,4}$|^(?:fy|q[1-4]|h[12])$"  # fy2018, q2, 2023, fy
    r"|^\d{4}[-/.]\d{1,2}(?:[-/.]\d{1,2})?$"  # 2022-05, 2024-01-01
    # compound fiscal periods and the "f2019" typo of fy2019: fy2023q1, q1fy2023, 2023h1
    r"|^(?:fy|cy|f|y|q[1-4]|h[12])*(?:19|20)\d\d(?:q[1-4]|h[12])?$"
)
# a real code has a part mixing letters and digits (esp32, v3det, gpt-4o), a number part of
# two digits or more (fw-301, covid-19), or is one letter joined to a number (t-2, w-2, s-1:
# a model or a form); "top-3" and "5-hop" are words
_CODE_PART = re.compile(r"[a-z]\d|\d[a-z]|(?<![a-z0-9])\d{2,}|^[a-z][-_/]\d")


def has_code_part(term: str) -> bool:
    """True when a code-shaped term (:func:`is_code`) has a part that only an identifier has:
    letters and digits mixed (``esp32``, ``gpt-4o``), a number of two digits or more
    (``fw-301``, ``covid-19``), or it is one letter joined to a number (``t-2``, ``w-2``: the
    Thingamajig T-2 is no T-1 — a break-it trial got T-1's capacity at confidence 0.97 for
    the deleted T-2); ``top-3`` and ``5-hop`` have none (they are words)."""
    return _CODE_PART.search(term) is not None


def is_period(term: str) -> bool:
    """True for a fiscal period or date term (``fy2018``, ``q2``, ``h1``, ``2023``, ``fy``,
    ``2022-05``, ``fy2023q1``, ``f2019``): it says *when*, it names no document or product."""
    return _PERIOD.match(term) is not None


def code_terms(terms: Iterable[str]) -> tuple[str, ...]:
    """The codes among ``terms`` (:func:`is_code`), in order."""
    return tuple(t for t in terms if is_code(t))


@lru_cache(maxsize=8192)
def _pattern(term: str) -> re.Pattern[str]:
    if is_code(term):
        # written with or without separators, also between letters and digits: "af220" is
        # the AF-220 (a trial), "esp32-pico-d4" the ESP32PICOD4
        parts = [re.escape(p) for p in _LETTERS_DIGITS.split(_SPLIT.sub(" ", term))
                 if p.strip()]
        body = _SEP.join(parts)
        # not continued by a letter/digit, nor by a separator + another code part (one holding
        # a digit, or one or two characters: -v3, -a); a separator + a word may follow
        # (esp32_pico_d4_datasheet_cn.pdf names ESP32-PICO-D4)
        return re.compile(
            rf"(?<![a-z0-9]){body}(?![a-z0-9])"
            r"(?![-_.](?:[a-z]*[0-9]|[a-z0-9]{1,2}(?![a-z0-9])))"
        )
    body = re.escape(term)
    left = r"(?<![0-9])(?<![0-9][.,])" if term[0].isdigit() else ""
    right = r"(?![0-9])(?![.,][0-9])" if term[-1].isdigit() else ""
    return re.compile(left + body + right)


def holds_term(term: str, text: str) -> bool:
    """True when the normalised ``text`` holds the key ``term`` (rules in the module
    docstring). Both arguments in the tokenizer's normal form; ``False`` for an empty term."""
    if not term:
        return False
    if not _DIGIT.search(term):
        return term in text
    if is_code(term) or term in text:
        return _pattern(term).search(text) is not None
    return False


def flat_code(term: str) -> str | None:
    """``term`` without its separators (hyphens of every kind, soft hyphen, spaces, ``_ . /``)
    when it has one and is 6 or more characters long without them, holding a digit
    (``esp32-pico-d4`` → ``esp32picod4``); ``None`` otherwise. Such a code matches a text
    whatever separates its parts there (``corpus.evidence.TermMatcher.codes``)."""
    if not _SPLIT.search(term):
        return None
    flat = _SPLIT.sub("", term)
    return flat if len(flat) >= 6 and _DIGIT.search(flat) else None


def _family(code: str) -> tuple[str, str]:
    flat = _SPLIT.sub("", code)
    lead = re.match(r"[a-z]*", flat)
    return (lead.group() if lead else ""), flat


def foreign_code(text: str, codes: Sequence[str]) -> str | None:
    """A code of the same family as one of ``codes`` that ``text`` (normalised) holds while it
    holds none of ``codes`` (:func:`holds_term`); ``None`` otherwise, and always when ``codes``
    is empty. Same family, by separator-free forms: a longer code starting with the question's
    (``fw3010`` for ``fw301``), a shorter one the question's continues with a digit (``fw30``),
    or a sibling with the same leading letters, at least two (``fw305``, ``esp32s3`` for
    ``esp32picod4``). A shorter code the question's continues with letters (``esp32`` for
    ``esp32-pico-d4``: the chip the module is built on) is not foreign."""
    if not codes or any(holds_term(c, text) for c in codes):
        return None
    fams = [_family(c) for c in codes]
    for m in _CODE_TOKEN.finditer(text):
        tok = m.group()
        if not _DIGIT.search(tok):
            continue
        lead, flat = _family(tok)
        for qlead, qflat in fams:
            if flat == qflat:
                continue
            if flat.startswith(qflat):
                return tok
            if qflat.startswith(flat):
                if qflat[len(flat)].isdigit() and flat[-1].isdigit():
                    return tok
                continue
            if len(lead) >= 2 and lead == qlead:
                return tok
    return None


def one_edit_from(term: str, words: Iterable[str]) -> set[str]:
    """The ``words`` one edit from ``term`` (rapidfuzz Damerau-Levenshtein: an insertion, a
    deletion, a substitution or a transposition; ``term`` itself too): how a misspelt name is
    read (``rag.resolve`` issuer words, ``corpus.asked_names``)."""
    return {w for w in words if abs(len(w) - len(term)) <= 1
            and DamerauLevenshtein.distance(term, w, score_cutoff=1) <= 1}
