"""The extractive answer when its best unit is one case of an enumerating sentence
(``corpus.evidence.cases``).

The best unit of "劳动合同的试用期最长不得超过多久？" was "劳动合同期限一年以上不满三年的，试用期
不得超过二个月；" — one case of 第十九条's three, the question naming none; and the best unit of
"劳动合同期限三年以上的，试用期不得超过多久？" was that same case, not the one the question names
("三年以上固定期限和无固定期限的劳动合同，试用期不得超过六个月。"), because every case holds the
question's words somewhere. :func:`answer_cases` looks at the best unit's series of cases:

- the question names a case (``corpus.evidence.cases.named_case``): that case is the answer
  (flag ``case_named`` when it is not the unit term matching chose);
- it names none: the whole series is the answer, one verified quote from the first case to
  the last (flag ``cases_whole``), so a question for the longest, the most or the least gets
  every case with its value — never one case presented as the rule.

A series that is not found, or a quote that does not verify, leaves the evidence as it was. A
question asking what a numbered item says ("第三十九条规定了什么？", ``corpus.item_text``) gets
the item's whole text from its label's line (flag ``whole_item``), not one of its cases.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from corpus.evidence import TermMatcher
from corpus.evidence.cases import asks_value, case_series, named_case
from corpus.item_text import asks_whole_item, item_passages
from corpus.labels import Label
from corpus.types import Chunk, Citation
from rag.types import Evidence

__all__ = ["FLAG_CASE_NAMED", "FLAG_CASES_WHOLE", "FLAG_WHOLE_ITEM", "answer_cases"]

FLAG_CASE_NAMED = "case_named"
FLAG_CASES_WHOLE = "cases_whole"
FLAG_WHOLE_ITEM = "whole_item"


def answer_cases(evidence: Sequence[Evidence], question: str, chunks: Sequence[Chunk],
                 key_terms: Sequence[str],
                 make_citation: Callable[[Chunk, str], Citation | None],
                 normalize: Callable[[str], str]) -> tuple[list[Evidence], str | None]:
    """``evidence`` with its first unit replaced by the named case or the whole series of
    cases (module docstring), and the flag saying which; ``(evidence, None)`` unchanged
    otherwise, and for a question that asks no value a case states
    (``corpus.evidence.cases.asks_value``: a quantity or an extreme).

    :param question: the question as retrieved.
    :param chunks: the retrieved chunks (the best unit's chunk is among them).
    :param key_terms: the question's key terms in question order (normalised).
    :param normalize: the key terms' normaliser (``Tokenizer.normalize``).
    """
    out = list(evidence)
    if out and (asked := asks_whole_item(question)) is not None:
        return _whole_item(out, asked, chunks, make_citation)
    if not out or not key_terms or not asks_value(question, key_terms):
        return out, None
    best = out[0]
    chunk = next((c for c in chunks if c.chunk_id == best.citation.chunk_id), None)
    if chunk is None:
        return out, None
    matcher = TermMatcher(key_terms, normalize=normalize, weighting="digits")
    series = case_series(chunk, best.text, matcher)
    if series is None:
        return out, None
    named = named_case(series, key_terms, normalize)
    if named == series.index:
        return out, None  # term matching chose the case the question names
    text, flag = ((series.units[named], FLAG_CASE_NAMED) if named is not None
                  else (series.text, FLAG_CASES_WHOLE))
    cit = make_citation(chunk, text)
    if cit is None:
        return out, None
    rest = [e for e in out[1:] if e.text not in series.units]
    return [dataclasses.replace(best, text=text, citation=cit, reading=""), *rest], flag


def _whole_item(out: list[Evidence], asked: Label, chunks: Sequence[Chunk],
                make_citation: Callable[[Chunk, str], Citation | None]
                ) -> tuple[list[Evidence], str | None]:
    """The question asks what item ``asked`` says ("第三十九条规定了什么？"): the item's text in
    the retrieved chunk of the best unit's document whose line its label opens
    (``corpus.item_text``; the part in that chunk: one verified quote), flag ``whole_item``;
    ``out`` unchanged when no retrieved chunk opens the item."""
    best = out[0]
    same = sorted({c.chunk_id: c for c in chunks if c.doc_id == best.citation.doc_id}.values(),
                  key=lambda c: c.ordinal)
    for chunk in sorted(same, key=lambda c: c.chunk_id != best.citation.chunk_id):
        parts = item_passages(asked, chunk)
        if parts:
            cit = make_citation(chunk, parts[0][1])
            if cit is None:
                return out, None
            rest = [e for e in out[1:] if e.text not in parts[0][1]]
            return [dataclasses.replace(best, text=parts[0][1], citation=cit, reading=""),
                    *rest], FLAG_WHOLE_ITEM
    return out, None
