"""A change between two years asked of prose: both years' sentences answer, not one.

"How did revenue change from 2018 to 2019?" over a report that writes "Revenue in 2018 was 3.1
million euros." and "Revenue in 2019 was 4.2 million euros." was answered by the first sentence
alone (a new-user trial): the extractive answer is one unit, and the figure step
(``rag.compose``, ``corpus.derived``) computes a change only from statement rows, which prose
has none of. Here, when the question asks a change (or a difference) between exactly two years
(``corpus.period_scope.pinned_years``) and the best evidence unit states one of them only, the
best unit stating the other year about the same thing — it holds every key term of the
question's that the best unit holds, periods aside — is cited beside it, and the answer gives
both, the best one first. A unit stating both years ("rose from 2.0 million euros in 2018 to
2.6 million euros in 2019") already answers alone. Pure, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from corpus.period_scope import pinned_years, stated_years
from corpus.term_match import holds_term, is_period
from corpus.types import Citation
from rag._answer import Evidence

__all__ = ["asks_period_change", "period_pair"]

# a change, growth or difference between the two periods (English stems, Chinese words)
_CHANGE = re.compile(
    r"\b(?:chang|grow|grew|increas|decreas|declin|ris|rose|fall|fell|drop|differ|compar)"
    r"(?:e|es|ed|th|ing|ence|en|s)?\b|增长|增加|减少|下降|上升|变化|变动|增幅|降幅|相比|差额|差距",
    re.IGNORECASE)


def asks_period_change(question: str) -> bool:
    """True when ``question`` asks a change, growth or difference (``_CHANGE``) between exactly
    two years it pins (``"How did revenue change from 2018 to 2019?"``,
    ``"营业收入从2018年到2019年增长了多少？"``)."""
    return len(pinned_years(question)) == 2 and _CHANGE.search(question) is not None


def period_pair(question: str, evidence: Sequence[Evidence], key_terms: Sequence[str],
                normalize: Callable[[str], str]) -> tuple[str, list[Citation]] | None:
    """``(answer, citations)`` of the best unit and the best unit stating the other asked year
    (module docstring), or ``None``: no such question, the best unit states both years or
    neither, or no unit about the same key terms states the other year.

    :param evidence: the extractive evidence, best first (``rag.extractive.extract_answer``).
    :param key_terms: the question's key terms (normal form); ``normalize`` brings a unit to it.
    """
    if not evidence or not asks_period_change(question):
        return None
    years = pinned_years(question)
    best = evidence[0]
    own = stated_years(best.citation.quote) & years
    if len(own) != 1:
        return None
    (other_year,) = years - own
    text = normalize(best.citation.quote)
    about = [t for t in key_terms if not is_period(t) and holds_term(t, text)]
    for e in evidence[1:]:
        quote = e.citation.quote
        if stated_years(quote) & years != {other_year}:
            continue
        unit = normalize(quote)
        if all(holds_term(t, unit) for t in about):
            return f"{best.citation.quote} {quote}", [best.citation, e.citation]
    return None
