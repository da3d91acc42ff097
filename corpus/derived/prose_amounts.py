"""A change between two amounts asked of prose (both readers: ``rag.amount_change``, the
LoopAgent's ``loop.prose_change``): "By how much did PepsiCo increase its unsecured
five year revolving credit agreement on May 26, 2023?" (FinanceBench dev, gold "$400,000,000
increase") was answered by the sentence of the new agreement's $4,200,000,000 alone; the
$3,800,000,000 of the agreement it replaced stands in the sentence before it.

When the question asks "by how much did … <increase / decrease / raise / reduce / cut / …>
<thing>" (and pins no two years: ``rag.period_pair`` answers those), the best evidence unit's
chunk, with the retrieved (or read) chunks beside it, is read for money amounts each directly
followed by the thing's words (three quarters of its key terms or more, dates aside, in the 120
characters after the amount). With exactly two
different amounts, the one written after "new" (else the later one) is the new value; the
answer is the difference with both amounts, citing both units. Pure, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from corpus.evidence.units import split_units
from corpus.term_match import is_period
from corpus.types import Chunk, Citation

__all__ = ["amount_change", "asks_amount_change", "from_to_change"]

_ASKED = re.compile(
    r"\bby\s+how\s+much\s+(?:did|has|have|had|was|were|is|will|would)\b.*?"
    r"\b(increas|decreas|rais|reduc|expand|extend|cut|lower|grow|grew|ris|rose|fall|fell|drop)"
    r"\w*\s+(.+)$", re.I | re.S)
_UP = ("increas", "rais", "expand", "extend", "grow", "grew", "ris", "rose")
_AMOUNT = re.compile(r"(?<![\w.])(?:US)?\$\s?(\d[\d,]*(?:\.\d+)?)(?:\s+(million|billion))?",
                     re.I)
_MONEY = r"(?:US)?\$\s?\d[\d,]*(?:\.\d+)?(?:\s+(?:million|billion))?"
# "from $0.70 to $0.79 per share", "decreased from $198 million in fiscal 2016 to $39 million"
_FROM_TO = re.compile(rf"\bfrom\s+(?P<a>{_MONEY})(?:\s+[\w,.-]+){{0,5}}?\s+to\s+(?P<b>{_MONEY})",
                      re.I)
_TO_MORE = re.compile(rf"\bto\s+{_MONEY}", re.I)
_NEW = re.compile(r"\bnew\s+(?:\S+\s+){0,2}$", re.I)
_WINDOW = 120  # characters after an amount read for the thing's words
_COVER = 0.75  # share of the thing's key terms an amount's window must hold


def asks_amount_change(question: str) -> bool:
    """True when ``question`` asks "by how much did … increase / decrease / … <thing>"."""
    return _ASKED.search(question) is not None


def _amounts(units: Iterable[str], terms: set[str],
             key_terms: Callable[[str], Sequence[str]]) -> list[tuple[float, str, str, bool]]:
    """``(value, written amount, unit, after "new")`` of each amount followed by the thing."""
    out: list[tuple[float, str, str, bool]] = []
    for unit in units:
        for m in _AMOUNT.finditer(unit):
            held = terms & set(key_terms(unit[m.end(): m.end() + _WINDOW]))
            if len(held) < _COVER * len(terms):
                continue
            value = float(m.group(1).replace(",", ""))
            out.append((value, m.group(0), unit, bool(_NEW.search(unit[: m.start()]))))
    return out


def amount_change(question: str, best_chunk_id: str, chunks: Iterable[Chunk],
                  key_terms: Callable[[str], Sequence[str]],
                  make_citation: Callable[[Chunk, str], Citation | None]
                  ) -> tuple[str, list[Citation]] | None:
    """``("$400,000,000 increase: from $3,800,000,000 to $4,200,000,000 — <units>",
    citations)`` (module docstring), or ``None``: no such question, fewer than two key terms of
    the thing, not exactly two different amounts of it near the best unit, or a quote
    that does not verify.

    :param best_chunk_id: the chunk of the best evidence unit; ``chunks``: the retrieved (or
        read) chunks (that chunk and those next to it in its document are read).
    :param key_terms: ``Tokenizer.key_terms``; ``make_citation``: the quote verifier.
    """
    m = _ASKED.search(question)
    if m is None:
        return None
    chunks = list(chunks)
    terms = {t for t in key_terms(m.group(2)) if not re.search(r"\d", t) and not is_period(t)}
    chunk = next((c for c in chunks if c.chunk_id == best_chunk_id), None)
    if len(terms) < 2 or chunk is None:
        return None
    # the best unit's chunk and the retrieved chunks just before and after it in its document
    near = sorted({c.chunk_id: c for c in chunks if c.doc_id == chunk.doc_id
                   and abs(c.ordinal - chunk.ordinal) <= 1}.values(), key=lambda c: c.ordinal)
    found = [(*a, c) for c in near for a in _amounts(split_units(c, "quote"), terms, key_terms)]
    first: dict[float, tuple[float, str, str, bool, Chunk]] = {}
    for a in found:
        first.setdefault(a[0], a)
    scales = {a[1].split()[-1].lower() for a in first.values() if " " in a[1].strip("$ ")}
    if len(first) != 2 or len(scales) > 1:
        return None
    old, new = sorted(first.values(), key=lambda a: (a[3], found.index(a)))
    cits = [make_citation(old[4], old[2]), make_citation(new[4], new[2])]
    if cits[0] is None or cits[1] is None:
        return None
    diff = new[0] - old[0]
    size = f"{abs(diff):,.0f}" if float(diff).is_integer() else f"{abs(diff):,.2f}"
    head = _change_head(m, diff, size, scales.pop() if scales else "", old[1], new[1])
    return f"{head} — {cits[0].quote} {cits[1].quote}", [cits[0], cits[1]]


def _change_head(asked: re.Match[str], diff: float, size: str, scale: str, old: str,
                 new: str) -> str:
    """``"$400,000,000 increase: from $3,800,000,000 to $4,200,000,000"``: the change ``diff``
    written as ``size`` (in ``scale``, "" for none), its direction, and a note when it runs
    against the verb the question asked (``asked``: :data:`_ASKED`'s match)."""
    word = "increase" if diff > 0 else "decrease"
    if (diff > 0) != asked.group(1).lower().startswith(_UP):
        word += f" (the question asks a{'n increase' if diff < 0 else ' decrease'})"
    return f"${size}{' ' + scale if scale else ''} {word}: from {old.strip()} to {new.strip()}"


def _value(money: str) -> tuple[float, str, int]:
    """``(value, scale word, decimals)`` of ``"$1,577.50 million"``."""
    m = _AMOUNT.search(money)
    assert m is not None  # _MONEY matched it
    digits = m.group(1).replace(",", "")
    return float(digits), (m.group(2) or "").lower(), len(digits.partition(".")[2])


def from_to_change(question: str, unit: str, chunk: Chunk,
                   make_citation: Callable[[Chunk, str], Citation | None]
                   ) -> tuple[str, list[Citation]] | None:
    """``("$0.09 increase: from $0.70 to $0.79 — <unit>", [citation])`` when ``question`` asks
    "by how much did … increase / decrease …" (:func:`asks_amount_change`) and the answer
    ``unit`` (of ``chunk``) states the change itself, once: "… increased its quarterly dividend
    from $0.70 to $0.79 per share" (a helper's trial: Costco, Netflix, Nike answers quoted both
    amounts and gave no difference). ``None`` when the question asks no change, the unit holds
    no such "from … to …" or more than one "to $…" (Boeing's "from $1.42 to $1.71 … and to
    $2.06": which step is asked is not read here), the two amounts are in different scales
    (million / billion), or the quote does not verify."""
    m = _ASKED.search(question)
    if m is None:
        return None
    pairs = list(_FROM_TO.finditer(unit))
    if len(pairs) != 1 or len(_TO_MORE.findall(unit)) != 1:
        return None
    got = pairs[0]
    (a, sa, da), (b, sb, db) = _value(got["a"]), _value(got["b"])
    if sa and sb and sa != sb:
        return None
    cit = make_citation(chunk, unit)
    if cit is None:
        return None
    diff = b - a
    head = _change_head(m, diff, f"{abs(diff):,.{max(da, db)}f}", sa or sb, got["a"], got["b"])
    return f"{head} — {cit.quote}", [cit]
