"""A question naming a numbered item (第二十一条, Clause 4) against the units and chunks that may
answer it: which units may answer and which sit in the asked item (:func:`item_units`), the
labels a chunk numbers its items with (:func:`chunk_labels`, :func:`numbers_items`), and a unit
led by the asked label when it writes the item in the other numeral form
(:func:`in_asked_form`). Built on :mod:`corpus.labels`; pure, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeVar

from corpus.labels import Label, asked_item, item_place, line_labels, opening_label
from corpus.types import Chunk

__all__ = ["chunk_labels", "in_asked_form", "item_units", "numbers_items"]

_U = TypeVar("_U")


def item_units(question: str, units: Sequence[_U],
               place: Callable[[_U], tuple[str, str, Sequence[str]]]) -> tuple[list[_U], list[_U]]:
    """``(kept, inside)`` of ``units`` (best first) for the item ``question`` asks
    (:func:`~corpus.labels.asked_item`): ``kept`` leaves out the units of another item (and a
    numbering text's title: :func:`~corpus.labels.item_place` ``False``), ``inside`` is those
    of ``kept`` in the asked item. Where ``inside`` is not empty the others answer another
    question (a trial: "What does Clause 4 say?" was answered by a Slack channel line "say
    thanks"). No item asked: ``(units, [])``.

    :param place: a unit's ``(quote, chunk text, section headings)``.
    """
    asked = asked_item(question)
    if asked is None:
        return list(units), []
    kept: list[_U] = []
    inside: list[_U] = []
    for u in units:
        where = item_place(asked, *place(u))
        if where is not False:
            kept.append(u)
        if where:
            inside.append(u)
    return kept, inside


def chunk_labels(chunk: Chunk, kind: str) -> Iterator[Label]:
    """The labels of ``kind`` that open a line of ``chunk`` or one of its section headings."""
    yield from (lb for lb in line_labels(chunk.text) if lb.kind == kind)
    yield from (lb for h in chunk.section_path if (lb := opening_label(h, kind)) is not None)


def numbers_items(question: str, chunks: Iterable[Chunk]) -> bool:
    """True when one of ``chunks`` numbers items of the kind ``question`` asks
    (:func:`chunk_labels`): there, the asked item not being in them means the text lacks it
    ("What does Clause 9 say?" of a contract of Clauses 1-8 is not found, not answered by
    another document's line)."""
    asked = asked_item(question)
    return asked is not None and any(next(chunk_labels(c, asked.kind), None) is not None
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
