"""The topic of a previous question: what "it" / "its" / 它 of a follow-up stands for
(:func:`gateway.conversation.rewrite.rewrite_rules`, rule ``pronoun``).

In order: the possessor the previous question named ("What is this product's price?" → this
product; the K-200's → the K-200), also when the item it named in the cited documents is what
is possessed (the Price heading: "And its warranty?" is this product's warranty, not Price's);
else the item named (:func:`gateway.conversation.items.find_anchor`); else the Chinese subject
(its first noun run: TH2817B); else the phrase after of / for / about without its period (a
period alone is none); else the one name the question holds (Amazon); else the one code of a
short rest, or a rest of at most four words. Pure, no I/O.
"""

from __future__ import annotations

import re

from corpus.evidence.units import CJK
from corpus.term_match import is_code
from gateway.conversation.items import Anchor, words
from gateway.routing.slots import subject_zh

__all__ = ["one_name", "previous_topic"]

_POSSESSOR = re.compile(r"\b(?P<d>(?:the|this|that)\s+)?(?P<w>[\w][\w-]*)['’]s\b",
                        re.IGNORECASE)
_PRONOUN_WORDS = frozenset("it that this there here what who he she".split())
_TOPIC = re.compile(r"\b(?:of|for|about|regarding|on)\s+(?P<t>[^?？]+)", re.IGNORECASE)
# a previous question's lead, left out of its topic: a follow-up's connective ("And what does
# the K-200 not cover?"), then its question word and auxiliary ("what does", "how often should")
_CONNECTIVE = re.compile(r"^\s*(?:and|also|so|but|then|or)\b[\s,]*", re.IGNORECASE)
_ASK_LEAD = re.compile(
    r"^\s*(?:what|which|who|how|when|where)\s+(?:\w+\s+)?(?:is|are|was|were|do|does|did|"
    r"should|can|could|will|would|has|have|had)\s+", re.IGNORECASE)
_TOPIC_WORDS = 4  # "the K-200", "the warranty period": a topic is a short noun phrase
# a period closing a topic phrase ("Acme in 2019", "the end of fiscal 2019", "Q3 2024"), or one
# that is all of it
_PERIOD_TAIL = re.compile(
    r"(?:^|\s+(?:in|at|for|during|by|as\s+of|on)\s+)(?:the\s+)?"
    r"(?:(?:end|start|beginning|close|first|second|third|fourth|last)\s+"
    r"(?:quarter\s+)?of\s+(?:the\s+)?)?"
    r"(?:(?:fiscal|calendar)\s+(?:year\s+)?|FY\s?|Q[1-4]\s+|year\s+)?(?:19|20)\d{2}\W*$",
    re.IGNORECASE)
# a run of capitalised words after a question's first word: a name ("Amazon", "Cybersecurity
# Law"); "I" and the words that start a clause are none
_NAME_RUN = re.compile(r"(?<=\s)(?:[A-Z][\w&.-]*(?:\s+(?=[A-Z]))?)+")
_NO_NAME = frozenset("I And Or But What Which Who How When Where Why".split())


def one_name(previous: str) -> str | None:
    """The one name (a run of capitalised words after the first word) ``previous`` holds, its
    possessive mark left out, or ``None`` when it holds none or several ("the contract between
    Acme and Beta" names two: neither is the topic)."""
    runs = {re.sub(r"['’]s$", "", r.strip(" .,;:?")) for r in _NAME_RUN.findall(previous)}
    runs = {r for r in runs if r and r not in _NO_NAME}
    return next(iter(runs)) if len(runs) == 1 else None


# a clause's own subject opening the rest of a question ("I make a claim"): no noun phrase
_SUBJECT_PRONOUN = re.compile(r"^(?:I|we|you|they|he|she|one)\b", re.IGNORECASE)
_LEAD_PREPOSITIONS = re.compile(r"^(?:(?:at|in|on|by|to|from|with|of|for|about)\s+)+",
                                re.IGNORECASE)


def previous_topic(previous: str, anchor: Anchor | None) -> str:
    """What a pronoun of a follow-up stands for in the ``previous`` standalone question (module
    docstring), ``""`` when nothing short enough; ``anchor``: the item the previous question
    named in the cited documents' lists, or ``None``."""
    # a possessor is what "its" stands for, also when the item named is what it possesses:
    # "What is this product's price?" + "And its warranty?" is this product's, not Price's
    own = _POSSESSOR.search(previous)
    if own is not None and own.group("w").lower() not in _PRONOUN_WORDS and (
            anchor is None or set(words(anchor.label))
            <= set(words(" ".join(previous[own.end():].split()[:3])))):
        return f"{own.group('d') or ''}{own.group('w')}"
    if anchor is not None:
        return anchor.label
    if CJK.search(previous) and (subject := subject_zh(previous)):
        return subject  # TH2817B 的基本准确度是多少？ is about TH2817B
    m = _TOPIC.search(previous)
    # "vote on at the meeting": the phrase after the last preposition of a run, its period left
    # out; a period alone is no topic ("… at the end of 2019?": "its net sales" were 2019's)
    if m and (t := _PERIOD_TAIL.sub("", _LEAD_PREPOSITIONS.sub("", m.group("t"))).strip(" ,")):
        return t
    rest = _ASK_LEAD.sub("", _CONNECTIVE.sub("", previous)).rstrip("?？ ")
    # the rest may be a subject and its verb ("the K-200 not cover"): the one code it names
    # stands for it; else a short rest is the topic ("What is the warranty period?"), a longer
    # one none (the previous question is put before, rule 7). A new-user trial: "How often
    # should I descale it?" after "And what does the K-200 not cover?" was read "How often
    # should I descale And what does the K-200 not cover?", and not found.
    codes = [re.sub(r"['’]s$", "", w.strip(".,;:")) for w in rest.split()
             if is_code(w.strip(".,;:").lower())]  # "the K-200's warranty": the K-200
    if len(codes) == 1:
        return f"the {codes[0]}"
    if (name := one_name(previous)) is not None:
        return name  # "How many employees did Amazon have …?": Amazon
    # a clause with its own subject is no noun phrase: "How do I make a claim?" left "I make a
    # claim", and "How fast are they answered?" was read "How fast are I make a claim
    # answered?" (a new-user trial): the previous question is put before instead (rule 7)
    if _SUBJECT_PRONOUN.match(rest):
        return ""
    return rest if len(rest.split()) <= _TOPIC_WORDS else ""
