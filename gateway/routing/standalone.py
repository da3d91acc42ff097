"""Does a short English part of a multi-part question stand alone
(``gateway.routing.decompose``)?
"What is the warranty period?" names a thing of its own; "What was the amount?" and "what is the
minimum?" only relate to a part before them. And a later part's "its" is the first part's
organisation in the possessive ("What was Netflix's revenue in 2017 and what was its net income
in 2017?": Netflix's net income). Pure, no I/O."""

from __future__ import annotations

import re

__all__ = ["bind_possessive", "names_own_topic"]

# the words of a short part that ask, and the nouns that only relate to an earlier part
_ASKING_WORDS = frozenset(
    "what which who whom whose when where why how is are was were do does did the a an of to in "
    "on for at by it its that this be been can could will would should much many".split())
_RELATIONAL = frozenset(
    "amount amounts percentage percent increase decrease change changes difference total rate "
    "value values figure number result results reason reasons cause effect impact growth share "
    "ratio sum average one ones same other minimum maximum min max lowest highest smallest largest "
    "first last next previous latest earliest".split())


def names_own_topic(part: str) -> bool:
    """True when a short English part names a thing of its own ("What is the warranty
    period?"), not only a relation to something said before ("What was the amount?", "What is
    the percentage increase?"): a break-it trial's "What is the warranty period? What is the
    vision of GitLab?" was answered for the vision alone, the warranty dropped unsaid."""
    words = {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z'-]+", part)}
    return bool(words - _ASKING_WORDS - _RELATIONAL)


# an organisation in the possessive: "Netflix's", "Johnson & Johnson's" (capitalised words)
_POSSESSOR = re.compile(r"\b([A-Z][\w&.-]*(?:\s+(?:&\s+)?[A-Z][\w&.-]*){0,3})['’]s\b")
_ITS = re.compile(r"\bits\b")


def bind_possessive(parts: list[str] | None) -> list[str] | None:
    """``parts`` with "its" in a later English part replaced by the first part's possessive
    organisation ("Netflix's"), when the first part names exactly one; ``parts`` unchanged
    otherwise (``None`` stays ``None``). A new-user trial's "What was Netflix's revenue in 2017
    and what was its net income in 2017?" was left whole and answered for the net income
    only."""
    if not parts or len(parts) < 2:
        return parts
    names = {m.group(1) for m in _POSSESSOR.finditer(parts[0])}
    if len(names) != 1:
        return parts
    name = names.pop()
    return [parts[0], *(_ITS.sub(f"{name}'s", p) for p in parts[1:])]
