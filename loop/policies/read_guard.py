"""The "never worse than no LLM" guard of the line-reading protocol (issue 14, item 2).

An LLM answer is kept only when the lines it cites support the question at least as well as
the offline policy's best evidence, both scored by one scorer: :func:`cited_support`, the
key-term coverage :func:`loop.evidence.best_evidence` gives one unit
(:func:`corpus.evidence.covered_weight`: a term in the quoted line counts its full weight, in
the chunk's title / section path / table header the context credit, elsewhere in the chunk
the chunk credit), the best of the cited lines. Lines are scored one by
one, not joined: joined, a running page header that names the product ("TH2817B 系列使用说明书")
lifted an unrelated formula line above the offline answer (zhpdf:03, measured). Pure
functions, no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from corpus.evidence import TermMatcher, covered_weight, unit_context
from corpus.types import Chunk, Citation

__all__ = ["Verdict", "cited_support", "is_question_echo", "judge", "unsupported_figures"]

# Arabic figures, and runs of Chinese numerals of two or more characters (三十, 六个月's 六 alone
# is skipped: single numerals are common inside words)
_FIGURE = re.compile(r"\d+(?:[.,]\d+)*|[零〇一二两三四五六七八九十百千万亿]{2,}")
_MARKER = re.compile(r"\[\d{1,3}\]")
# a product / part code: starts with a letter, holds a digit (CH583, RS232C, ESP32-PICO-D4)
_CODE = re.compile(r"(?<![A-Za-z0-9])[A-Za-z][A-Za-z0-9]*\d[A-Za-z0-9]*(?:-[A-Za-z0-9]+)*")


def is_question_echo(fact: str, question: str) -> bool:
    """True when a note's ``fact`` is a question, not a statement: it ends with a question
    mark, or it holds the question's text (the local 1.5B model noted the question itself on
    zhpdf:44 and on the unanswerable zhpdf:63)."""
    f = re.sub(r"\s|\[\d{1,3}\]", "", unicodedata.normalize("NFKC", fact))
    q = re.sub(r"[\s?？]", "", unicodedata.normalize("NFKC", question))
    return f.endswith("?") or (len(q) >= 6 and q in f)


def unsupported_figures(text: str, quotes: Sequence[str], question: str = "") -> list[str]:
    """Numbers in ``text`` (a fact or an answer; footnote markers ``[1]`` ignored) that none of
    ``quotes`` holds, compared after NFKC with spaces and thousands commas removed: a fact the
    cited lines cannot carry (with the local 1.5B model: "100 微安" noted from lines without
    that figure, zhpdf:62; "提前三十日" from a line saying "提前三日", zhpdf:17). Digits inside
    a code that ``question`` names (a token starting with a letter: CH583, TH2817B,
    ESP32-PICO-D4) are the question's subject, not a figure: a fact such as
    "CH583的BLE接收灵敏度是-98dBm" on the line "接收灵敏度-98dBm" was dropped for "583"."""
    def flat(t: str) -> str:
        return re.sub(r"[\s,]", "", unicodedata.normalize("NFKC", t))
    held = flat(" ".join(quotes))
    body = unicodedata.normalize("NFKC", _MARKER.sub("", text))
    codes = set(_CODE.findall(unicodedata.normalize("NFKC", question).casefold()))
    body = _CODE.sub(lambda m: " " if m[0].casefold() in codes else m[0], body)
    return [n for n in _FIGURE.findall(body) if flat(n) not in held]


def _support(chunk: Chunk, text: str, m: TermMatcher) -> float:
    own = m.credits(text)
    got = covered_weight(m, own, m.credits(unit_context(chunk)), m.credits(chunk.text))
    return round(got / m.total, 4) if own else 0.0


def cited_support(citations: Sequence[Citation], chunks: Mapping[str, Chunk],
                  m: TermMatcher) -> float:
    """Best support (0..1) of ``citations``: the highest coverage of one cited quote in its
    chunk. ``0.0`` with no citations, or none of a chunk in ``chunks``."""
    return max((_support(chunks[c.chunk_id], c.quote, m) for c in citations
                if c.chunk_id in chunks), default=0.0)


@dataclass(frozen=True, slots=True)
class Verdict:
    """``keep_llm`` and why (``reason``, for the route record), with both scores."""

    keep_llm: bool
    llm: float
    offline: float
    reason: str


def judge(llm: Sequence[Citation], offline: Sequence[Citation], found_offline: bool,
          chunks: Mapping[str, Chunk], m: TermMatcher, floor: float) -> Verdict:
    """Keep the LLM answer (citations ``llm``) or the offline one?

    The offline side is its best evidence: its first citation (the unit it ranks first), or
    ``floor`` (the coverage a unit needs to be cited at all) when it found nothing. The LLM
    side is :func:`cited_support` of its citations (``0`` for "not found"). The LLM answer is
    kept when its score is at least the offline one; a tie keeps it.
    """
    if not llm and not (found_offline and offline):
        return Verdict(True, 0.0, 0.0, "not found by the llm nor by the offline policy")
    mine = cited_support(llm, chunks, m)
    theirs = cited_support(offline[:1], chunks, m) if found_offline and offline else floor
    if llm and mine >= theirs:
        return Verdict(True, mine, theirs, f"llm answer kept: cited lines cover {mine:.2f} "
                       f">= offline {theirs:.2f}")
    what = "llm found nothing" if not llm else f"llm cited lines cover {mine:.2f}"
    return Verdict(False, mine, theirs, f"offline answer: {what} < offline best evidence "
                   f"{theirs:.2f}")
