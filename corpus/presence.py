"""Does the answer's document hold what the question asks about? (issue 15, item 4)

Retrieval always returns *something*: asked for "the share as of March 31, 2017", "the gap in
2022" or the class of ``V3Det`` in a document that has none of them, both paths used to quote
the nearest look-alike passage as "found". The answerability check here is separate from
retrieval rank: the question's **specific terms** (:func:`specific_terms`: codes, years,
the periods' years, ``FY2018`` → ``2018``, dates, figure / table labels, dotted identifiers)
must occur somewhere in the document the answer quotes. A specific term the whole document
lacks means the document does not answer this question: the path says "not found" and names
the absent terms.

Only the document is asked, not the answer sentence: a table's year or unit often sits in its
header pages away from the row that answers, and a paraphrased question rarely repeats the
sentence's words. Names (capitalised words) are not checked: documents spell people and
organisations in too many ways (``J&J`` / ``Johnson & Johnson``) for absence to mean anything.

:class:`DocumentTermProbe` asks the index, one keyword query per term restricted to the
document, and remembers the result per ``(doc_id, term)`` (a ``doc_id`` is the document's
content hash, so the answer never goes stale): ``corpus.term_probe``. How each kind of term is
asked and written (years, dates, labels, dotted identifiers): ``corpus.term_forms``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence

from corpus.term_forms import YEAR, asked_dates, asked_dotted, asked_labels, holds_specific
from corpus.term_match import has_code_part, is_code, is_period
from corpus.term_probe import DocumentTermProbe, KnownTerms, TermSearch
from corpus.types import Chunk

__all__ = ["DocumentTermProbe", "KnownTerms", "TermSearch", "absent_terms", "named_acronyms",
           "specific_terms", "subject_acronyms", "unit_lacks"]

_DIGIT = re.compile(r"\d")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# a period written as one token: fy2023q1, q1fy2023, f2019, cy2022h1
_PERIOD_CODE = re.compile(r"^(?:fy|cy|f|y|q[1-4]|h[12])*((?:19|20)\d\d)(?:q[1-4]|h[12])?$")
_PERIOD_YEAR = re.compile(r"^(?:fy|cy|q[1-4]|h[12])'?(\d{2}|\d{4})$")


def specific_terms(key_terms: Iterable[str], question: str | None = None, *,
                   dates: bool = True) -> tuple[str, ...]:
    """The question's terms that pin down *which* fact it asks for: codes, years, labels, dates.

    - a code starts with a letter and holds a digit next to a letter or a number of two digits
      or more (``fw-301``, ``conll03``, ``v3det``, ``covid-19``); ``top-3`` is words, and
      digit-first compounds are no codes (``18-september`` from "July 18-September 30", ``3-5``
      a range, ``50-shot``: a document writes them in too many ways);
    - a period term gives its four-digit year (``fy2018``, ``fy2023q1``, ``f2019`` → the
      year); a bare period word (``q2``, ``fy``) or a two-digit year (``fy18``) is dropped;
    - a year is four digits 1900–2099 (``2022``); other numbers are not checked: a question
      carries constants of a formula ("DPO = 365 × …"), page numbers and values read off a
      picture ("GMT+13:00") that the text need not hold (both gave false refusals on the dev
      questions);
    - a numbered figure or table the question names (``Figure 7``, ``Fig. 3``, ``Table 2``,
      ``图7``, ``表3``; read from ``question``) gives the term ``figure 7`` / ``table 2`` /
      ``图 7`` / ``表 3``: a document with no Figure 7 does not answer "What is the title of
      Figure 7?". The document may write it ``Fig. 7``, ``FIGURE 7``, ``Table VII`` or
      ``Figure 7.2`` (:func:`absent_terms`);
    - a date the question pins its fact to, written with an English month name ("as of March
      31, 2017", "revised on May 2018", "Oct. 24, 2016", "31st March, 2007"; read from
      ``question``), gives ``march 31, 2017`` (with the day when it has one) or ``may 2018``:
      the document must write that month, day and year, in words or digits, the day first or
      the month first, with any spaces, commas and table rules between, a day range
      ("October 24-26, 2016") or a list of years ("May 31, 2019, 2018 and 2017"). "may" is a
      month only beside a day or a date preposition ("in May 2020", not "may 2019 rules");
    - a dotted identifier (``contact.meet``, ``mmdet.models.dense_heads``: parts of two
      characters or more, not a web domain or a file name) must be written as it stands.

    :param key_terms: the question's key terms in the tokenizer's normal form
        (``Tokenizer.key_terms``).
    :param question: the question in the same normal form; when given, a term must occur in it
        as written (a tokenizer reading ``31,2003`` as a thousands-separated number gives no
        term).
    :param dates: add the dates (``march 31, 2017``, ``may 2018``) and dotted identifiers
        (``contact.meet``) the question names; ``False``: codes, years and labels only (the
        answer-support features, fitted before dates were terms).
    :returns: the specific terms, deduplicated, in question order.
    """
    out: list[str] = []
    for t in key_terms:
        if not _DIGIT.search(t):
            continue
        m = _PERIOD_YEAR.match(t) or _PERIOD_CODE.match(t)
        if m:  # fy2018, q2'23, fy2023q1, f2019 (a typo of fy2019): the year alone
            term = m.group(1)
            if len(term) != 4:
                continue
        elif is_period(t) and not _NUMBER.fullmatch(t):  # 2022-05, q2: no single fact
            continue
        elif is_code(t) and t[0].isalpha() and has_code_part(t):
            term = t
        elif YEAR.fullmatch(t):
            term = t
        else:
            continue
        if question is None or holds_specific(term, question):
            out.append(term)
    if question is not None:
        if dates:
            out.extend(asked_dates(question))
        out.extend(asked_labels(question))
        if dates:
            out.extend(asked_dotted(question))
    return tuple(dict.fromkeys(out))


# an acronym as a question writes it: 3-8 capitals, a whole word ("HAQ", "LIWC", "HOVER")
_ACRONYM = re.compile(r"(?<![\w&'.-])[A-Z]{3,8}(?![\w&-])")
_CAPS_WORD = re.compile(r"[A-Z][A-Z&'.-]*")
# currencies a question asks its answer in ("in USD millions"): a unit, not a subject
_CURRENCIES = frozenset({"USD", "EUR", "GBP", "JPY", "CNY", "RMB", "CAD", "AUD", "CHF", "HKD",
                         "INR", "KRW", "SGD", "TWD"})
_ROMAN_CAPS = re.compile(r"^[IVXLC]+$")


def named_acronyms(question: str) -> tuple[str, ...]:
    """The acronyms ``question`` names as its subject, lower-cased, in question order: a
    whole word of 3–8 capitals (``HAQ``, ``LIWC``, ``HOVER``) that the document answering
    must write (checked like :func:`specific_terms`; a substring match: ``liwc`` in
    ``liwc-22``).

    Not an acronym here: a run of capitalised words (an all-caps question "WHAT IS THE LAST
    YEAR…", a name written in capitals "INF SERCRL LLP": the document may write it otherwise),
    a currency the answer is asked in (``USD``), a Roman numeral, and an acronym the question
    defines — "(DPO)", "DPO is defined as", "DPO =", "define DPO" — whose long form is what the
    document writes. Expansions a caller knows (``PPNE`` → "property, plant and equipment")
    are for the caller to drop.
    """
    text = unicodedata.normalize("NFKC", question)
    words = text.split()
    out: list[str] = []
    for m in _ACRONYM.finditer(text):
        acr = m.group()
        if acr in _CURRENCIES or _ROMAN_CAPS.match(acr):
            continue
        before, after = text[: m.start()].split(), text[m.end():].split()
        near = [w.strip("?,.;:!()\"'") for w in (before[-1:] + after[:1])]
        if any(len(w) > 1 and _CAPS_WORD.fullmatch(w) for w in near):
            continue  # a run of capitals
        defined = re.search(
            rf"\(\s*{acr}\s*\)|\b{acr}\s+(?:is|are)\s+defined|\b{acr}\s*[=:]|"
            rf"\bdefine[sd]?\s+(?:\w+\s+){{0,2}}{acr}\b|\b{acr}\s+stands\s+for", text, re.I)
        if defined is None:
            out.append(acr.lower())
    return tuple(dict.fromkeys(out)) if words else ()


def subject_acronyms(question: str, key_terms: Callable[[str], Sequence[str]],
                     phrases: Callable[[str], Sequence[str]] | None = None) -> list[str]:
    """The acronyms ``question`` names (:func:`named_acronyms`) that its answer's document
    must write: not a stopword (``key_terms("NOT")`` is empty), and not one the field
    vocabulary expands (``phrases("PPNE")`` → "property, plant and equipment": a filing
    writes the long form).

    :param key_terms: text → its key terms (``Tokenizer.key_terms``).
    :param phrases: text → its expansion phrases (``rag.expand.QueryExpander.phrases``);
        ``None``: none known.
    """
    return [a for a in named_acronyms(question)
            if key_terms(a) and not (phrases is not None and phrases(a))]


def absent_terms(terms: Sequence[str], texts: Iterable[str]) -> list[str]:
    """The ``terms`` that none of ``texts`` holds (``corpus.term_match.holds_term``: a year
    never inside a longer number, a code never inside a longer code; a year may end a date
    such as ``31.03.2001``).

    :param terms: normalised terms; ``texts``: normalised texts.
    :returns: the absent terms, in order (``[]``: every term occurs).
    """
    hay = "\n".join(texts)
    return [t for t in terms if not holds_specific(t, hay)]


def unit_lacks(
    terms: Sequence[str],
    unit: str,
    chunk: Chunk | None,
    doc_id: str,
    absent: Callable[[str, list[str]], list[str]],
    normalize: Callable[[str], str],
) -> list[str]:
    """The ``terms`` the document of an evidence unit lacks: those neither the unit nor its
    chunk (text, title, section path, path) holds are asked of ``absent(doc_id, terms)``
    (``DocumentTermProbe.absent`` bound to the collection; blocking, may raise).

    :param doc_id: the unit's document when ``chunk`` is ``None`` (else ``chunk.doc_id``).
    :param normalize: text → the terms' normal form.
    :returns: the absent terms, in order (``[]``: the document holds them all, or no document).
    """
    texts = [unit]
    if chunk is not None:
        texts += [chunk.text, chunk.title, " ".join(chunk.section_path), chunk.path]
        doc_id = chunk.doc_id
    ask = absent_terms(terms, [normalize("\n".join(texts))])
    return absent(doc_id, ask) if ask and doc_id else []
