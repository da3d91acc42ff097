"""Word classes of a question, for the follow-up tests (:mod:`gateway.routing.followup`,
:mod:`gateway.routing.reference`, :mod:`gateway.routing.elliptic`): its content words
(:func:`content_en`, :func:`content_zh`) and whether a demonstrative determines a noun of its
own (:func:`determiner`: "this product", 这个产品 — a deictic noun phrase, not a pronoun for an
earlier turn's subject).

A new-user trial asked "How long does it take for the refund to arrive?", then "What is this
product's price?", and the second was read as a follow-up ("this" a pronoun with nothing
before it) and rewritten "What is the refund to arrive product's price?". A demonstrative
before a noun names what the question is about, as "the K-200" does. English has no
part-of-speech model here: the noun is told from a verb or a predicate adjective by the word's
form, its place and two short word lists (:func:`determiner`); Chinese by jieba's tags. Pure.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import opencc
import rjieba

__all__ = ["CJK", "CLASSIFIER", "PRONOUNS_EN", "STOP_EN", "STOP_ZH", "WORD", "content_en",
           "content_zh", "determiner", "t2s"]

CJK = re.compile(r"[\u3400-\u9fff]")
#: a Latin-script word or number (codes, decimals and contractions kept whole)
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’&._-]*")
#: Chinese classifiers: 这 / 那 before one is a demonstrative (这个, 那份, 这款)
CLASSIFIER = "个些项条份台款种类本家部位名件颗只套张段章节篇"
#: English function words and question words: not content
STOP_EN = frozenset("""
a an the and or but also then plus so of for to in on at by with from into about as than
what when where which who whom whose why how is are was were be been being do does did done
has have had having can could may might must shall should will would there here not no yes
i me my we us our you your any some all each every much many more most less few other else
please tell give show explain describe list name exactly really ok okay sure just only same
one ones thing things kind
""".split())
#: English pronouns: not content either
PRONOUNS_EN = frozenset("it its it's they them their theirs this that these those he him his "
                        "she her hers the former the latter".split())
#: Chinese function characters: not content
STOP_ZH = frozenset("的了吗呢吧啊呀嘛是在有和与及或也都就还又而那这该其它们个些么什怎如何多少几哪"
                    "谁为请问将把被对从向于以之可能会要想")


#: predicate adjectives after "Is this …?" ("Is that true?"): the demonstrative is the subject
_PREDICATE = frozenset("true false right wrong correct incorrect possible impossible necessary "
                       "ok okay free valid invalid enough available mandatory optional same "
                       "different normal safe legal illegal final new old good bad".split())
#: verbs after "does this / can that …" ("Does that include VAT?"): the demonstrative is the
#: subject, not a determiner
_VERBS = frozenset("apply include cover mean work cost take happen matter change affect count "
                   "require need involve contain say hold last help exist differ refer relate "
                   "depend start begin end expire qualify allow mention cause come go get make "
                   "have show list state specify explain describe support pay charge "
                   "return ship run exceed replace extend override".split())
_FUNCTION = frozenset("to for in on at with from by of about into a an the my our your their "
                      "his her its any all some no this that these those".split())


def content_en(text: str) -> int:
    """English content words of ``text`` (stop words and pronouns not counted)."""
    return sum(w.lower().strip("'’._-") not in STOP_EN | PRONOUNS_EN
               for w in WORD.findall(text))


def content_zh(text: str) -> int:
    """Chinese content characters of ``text`` (a Latin word or number counts two)."""
    cjk = sum(ch not in STOP_ZH for ch in CJK.findall(text))
    return cjk + 2 * len(WORD.findall(text))  # a code or number in a Chinese question counts


@lru_cache(maxsize=1)
def t2s() -> Any:
    """OpenCC's Traditional → Simplified converter (jieba's dictionary is Simplified)."""
    return opencc.OpenCC("t2s")


def determiner(q: str, start: int, end: int) -> bool:
    """True when the demonstrative at ``q[start:end]`` determines a noun of its own — a
    deictic noun phrase that names what it asks about ("this product's price", "this kettle",
    这个产品, 这份合同的期限), not a pronoun standing for an earlier turn's subject ("Is that
    true?", "Does this apply to refunds?", 这个呢？, 那个多少钱？). English: this / that /
    these / those before a content word that is not a participle (-ed, -ing), a predicate
    adjective (:data:`_PREDICATE`) or, after an auxiliary ("does this …"), the verb (one of
    :data:`_VERBS`, or a word before a preposition, an article or the end); a possessive
    ("product's") always is a noun. Chinese: 这 / 那 with a classifier before a noun (jieba's
    tags; an adjective only before 的: 这份合同的). 该 stays anaphoric (该公司: the said
    company), and so does "it"."""
    word = q[start:end].lower()
    if CJK.search(word):
        if not re.fullmatch(rf"[这那][{CLASSIFIER}]", word):
            return False
        tags = rjieba.tag(t2s().convert(q[end:]))
        if not tags:
            return False
        tag = tags[0][1]
        return (tag.startswith("n") or tag in ("vn", "eng", "j", "l")) or (
            tag == "a" and len(tags) > 1 and tags[1][0] == "的")
    if word not in ("this", "that", "these", "those"):
        return False
    m = re.match(r"\s+([A-Za-z][A-Za-z0-9-]*)(['’]s\b)?(?:\s+([A-Za-z]+))?", q[end:])
    if m is None:
        return False
    noun, possessive, after = m.group(1).lower(), m.group(2), (m.group(3) or "").lower()
    if possessive:
        return True
    if (not content_en(noun) or noun in _PREDICATE
            or noun.endswith(("ed", "ing", "able", "ible"))):
        return False
    if re.search(r"\b(?:do|does|did|can|could|will|would|should|may|might|must|shall)\s*$",
                 q[:start], re.IGNORECASE):
        return noun not in _VERBS and bool(after) and after not in _FUNCTION
    return not re.match(r"\s*(?:is|are|was|were)\s*$", q[:start], re.IGNORECASE) or bool(after)
