"""English words of a question as CC-CEDICT glosses (:mod:`gateway.conversation.crosslang`):
runs of content words (:func:`english_units`), the forms of a word to look up
(:func:`word_forms`: singular, American spelling, the base of ``-ed`` / ``-ing``), the glossed
runs of one to three words (:func:`spans_en`) and the codes of letters and digits a question
carries as they are (:func:`codes`). Regular English morphology only, no model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["STOP_WORDS", "Span", "american", "candidates_en", "codes", "content_words",
           "english_units", "spans_en", "split_words", "word_forms"]

#: English function words: never a key term, never a file-name match
STOP_WORDS = frozenset(
    "a an the of for in on at to and or is are was were be been what which who whom how does do "
    "did can could may might must should would will shall with by from that this these those it "
    "its as about into than then there their them they i me my we our you your he she his her "
    "any each many much more most some such per if when where whether not no yes one get got "
    "make made let want used use using under over after before once ever since so-called times "
    "both either neither also only just very still".split()
)
_EN_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'-]*")


_BRITISH = ((re.compile(r"our(s?)$"), r"or\1"), (re.compile(r"our(?=[a-z])"), "or"),
            (re.compile(r"tre(s?)$"), r"ter\1"), (re.compile(r"is(e|es|ed|ing|ation|ations)$"),
                                                   r"iz\1"),
            (re.compile(r"ys(e|es|ed|ing)$"), r"yz\1"), (re.compile(r"ogue$"), "og"))


def american(word: str) -> str:
    """``word`` in American spelling (CC-CEDICT's): labour → labor, metres → meters,
    centre → center, organise → organize, analyse → analyze, catalogue → catalog; other
    words as they are."""
    if len(word) <= 4:
        return word
    for pat, rep in _BRITISH:
        us = pat.sub(rep, word)
        if us != word:
            return us
    return word


def word_forms(word: str) -> list[str]:
    """Forms of an English ``word`` to look up: the word (after its singular when it is a
    plural), its American spelling (labour → labor, metre → meter, organise → organize), then
    the base of an ``-ed`` / ``-ing`` form (issued → issue, operating → operate, keeping → keep).
    Regular English morphology only; a form that is no gloss finds nothing."""
    forms: list[str] = []
    for w in dict.fromkeys([word, american(word)]):
        forms.extend(_singulars(w)[::-1])  # singular first: "logs" is 日志 before 原木
        if w.endswith("ed") and len(w) > 4:
            forms.extend([w[:-1], w[:-2]])
            if len(w) > 5 and w[-3] == w[-4]:
                forms.append(w[:-3])  # stopped → stop
            if w.endswith("ied"):
                forms.append(w[:-3] + "y")
        if w.endswith("ing") and len(w) > 5:
            forms.extend([w[:-3], w[:-3] + "e"])
            if w[-4] == w[-5]:
                forms.append(w[:-4])
    return list(dict.fromkeys(forms))


def _singulars(word: str) -> list[str]:
    out = [word]
    if word.endswith("ies") and len(word) > 4:
        out.append(word[:-3] + "y")
    if word.endswith("es") and len(word) > 3:
        out.append(word[:-2])
    if word.endswith("s") and len(word) > 3 and not word.endswith("ss"):
        out.append(word[:-1])
    return out


def english_units(question: str) -> list[list[str]]:
    """Runs of content words of ``question`` (lower case), split at stop words and at codes
    (a token holding a digit, TH2817B, is no English word: it stays in the question as is).
    A hyphenated word is split (wake-up → wake up) unless it is one gloss (wi-fi)."""
    runs: list[list[str]] = [[]]
    for w in _EN_TOKEN.findall(question):
        lw = w.lower().strip("'-")
        if any(ch.isdigit() for ch in lw) or lw in STOP_WORDS or len(lw) < 2:
            runs.append([])
        else:
            runs[-1].append(lw)
    return [r for r in runs if r]


def candidates_en(question: str, index: dict[str, list[str]]) -> list[tuple[str, list[str]]]:
    """``(english unit, chinese headwords)`` for the longest glossed runs of 3, 2, 1 words
    (the first choice of :func:`spans_en`; kept for callers that want one reading)."""
    out: list[tuple[str, list[str]]] = []
    taken: set[tuple[int, int]] = set()
    for span in spans_en(question, index):
        cells = {(span.run, i) for i in range(span.start, span.start + span.size)}
        if cells & taken:
            continue
        taken |= cells
        out.append((span.unit, list(span.heads)))
    return out


def split_words(run: list[str], index: dict[str, list[str]]) -> list[str]:
    """A run's words, a hyphenated one that is no gloss read as its parts (wake-up)."""
    words: list[str] = []
    for w in run:
        if "-" in w and w not in index:
            words.extend(p for p in w.split("-") if len(p) > 1)
        else:
            words.append(w)
    return words


_CODE = re.compile(r"(?<![A-Za-z0-9])(?=[A-Za-z0-9./-]*\d)(?=[A-Za-z0-9./-]*[A-Za-z])"
                   r"[A-Za-z0-9][A-Za-z0-9./-]{2,}")


def codes(question: str) -> list[str]:
    """The question's codes of letters and digits (TH2817B, ESP32-PICO-D4, CH583): they name a
    document in any language."""
    return list(dict.fromkeys(m.group(0).strip("./-") for m in _CODE.finditer(question)))


def content_words(question: str) -> list[str]:
    """The question's words (lower case) that are neither stop words nor hold a digit."""
    out: list[str] = []
    for w in _EN_TOKEN.findall(question):
        lw = w.lower()
        if lw in STOP_WORDS or any(ch.isdigit() for ch in lw):
            continue
        out.append(lw)
    return out


@dataclass(frozen=True, slots=True)
class Span:
    """A glossed run of ``size`` content words at ``start`` of run ``run`` of the question."""

    run: int
    start: int
    size: int
    unit: str
    heads: tuple[str, ...]


def spans_en(question: str, index: dict[str, list[str]]) -> list[Span]:
    """Every run of 3, 2 or 1 content words of ``question`` that is a gloss (longest first,
    then in question order): the last word in each of its :func:`word_forms`, the first
    match's headwords before the others'; a hyphenated word is also read as its parts."""
    out: list[Span] = []
    for r, run in enumerate(english_units(question)):
        words = split_words(run, index)
        for n in (3, 2, 1):
            for i in range(len(words) - n + 1):
                heads_as = [words[i:i + n - 1]]
                us = [american(h) for h in heads_as[0]]
                if us != heads_as[0]:
                    heads_as.append(us)
                forms = [" ".join([*h, f]) for h in heads_as for f in word_forms(words[i + n - 1])]
                hits = [f for f in dict.fromkeys(forms) if f in index]
                if hits:
                    heads = tuple(dict.fromkeys(h for f in hits for h in index[f]))
                    out.append(Span(r, i, n, hits[0], heads))
    return out
