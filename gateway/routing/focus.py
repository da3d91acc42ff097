"""The part of a question that asks, without the clauses that only set it apart from something
else (negation / exclusion questions).

"While GitLab's Marketing team aligns its strategy with stages like 'Aware' and 'Converting',
what is the term from the product principles …?" names the Marketing team and its stages only to
say they are *not* the answer; retrieved as written, those words pull the Marketing pages to the
top. The same holds for "Excluding A and B, what is …", "Which department, not part of Finance,
handles …", "…, which is not a product principle, …" and for statement sentences before a
question that contrasts with them ("Team members can expense a 'Co-Working Space'. What is the
*different* term from the job families documentation …?"). :func:`focus_question` removes such
clauses; the question that is left is what retrieval and the extractive answer read (the route
record shows it as ``focused_question``).

Rules (each named in :attr:`Focus.rules`):

- ``lead_clause`` — a leading exclusion clause ending at the comma before the question word:
  Excluding / Except (for) / Apart from / Aside from / Other than / Besides / Not counting /
  Setting aside …, what/which/… ; 除了/除…(之外|以外)，…; and a leading concessive clause
  (While / Although / Though / Whereas / Even though / Unlike …; 虽然/尽管…，但…) only when the
  question after it says its answer is something else (not, different, other, another,
  instead …; 不是, 不同, 而非 …) — "While on parental leave, can I still receive a bonus?" and
  "Although I am a contractor, can I expense a laptop?" set a condition and stay whole;
- ``not_clause`` — an appositive exclusion inside the question: ", not part of the Finance
  team," / ", which is not a product principle," / ", not X," (removed with its commas); "that
  is not X but Y" → "that Y"; a trailing ", which is not X?" — and, in a question a rule above
  already found excluding something, a trailing "that / and is not X?" or ", not X?";
- ``contrast_context`` — statement sentences before the last sentence, a question that
  contrasts with them (not, different, other than, instead, unlike, rather than, outside,
  another): the statements are dropped.

A question none of these fit is returned as it is. Less than :data:`MIN_LEFT_WORDS` words (or
:data:`MIN_LEFT_CJK` Chinese characters) left keeps the question whole.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from gateway.routing.trace import RouteTrace
from gateway.routing.types import QueryInput

__all__ = ["MIN_LEFT_CJK", "MIN_LEFT_WORDS", "Focus", "apply_focus", "focus_question"]

#: fewest English words the focused question must keep (else the question stays whole)
MIN_LEFT_WORDS = 5
#: fewest Chinese characters the focused question must keep
MIN_LEFT_CJK = 6


@dataclass(frozen=True, slots=True)
class Focus:
    """``question`` as asked and ``focused`` (equal when no rule fired); ``rules`` fired."""

    question: str
    focused: str
    rules: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        """True when a clause was removed."""
        return self.focused != self.question


_WH = r"(?:what|which|who|whom|whose|where|when|why|how|is|are|was|were|does|do|did|can|could|" \
      r"should|would|will|name|list|identify|give|tell)"
_LEAD_EXCLUDE = re.compile(
    r"^\s*(?:excluding|except(?:\s+for)?|apart from|aside from|other than|besides|not counting|"
    r"setting aside|ignoring)\b.*?,\s*(?=" + _WH + r"\b)"
    r"|^\s*(?:除了|除去|除)[^，,。？?]{1,60}?(?:之外|以外|外)?[，,]\s*",
    re.IGNORECASE | re.DOTALL)
_LEAD_CONCEDE = re.compile(
    r"^\s*(?:while|whilst|although|though|whereas|even though|unlike)\b.*?,\s*(?=" + _WH
    + r"\b)|^\s*(?:虽然|尽管|虽说)[^，,。？?]{1,60}[，,]\s*(?:但是?|可是?)?\s*",
    re.IGNORECASE | re.DOTALL)
#: a main clause that says its answer is something else than the lead clause's
_OTHER_THAN = re.compile(r"\b(?:not|n't|never|different|other|another|instead|rather\s+than|"
                         r"neither|nor|none)\b|不是|不同|而非|不属于|不在|另", re.IGNORECASE)
_NOT_CLAUSE = re.compile(
    r",\s*(?:which|that|who)\s+(?:is|are|was|were)\s+not\b[^,?]*,"
    r"|,\s*not\s+(?:part\s+of|in|from|within|one\s+of|a|an|the)\b[^,?]*,", re.IGNORECASE)
_NOT_BUT = re.compile(r"(?P<rel>\b(?:that|which|who)\s+)(?:is|are|was|were|does|do)\s+not\b[^,?]*?"
                      r"\s+but\s+", re.IGNORECASE)
_NOT_TAIL = re.compile(r",?\s*\b(?:that|which|who|and)\s+(?:is|are|was|were|does|do)\s+not\b[^?]*"
                       r"(?=[?？]\s*$)|,\s*not\s+[^,?]*(?=[?？]\s*$)", re.IGNORECASE)
_NOT_TAIL_COMMA = re.compile(r",\s*(?:which|that|who)\s+(?:is|are|was|were)\s+not\b[^,?]*"
                             r"(?=[?？]\s*$)", re.IGNORECASE)
_CONTRAST = re.compile(
    r"\b(?:not|n't|different|differs?|other\s+than|instead|unlike|rather\s+than|outside|another|"
    r"excluding|except|besides)\b|不是|不同|以外|之外|而非|除", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!。！])\s+|(?<=[。！])")
_CJK = re.compile(r"[\u3400-\u9fff]")


def _enough(text: str) -> bool:
    if _CJK.search(text):
        return len(_CJK.findall(text)) >= MIN_LEFT_CJK
    return len(text.split()) >= MIN_LEFT_WORDS


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def focus_question(question: str) -> Focus:
    """``question`` without its exclusion / contrast clauses (module docstring).

    Usage example::

        >>> focus_question("Excluding the Sales and Marketing teams, which team runs the "
        ...                "press office?").focused
        'Which team runs the press office?'
    """
    text, rules = question.strip(), []
    sentences = [s for s in _SENTENCE.split(text) if s.strip()]
    if len(sentences) > 1 and re.search(r"[?？]\s*$", sentences[-1]) and not any(
            re.search(r"[?？]", s) for s in sentences[:-1]) and _CONTRAST.search(sentences[-1]):
        last = sentences[-1].strip()
        if _enough(last):
            text = last
            rules.append("contrast_context")
    m = _LEAD_EXCLUDE.match(text)
    if m is None and (c := _LEAD_CONCEDE.match(text)) and _OTHER_THAN.search(text[c.end():]):
        m = c  # "While the Marketing team …, what is the term … that is not a stage …?"
    if m is not None and _enough(text[m.end():]):
        text = _capitalise(text[m.end():])
        rules.append("lead_clause")
    cut = _NOT_CLAUSE.sub("", text)
    cut = _NOT_BUT.sub(lambda m: m.group("rel"), cut)
    # a trailing "that is not …?" is dropped in a question already known to exclude something
    # ("What happens to leave that is not used?" keeps it); ", which is not …?" always
    cut = (_NOT_TAIL if rules else _NOT_TAIL_COMMA).sub("", cut)
    if cut != text and _enough(cut):
        text = cut
        rules.append("not_clause")
    return Focus(question, text if rules else question, tuple(rules))


def apply_focus(q: QueryInput, record: RouteTrace) -> QueryInput:
    """``q`` without the clauses that only exclude something (``gateway.routing.focus``: "While
    the Marketing team …, what is …", "Excluding A and B, …", ", not part of Finance,"): the
    focused question is what retrieval and the answer read; the route record shows it as
    ``rewritten_question`` with the rules ``focus:<rule>`` after any conversation rules."""
    f = focus_question(q.question)
    if not f.changed:
        return q
    before = record.rewrite or {}
    by = before.get("by") if before.get("by") not in (None, "none") else "rules"
    record.rewrote(f.focused, str(by), [*before.get("rules", []),
                                        *(f"focus:{r}" for r in f.rules)])
    return dataclasses.replace(q, question=f.focused)
