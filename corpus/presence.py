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
content hash, so the answer never goes stale).
"""

from __future__ import annotations

import re
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from corpus.term_match import has_code_part, holds_term, is_code, is_period
from corpus.types import Chunk, SearchFilter, SearchHit, SparseVector

__all__ = ["DocumentTermProbe", "KnownTerms", "TermSearch", "absent_terms", "named_acronyms",
           "specific_terms", "subject_acronyms", "unit_lacks"]

_DIGIT = re.compile(r"\d")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_YEAR = re.compile(r"(?:19|20)\d\d")
_ANY_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
# a period written as one token: fy2023q1, q1fy2023, f2019, cy2022h1
_PERIOD_CODE = re.compile(r"^(?:fy|cy|f|y|q[1-4]|h[12])*((?:19|20)\d\d)(?:q[1-4]|h[12])?$")
_PERIOD_YEAR = re.compile(r"^(?:fy|cy|q[1-4]|h[12])'?(\d{2}|\d{4})$")
# a numbered figure or table the question names: "Figure 7", "Fig. 3", "Table 2", "图7", "表3"
# ("代表3种" is no table: a count word follows the number)
_LABEL_ASKED = re.compile(
    r"\b(?P<en>figure|fig\.|table)\s*(?P<n>\d{1,3})(?!\d|,\d)"
    r"|(?P<zh>[图圖表])\s*(?P<m>\d{1,3})(?!,\d)(?![\d个種种名位项項条條年月日天次件人元])")
# the term a label becomes, and how a document may write it (any case after normalising)
_LABEL_TERM = re.compile(r"^(figure|table|图|表) (\d{1,3})$")
_ROMAN = ("", "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii", "xiii",
          "xiv", "xv", "xvi", "xvii", "xviii", "xix", "xx")
_LABEL_WRITTEN = {"figure": r"\b(?:figure|fig\.?)", "table": r"\b(?:table|tab\.)",
                  "图": "[图圖]", "表": "表"}
# a date the question pins its fact to: "as of March 31, 2017", "revised on May 2018",
# "Oct. 24, 2016", "31st March, 2007" (English month names, full or abbreviated)
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")
_MONTH_WORD = (r"(?:january|february|march|april|may|june|july|august|september|october"
               r"|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)")
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_YR = r"(?:19|20)\d\d(?!\d)"
_DATE_ASKED = re.compile(
    rf"\b(?P<mon>{_MONTH_WORD})\b\.?\s*(?:(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s*,?\s*)?,?\s+"
    rf"(?P<y>{_YR})"
    rf"|\b(?P<day2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon2>{_MONTH_WORD})\b\.?\s*,?\s*"
    rf"(?P<y2>{_YR})", re.I)
# how a document writes a date: a month name and the year, whatever spaces, commas, dots and
# table rules stand between ("May 2016", "March 31,\n \n2017", "May 31, 2019, 2018 and
# 2017"); a month and a day (or a range of days: "October 24-26, 2016"), the day first or not
# ("31st March, 2007", "31-Dec-2019"), with every year written in the next _DATE_REACH
# characters (a table's header row of dates above its row of years: "| December 31, |
# December 31, |" then "| 2018 | 2017 |"); or in digits (03/31/2017, 31.03.2017, 2017-03-31)
_SEP = r"[^\w]{0,12}"
_DATE_REACH = 160
_DATE_WRITTEN = re.compile(
    rf"\b(?P<mon>{_MONTH_WORD})\b\.?(?:{_SEP}(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?!\d)"
    rf"(?:\s*[-–—]\s*(?P<d_end>\d{{1,2}})(?!\d))?)?"
    rf"|(?<![\d.])(?P<d0>\d{{1,2}})(?:st|nd|rd|th)?[\s,.-]{{1,3}}(?:of\s+)?(?P<mon0>{_MONTH_WORD})\b"
    rf"|(?<![\d.])(?P<a>\d{{1,2}})[./-](?P<b>\d{{1,2}})[./-](?P<y2>{_YR})"
    rf"|(?<!\d)(?P<y3>(?:19|20)\d\d)[./-](?P<m3>\d{{1,2}})(?!\d)(?:[./-](?P<d3>\d{{1,2}})(?!\d))?",
    re.I)
# the year (and the years listed after it) right after a month written without a day
_YEAR_NEXT = re.compile(rf"{_SEP}(?P<y>{_YR})(?P<more>(?:\s*(?:,|and|&|or)\s*{_YR})*)")
# the term of a date: "march 2017" (month and year), "march 31, 2017" (with the day)
_DATE_TERM = re.compile(r"^(" + "|".join(_MONTHS) + r")(?: (\d{1,2}),)? ((?:19|20)\d\d)$")
# a dotted identifier the question names: a label or an API path ("Contact.Meet",
# "mmdet.models.dense_heads"); parts of two characters or more (no initials "G.W.Bush", no
# "e.g."), not a web domain or a file name ("GitLab.com", "report.pdf")
_DOTTED = re.compile(r"(?<![\w.@/])[a-z][a-z0-9_]+(?:\.[a-z_][a-z0-9_]+)+(?![\w@/]|\.\w)")
_NOT_DOTTED = re.compile(r"\.(?:com|org|net|io|gov|edu|co|uk|cn|de|ai|app|dev|info|biz|us|jp"
                         r"|md|pdf|txt|html?|docx?|xlsx?|csv|json|ya?ml|py|js|png|jpe?g)$")


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
        elif _YEAR.fullmatch(t):
            term = t
        else:
            continue
        if question is None or _holds(term, question):
            out.append(term)
    if question is not None:
        if dates:
            out.extend(_dates(question))
        out.extend(_labels(question))
        if dates:
            out.extend(_dotted(question))
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


def _labels(question: str) -> list[str]:
    """The numbered figures and tables ``question`` names, as terms (``figure 7``, ``表 3``)."""
    out = []
    for m in _LABEL_ASKED.finditer(question):
        if m.group("en"):
            kind = "figure" if m.group("en").startswith("fig") else "table"
            out.append(f"{kind} {int(m.group('n'))}")
        else:
            out.append(f"{'表' if m.group('zh') == '表' else '图'} {int(m.group('m'))}")
    return [t for t in out if not t.endswith(" 0")]


def _month(word: str) -> str:
    """The full month name of a month word (``sept.`` → ``september``)."""
    return _MONTHS[[m[:3] for m in _MONTHS].index(word.lower()[:3])]


# "may" is a month where a date preposition or a day stands by it, not the verb ("which
# companies may 2019 rules affect")
_MAY_DATE = re.compile(r"(?:\b(?:on|in|of|since|by|from|until|till|to|before|after|through|"
                       r"during|dated|ended|ending|end|early|late|mid|as\s+at)\s+)$", re.I)


def _dates(question: str) -> list[str]:
    """The date terms ``question`` pins its fact to: ``as of March 31, 2017`` → ``march 31,
    2017``; ``revised on May 2018`` → ``may 2018``; ``July 18-September 30, 2013`` →
    ``september 30, 2013``."""
    out = []
    for m in _DATE_ASKED.finditer(question):
        mon, year = m.group("mon") or m.group("mon2"), m.group("y") or m.group("y2")
        day = m.group("day") or m.group("day2")
        if (m.group("mon") and mon.lower() == "may" and not day
                and not _MAY_DATE.search(question[: m.start()])):
            continue
        out.append(_date_term(_month(mon), int(day) if day else 0, year))
    return out


def _date_term(month: str, day: int, year: str) -> str:
    return f"{month} {day}, {year}" if 1 <= day <= 31 else f"{month} {year}"


def _written_dates(text: str) -> set[str]:
    """The date terms a ``text`` writes, in words or digits, each with and without its day
    (``march 31, 2017`` and ``march 2017``; a digit date whose month and day could be either
    way round gives both)."""
    out: set[str] = set()

    def add(month: int, days: Iterable[int], years: Iterable[str]) -> None:
        if 1 <= month <= 12:
            for y in years:
                out.add(_date_term(_MONTHS[month - 1], 0, y))
                out.update(_date_term(_MONTHS[month - 1], d, y) for d in days)

    for m in _DATE_WRITTEN.finditer(text):
        if m.group("mon0") or (m.group("mon") and m.group("d")):
            # a month and a day: every year written close after it
            mon, d = (m.group("mon0"), m.group("d0")) if m.group("mon0") else (
                m.group("mon"), m.group("d"))
            first = int(d)
            days = range(first, max(first, int(m.group("d_end") or 0)) + 1)
            years = _ANY_YEAR.findall(text, m.end(), m.end() + _DATE_REACH)
            add(_MONTHS.index(_month(mon)) + 1, days, years)
        elif m.group("mon"):
            nxt = _YEAR_NEXT.match(text, m.end())
            if nxt:
                add(_MONTHS.index(_month(m.group("mon"))) + 1, [],
                    [nxt.group("y"), *_ANY_YEAR.findall(nxt.group("more"))])
        elif m.group("y2"):
            a, b = int(m.group("a")), int(m.group("b"))
            add(a, [b], [m.group("y2")])
            add(b, [a], [m.group("y2")])
        else:
            add(int(m.group("m3")), [int(m.group("d3") or 0)], [m.group("y3")])
    return out


def _dotted(question: str) -> list[str]:
    """The dotted identifiers ``question`` (normalised) names (``contact.meet``)."""
    return [m.group() for m in _DOTTED.finditer(question) if not _NOT_DOTTED.search(m.group())]


def _holds(term: str, text: str) -> bool:
    """``holds_term``, except that a year may follow a date's dot or comma (``31.03.2001``,
    ``March 31,2003``) where a number may not (``1.2001`` is another number for
    ``holds_term``)."""
    if _YEAR.fullmatch(term):
        return re.search(rf"(?<!\d){term}(?!\d)", text) is not None
    date = _DATE_TERM.match(term)
    if date:
        return date.group(3) in text and term in _written_dates(text)
    label = _LABEL_TERM.match(term)
    if label:
        kind, n = label.group(1), int(label.group(2))
        roman = n < len(_ROMAN) and kind in ("figure", "table")
        num = rf"(?:{n}|{_ROMAN[n]}\b)" if roman else str(n)
        return re.search(rf"{_LABEL_WRITTEN[kind]}\s*{num}(?!\d)", text) is not None
    return holds_term(term, text)


def absent_terms(terms: Sequence[str], texts: Iterable[str]) -> list[str]:
    """The ``terms`` that none of ``texts`` holds (``corpus.term_match.holds_term``: a year
    never inside a longer number, a code never inside a longer code; a year may end a date
    such as ``31.03.2001``).

    :param terms: normalised terms; ``texts``: normalised texts.
    :returns: the absent terms, in order (``[]``: every term occurs).
    """
    hay = "\n".join(texts)
    return [t for t in terms if not _holds(t, hay)]


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


_LABEL_IN_TEXT = re.compile(
    r"\b(figure|fig\.?|table|tab\.)\s*(\d{1,3}(?!\d)|[ivx]{1,5}\b)|([图圖表])\s*(\d{1,3})(?!\d)")


def _written_labels(text: str) -> set[str]:
    """The figure / table labels a normalised ``text`` writes, as :func:`specific_terms`
    terms (``Fig. 7`` and ``FIGURE VII`` → ``figure 7``; ``图 3`` → ``图 3``)."""
    out = set()
    for m in _LABEL_IN_TEXT.finditer(text):
        if m.group(1):
            kind = "figure" if m.group(1).startswith("fig") else "table"
            num = m.group(2)
            n = int(num) if num.isdigit() else (_ROMAN.index(num) if num in _ROMAN else 0)
            out.add(f"{kind} {n}")
        else:
            out.add(f"{'表' if m.group(3) == '表' else '图'} {int(m.group(4))}")
    return out


def _chunk_text(c: Chunk) -> str:
    return f"{c.title}\n{' '.join(c.section_path)}\n{c.text}"


class TermSearch(Protocol):
    """The store call the probe needs (``corpus.qdrant_store.QdrantChunkStore.keyword_search``)."""

    def keyword_search(
        self, collection: str, query: SparseVector, top_k: int, flt: SearchFilter | None = None
    ) -> list[SearchHit]: ...


class KnownTerms:
    """``(doc_id, term) -> held`` answers remembered, least recently used dropped past ``size``
    (a ``doc_id`` is a content hash: an answer never goes stale)."""

    def __init__(self, size: int) -> None:
        self._known: OrderedDict[tuple[str, str], bool] = OrderedDict()
        self._size = size

    def __contains__(self, key: object) -> bool:
        return key in self._known

    def get(self, key: tuple[str, str]) -> bool | None:
        """The remembered answer (now the most recently used), or ``None``."""
        if key not in self._known:
            return None
        self._known.move_to_end(key)
        return self._known[key]

    def put(self, key: tuple[str, str], held: bool) -> bool:
        """Remember ``held`` for ``key``; returns it."""
        self._known[key] = held
        if len(self._known) > self._size:
            self._known.popitem(last=False)
        return held

    def answer(self, doc_id: str, term: str, query_of: Callable[[str], SparseVector],
               search: Callable[[SparseVector], bool]) -> bool:
        """Whether ``doc_id`` holds ``term``: remembered, else ``search`` of the term's keyword
        query (remembered); ``True`` without asking when the query is empty (nothing to look
        for). Whatever ``search`` raises propagates."""
        known = self.get((doc_id, term))
        if known is not None:
            return known
        query = query_of(term)
        if query.is_empty():
            return True
        return self.put((doc_id, term), search(query))


class DocumentTermProbe:
    """Which specific terms a document lacks, asked of the keyword index.

    Usage example::

        probe = DocumentTermProbe(store, tokenizer.sparse_query, tokenizer.normalize)
        probe.absent("manuals", doc_id, ["2022", "fw-301"])   # -> ["2022"] when never written

    One BM25 query per term not yet known, restricted to the document, ``top_k`` hits whose
    chunk text, title and section path are checked with ``holds_term`` (the sparse query
    splits ``50-shot`` into its index terms, so a hit is not yet an occurrence). A year the
    keyword index cannot see on its own — inside one token such as ``31.03.2001`` or
    ``fy2001`` — is looked up in the document's years, read once from all its chunks.

    :param store: anything with ``keyword_search`` (:class:`TermSearch`).
    :param sparse_query: text → BM25 query vector (``Tokenizer.sparse_query``).
    :param normalize: text → the key terms' normal form (``Tokenizer.normalize``).
    :param top_k: hits checked per term (1..100).
    :param cache_size: ``(doc_id, term)`` answers remembered (LRU).
    """

    def __init__(
        self,
        store: TermSearch,
        sparse_query: Callable[[str], SparseVector],
        normalize: Callable[[str], str],
        *,
        top_k: int = 20,
        cache_size: int = 4096,
    ) -> None:
        self.store = store
        self.sparse_query = sparse_query
        self.normalize = normalize
        self.top_k = max(1, min(100, top_k))
        self._known = KnownTerms(cache_size)
        self._doc_marks: OrderedDict[str, frozenset[str]] = OrderedDict()

    def holds(self, collection: str, doc_id: str, term: str) -> bool:
        """True when some chunk of ``doc_id`` holds ``term`` (an empty query: ``True``)."""

        def search(query: SparseVector) -> bool:
            hits = self.store.keyword_search(
                collection, query, self.top_k, SearchFilter(doc_ids=(doc_id,))
            )
            found = any(_holds(term, self.normalize(_chunk_text(h.chunk))) for h in hits)
            if not found and (_YEAR.fullmatch(term) or _LABEL_TERM.match(term)
                              or _DATE_TERM.match(term) or _DOTTED.fullmatch(term)):
                # a year inside one index token ("31.03.2001", "fy2001") is no BM25 term; a
                # label's number is in too many chunks for the top hits to hold the caption;
                # a date or a dotted identifier is several index terms
                found = term in self._marks(collection, doc_id)
            return found

        return self._known.answer(doc_id, term, self.sparse_query, search)

    def _marks(self, collection: str, doc_id: str) -> frozenset[str]:
        """Every four-digit year (1900–2099) and every figure / table label (as the terms of
        :func:`specific_terms`: ``figure 7``, ``表 3``) the document writes, read once from its
        chunks (``document_chunks``) and remembered per ``doc_id``; empty when the store cannot
        list a document's chunks."""
        if doc_id in self._doc_marks:
            return self._doc_marks[doc_id]
        list_chunks = getattr(self.store, "document_chunks", None)
        chunks = list_chunks(collection, doc_id) if callable(list_chunks) else []
        texts = [_chunk_text(c) for c in chunks]
        marks = {m.group() for t in texts for m in _ANY_YEAR.finditer(t)}
        whole = self.normalize("\n".join(texts))
        marks.update(_written_labels(whole))
        marks.update(_written_dates(whole))
        marks.update(m.group() for m in _DOTTED.finditer(whole))
        self._doc_marks[doc_id] = frozenset(marks)
        if len(self._doc_marks) > 256:
            self._doc_marks.popitem(last=False)
        return self._doc_marks[doc_id]

    def absent(self, collection: str, doc_id: str, terms: Sequence[str]) -> list[str]:
        """The ``terms`` no chunk of ``doc_id`` holds, in order.

        :raises Exception: whatever the store raises (callers run this under a timeout and
            keep the answer, flagged, when it fails).
        """
        return [t for t in terms if not self.holds(collection, doc_id, t)]
