"""The names a question asks about, which the answer's document must write (issue 15 item 4).

"How many employees does the Paris office have?" over a collection whose only office page
names Tokyo and Berlin was answered "The Berlin office has 25 employees." at confidence 1.0: two
of the three key terms match, the one that says *which* office does not, and neither the
coverage nor the retrieval confidence can tell. A name the question capitalises that no chunk of
the whole collection matches (``corpus.term_probe.DocumentTermProbe.in_collection``) says the
collection has nothing on what is asked: the document the answer quotes must hold it, like a
code or a year (``corpus.presence``), and cannot. A name the collection holds somewhere is not
asked of the answer's document: concept words capitalised in a question ("the 'Expansion'
stage", "the Security division") are often written only in a picture of the cited page or in
another form (GitLab dev questions lost seven right answers when every name was asked of it).

A name here is a word written with a capital and then small letters (``Paris``, ``Netflix``)
that is a key term by itself (not a stopword or a question word), not opening the question or a
sentence of it, in a question that is not title-cased (a capitalised stopword after its first
word: "How Many Employees Work In Tokyo?" says nothing by its capitals). Asking names of two
words or more ("Orion Consulting") of the answer's document whatever the collection holds was
tried and dropped: it refused five right dev answers naming metrics and titles in title case
("Interest Expense to Average Long-Term Debt", "Chief Product Officer"). Acronyms and mixed
case (``AMEX``, ``JnJ``, ``PepsiCo``) are not names here: ``corpus.presence.subject_acronyms``
and the spelling variants of organisations make absence mean too little.

A name is asked only where the cited unit writes a rival in its place: another capitalised
word before the word that follows the name in the question ("The Berlin office" for "the Paris
office"), else after the word before it. A name with no rival in the unit is a setting the
passage may leave unsaid (a chat page that never writes "Slack" answers "Which prefix do
Location Channels use in Slack?").

Three readings keep a name from being asked of a document (:func:`checked_names`):

- a misspelling: a name of :data:`MIN_TYPO_LEN` letters or more one edit (rapidfuzz
  Damerau-Levenshtein) from a capitalised word of the cited unit's chunk (its text, title,
  section path, file name) is that word misspelt ("Netfilx", "Neflix" in MMLongBench-Doc dev
  questions about Netflix's 10-K; ``rag.resolve`` reads issuer names so too);
- a missing space: a word the collection holds with a short function word glued to it;
- another script: an English question answered from a Chinese passage (cross-language,
  ``corpus.scripts``) need not find its English names written there.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from corpus.scripts import other_script, script_share
from corpus.term_match import one_edit_from
from corpus.types import Chunk

__all__ = ["MIN_TYPO_LEN", "asked_names", "checked_names"]

_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")
_NAME = re.compile(r"[A-Z][a-z]{2,}")
_SENTENCE_END = re.compile(r"[.?!:;]\s*[\"'‘“(]*$")
_CAPITALISED = re.compile(r"\b[A-Z][A-Za-z]*")
#: shortest name read as a misspelling of a word one edit away: five letters are one edit from
#: too many words ("Paris" / "parts"); design value, as ``rag.resolve``'s issuer typos
MIN_TYPO_LEN = 6
#: the short words a missing space glues to a name (:func:`_glued`)
_GLUE = ("the", "for", "and", "of", "in", "on", "at", "to", "by", "or")


def asked_names(question: str, key_terms: Callable[[str], Sequence[str]]) -> list[str]:
    """The names ``question`` asks about (module doc), lower-cased, in order, each once.

    :param key_terms: text → its key terms (``Tokenizer.key_terms``): a name has one.
    :returns: ``[]`` when there is none, or when the question is title-cased (a stopword after
        its first word capitalised: "How Many Employees Work In Tokyo?").
    """
    words = _WORD.findall(question)[1:]  # the first word is capitalised anyway
    if any(w[0].isupper() and not key_terms(w) for w in words):
        return []  # "How Many Employees Work In Tokyo?": title case, its capitals say nothing
    out: list[str] = []
    for m in _WORD.finditer(question):
        word = m.group().rstrip("'’").removesuffix("'s").removesuffix("’s")
        before = question[: m.start()]
        if (not _NAME.fullmatch(word) or not before.strip() or _SENTENCE_END.search(before)
                or not key_terms(word)):
            continue
        out.append(word.lower())
    return list(dict.fromkeys(out))


def checked_names(names: Sequence[str], question: str, unit: str, chunk: Chunk | None,
                  in_collection: Callable[[str], bool]) -> list[str]:
    """Of ``names`` (:func:`asked_names`), those the document of an answer unit must hold and
    cannot: the names no chunk of the collection matches (``in_collection`` false) and for which
    ``unit`` writes a rival (module doc), none when
    the unit (with its chunk) is in another script than the question, and never a name written
    misspelt or glued to a short word (module doc).

    :param unit: the evidence unit quoted; ``chunk``: its chunk (``None``: the unit alone).
    :param in_collection: term → whether some chunk of the collection matches it
        (``DocumentTermProbe.in_collection`` bound to the collection; blocking, may raise).
    """
    rivalled = [n for n in names if _rival(n, question, unit)]  # a regex: before any I/O
    if not rivalled:
        return []
    head = (chunk.title, " ".join(chunk.section_path), chunk.path) if chunk is not None else ()
    context = "\n".join((*head, chunk.text if chunk is not None else "", unit))
    if other_script(script_share(question), script_share(context)):
        return []
    written = {w.lower() for w in _CAPITALISED.findall(context.replace("_", " "))}
    written |= {w.lower() for w in re.split(r"[^A-Za-z]+", head[2] if head else "") if w}
    return [n for n in rivalled if not in_collection(n) and not (
        len(n) >= MIN_TYPO_LEN and (one_edit_from(n, written) or _glued(n, in_collection)))]


def _rival(name: str, question: str, unit: str) -> str | None:
    """The other name ``unit`` writes where ``question`` writes ``name``: before the word that
    follows the name in the question ("the Paris office" / "The Berlin office has 25
    employees."), else after the word before it ("in Paris" / "in Berlin"); ``None`` when it
    writes none (the name is then a setting the passage may leave unsaid: "Which prefix do
    Location Channels use in Slack?" over a chat page that never writes Slack)."""
    m = re.search(rf"\b{re.escape(name)}(?:['’]s)?\b(?:\s+([A-Za-z]+))?", question, re.IGNORECASE)
    if m is None:
        return None
    after = m.group(1)
    before = re.findall(r"([A-Za-z]+)\s+$", question[: m.start()])
    if after:
        pattern = rf"\b([A-Z][A-Za-z]+)\s+(?i:{re.escape(after)})\b"
    elif before:
        pattern = rf"\b(?i:{re.escape(before[0])})\s+([A-Z][A-Za-z]+)\b"
    else:
        return None
    return next((r for r in re.findall(pattern, unit) if r.lower() != name), None)


def _glued(name: str, in_collection: Callable[[str], bool]) -> bool:
    """``name`` is a word the collection holds written together with a short function word
    (:data:`_GLUE`) before or after it: a space left out ("Liabilitiesfor" in an
    MMLongBench-Doc dev question)."""
    for w in _GLUE:
        if len(name) - len(w) < 4:
            continue
        if name.endswith(w) and in_collection(name[: -len(w)]):
            return True
        if name.startswith(w) and in_collection(name[len(w):]):
            return True
    return False
