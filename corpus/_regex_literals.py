"""The literal strings a regular expression cannot match without: a cheap test that proves a text
holds no match, so the pattern is searched only in the texts that may hold one.

:func:`literal_gate` reads the pattern's parse tree (``re._parser``, the standard library's own
parser): a sequence needs each of its parts, a part of alternatives needs one of them, a repeat
of at least one needs its body, a run of literal characters needs itself and a class listing
characters (``[:：]``) one of them. What nothing is known about (ranges, categories, negated
classes, optional parts, look-arounds) needs nothing. The test is run on
the text lower-cased, the literals lower-cased too, so it holds for case-insensitive patterns:
the only characters outside ASCII that such a pattern matches to an ASCII letter (``İ ı ſ K``
— the Kelvin sign; checked over every code point) send the text to the full search.
"""

from __future__ import annotations

import re
import re._constants as _c
import re._parser as _p
from collections.abc import Callable
from typing import Any

__all__ = ["literal_gate"]

# characters a case-insensitive pattern matches to an ASCII letter without lowering to it
_CASE_ODD = re.compile("[\u0130\u0131\u017f\u212a]")
_REPEATS = (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT)

# a need: ("lit", text) | ("all", [needs]) | ("any", [needs]); None: nothing is needed
Need = tuple[str, Any]


def _needs(data: Any) -> Need | None:
    parts: list[Need] = []
    run: list[str] = []
    for op, av in data:
        if op is _c.LITERAL:
            run.append(chr(av))
            continue
        if run:
            parts.append(("lit", "".join(run).lower()))
            run = []
        need: Need | None = None
        if op is _c.SUBPATTERN:
            need = _needs(av[3])
        elif op is _c.ATOMIC_GROUP:
            need = _needs(av)
        elif op in _REPEATS and av[0] >= 1:
            need = _needs(av[2])
        elif op is _c.BRANCH:
            alts = [_needs(alt) for alt in av[1]]
            need = None if any(a is None for a in alts) else ("any", alts)
        elif op is _c.IN and av and all(item_op is _c.LITERAL for item_op, _ in av):
            need = ("any", [("lit", chr(code).lower()) for _, code in av])  # [:：], [致给]
        if need is not None:
            parts.append(need)
    if run:
        parts.append(("lit", "".join(run).lower()))
    return ("all", parts) if parts else None


def _cased_outside_ascii(need: Need) -> bool:
    kind, val = need
    if kind == "lit":
        return any(not ch.isascii() and ch.lower() != ch.upper() for ch in val)
    return any(_cased_outside_ascii(n) for n in val)


def _weight(lit: str) -> int:
    """How rarely a literal occurs, roughly: its length, a character outside ASCII (CJK) 3."""
    return sum(1 if ch.isascii() else 3 for ch in lit)


def _rarity(clause: frozenset[str]) -> int:
    return min(map(_weight, clause))


def _clauses(need: Need) -> list[frozenset[str]]:
    """Sets of literals a text meeting ``need`` holds one of each of (a part of alternatives
    gives one set: the rarest set of each alternative, joined), the rarest first."""
    kind, val = need
    if kind == "lit":
        return [frozenset((val,))]
    if kind == "all":
        return sorted((c for n in val for c in _clauses(n)), key=_rarity, reverse=True)
    return [frozenset().union(*(_clauses(n)[0] for n in val))]


def _alternatives(need: Need) -> list[Need]:
    """The top-level alternatives of ``need`` (the patterns joined by ``|``)."""
    kind, val = need
    if kind == "all" and len(val) == 1:
        return _alternatives(val[0])
    if kind == "any":
        return [a for n in val for a in _alternatives(n)]
    return [need]


def literal_gate(pattern: re.Pattern[str]) -> Callable[[str], bool] | None:
    """A test ``gate(text)``: ``False`` proves ``pattern`` has no match in ``text``; ``True``
    says it may have one. ``None`` when the pattern needs no literal (or one with letters
    outside ASCII: their case forms are not checked here)."""
    need = _needs(_p.parse(pattern.pattern, pattern.flags))
    if need is None or _cased_outside_ascii(need):
        return None

    alts = [[tuple(c) for c in _clauses(a)] for a in _alternatives(need)]
    first = tuple(sorted({lit for a in alts for lit in a[0]}, key=_weight, reverse=True))

    def gate(text: str) -> bool:
        if _CASE_ODD.search(text):
            return True
        low = text.lower()
        if not any(lit in low for lit in first):  # each alternative's rarest set: no match
            return False
        return any(all(any(lit in low for lit in c) for c in a) for a in alts)

    return gate
