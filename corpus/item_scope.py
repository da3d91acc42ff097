"""A question naming a numbered item (第二十一条, Clause 4) against the units and chunks that may
answer it: whether a unit sits in the asked item (:func:`in_item`), whether retrieved text
numbers such items at all (:func:`numbers_items`), and a unit led by the asked label when it
writes the item in the other numeral form (:func:`in_asked_form`). Built on
:mod:`corpus.labels`; pure, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from corpus.labels import asked_item, item_of, line_labels, opening_label
from corpus.types import Chunk

__all__ = ["in_asked_form", "in_item", "numbers_items"]


def in_item(question: str, unit: str, chunk_text: str, headings: Sequence[str] = ()) -> bool:
    """True when ``unit`` (a quote of ``chunk_text``) sits in the numbered item ``question``
    asks about (:func:`asked_item`, :func:`item_of`): a unit of a text that numbers nothing is
    in no item, so where some unit is in the asked item, the others answer another question
    (a trial: "What does Clause 4 say?" was answered by a Slack channel line "say thanks")."""
    asked = asked_item(question)
    if asked is None:
        return False
    at = chunk_text.find(unit)
    item = item_of(unit, chunk_text[:at] if at > 0 else "", headings, asked.kind)
    return item is not None and item.number == asked.number


def numbers_items(question: str, chunks: Iterable[Chunk]) -> bool:
    """True when one of ``chunks`` numbers items of the kind ``question`` asks (a line or a
    section heading opens with such a label): there, the asked item not being in them means
    the text lacks it ("What does Clause 9 say?" of a contract of Clauses 1-8 is not found,
    not answered by another document's line)."""
    asked = asked_item(question)
    return asked is not None and any(
        any(lb.kind == asked.kind for lb in line_labels(c.text))
        or any(opening_label(h, asked.kind) is not None for h in c.section_path)
        for c in chunks)


def in_asked_form(question: str, unit: str) -> str:
    """``unit`` led by the label ``question`` asks (:func:`asked_item`) when the unit opens that
    item written in the other form (第五条 … for 第5条), so that a reading by words finds the
    question's label in it (the LoopAgent's answer-support features: a trial's
    "第5条规定了什么？" answered by 第五条 was refused at p 0.38, "5" read as absent); else
    ``unit`` as it is."""
    label = asked_item(question)
    opens = opening_label(unit, label.kind) if label is not None else None
    if label is None or opens is None or opens.number != label.number or opens.text == label.text:
        return unit
    return f"{label.text} {unit}"
