"""Document profiles: what a document is, read from its first pages — the document-level index.

A question that names an organisation and a period ("What is 3M's FY2018 capital expenditure?")
should be answered from that organisation's filing for that period, not from the dozen other
filings that share its vocabulary (FinanceBench's authors measured 19 % correct with one shared
vector store against 50 % per document; issue 15). The profile holds what identifies a document:

- ``identity``: the file name's words, the title, the organisation and the head of the first
  page (cover pages name the issuer, the form and the period);
- ``organisation``: the issuer when the cover states one (SEC forms: the line above "(Exact name
  of registrant …)"; press releases: "Name (NYSE: TICK)"; Chinese: "…有限公司" / "…委员会");
- ``doc_type``: the form (``10-K``, ``10-Q``, ``8-K``, ``earnings``) or a generic kind
  (``law``, ``standard``, ``contract``, ``datasheet``, ``manual``), ``""`` when unknown;
- ``years``: the period years — years in the file name and years the cover ties to a period
  ("fiscal year ended December 31, 2018", "Quarterly Period Ended …", "Date of Report …"),
  most specific first; other years on the cover (notes due 2026 …) are not periods;
- ``language`` (``zh`` / ``en``) and ``summary`` (the lead of the first page, ≤ 300 characters).

Profiles are built from chunks, so they are written at ingest (``Catalogue.commit_document``)
and rebuilt for older entries from the stored chunks (``Catalogue.profiles``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from corpus.types import Chunk, DocumentInfo, ListFieldsRecord

__all__ = ["COVER_CHARS", "PROFILE_VERSION", "DocumentProfile", "build_profile", "cover_chunks"]

PROFILE_VERSION = 2
"""Bumped when :func:`build_profile` reads covers differently; older stored profiles are
rebuilt from the stored chunks (``Catalogue.profiles``)."""

COVER_CHARS = 1500
"""Characters of the document's first chunks (pages 1–2) read as its cover."""

_IDENTITY_HEAD = 600  # characters of the cover that enter ``identity``

_YEAR = r"(?:19[5-9]\d|20\d\d)"
_QUARTER = r"(?:full[- ]year|(?:first|second|third|fourth)[- ]quarter)"
_PERIOD_RE = re.compile(
    r"(?:fiscal\s+year|year|quarter(?:ly)?\s+period|period|quarter)\s+ended\s+[^\n]{0,40}?"
    rf"({_YEAR})"
    rf"|date\s+of\s+report[^\n]{{0,80}}?({_YEAR})"
    rf"|{_QUARTER}\s+({_YEAR})"
    rf"|({_YEAR})\s+(?:{_QUARTER}|annual\s+report)"
    rf"|({_YEAR})\s*年(?:度|年报|年度报告)?"
    rf"|fy\s*({_YEAR})",
    re.IGNORECASE,
)
_YEAR_RE = re.compile(rf"(?<!\d)({_YEAR})(?!\d)")
_SEC_NAME_RE = re.compile(
    r"\n\s*([^\n]{2,80}?)\s*\n\s*\(\s*exact\s+name\s+of\s+registrant", re.IGNORECASE
)
_FILE_NO_RE = re.compile(
    r"commission\s+file\s+n(?:o\.|umber)[^\n]*\n(?:\s*\n)*\s*([^\n(]{2,80}?)\s*\n", re.IGNORECASE
)
_TICKER_RE = re.compile(
    r"([A-Z][\w&.,' -]{1,60}?)\s*\(\s*(?:NYSE|NASDAQ|Nasdaq|NYSE American|ASX|LSE)\s*:",
    re.M,
)
_SYMBOL_INLINE_RE = re.compile(
    r"\(\s*(?:NYSE|NASDAQ|Nasdaq|NYSE American)\s*:\s*([A-Z.]{1,6})\s*\)"
)
_NOT_SYMBOL = frozenset({"NYSE", "NONE", "OR", "THE", "LLC", "PLC", "INC", "CO", "N/A", "A", "I"})
_ZH_ORG_RE = re.compile(
    r"([\u4e00-\u9fff（）()]{2,30}?(?:有限公司|股份公司|委员会|人民政府|研究院|协会|集团))"
)
_FORMS = (
    (re.compile(r"\bform\s+10-?k\b|\b10-?k\b", re.I), "10-K"),
    (re.compile(r"\bform\s+10-?q\b|\b10-?q\b", re.I), "10-Q"),
    (re.compile(r"\bform\s+8-?k\b|\b8-?k\b", re.I), "8-K"),
    (
        re.compile(
            r"earnings|for immediate release|results for (?:the )?(?:fourth|first|second|third)",
            re.I,
        ),
        "earnings",
    ),
    (re.compile(r"中华人民共和国[^\n]{0,20}法|第[一二三四五六七八九十百]+条"), "law"),
    (re.compile(r"\b(?:GB|DB\d*|ISO|IEC)[/ ]?T?\s?\d{2,}|地方标准|国家标准"), "standard"),
    (re.compile(r"合同|协议书|\bagreement\b|\bcontract\b", re.I), "contract"),
    (re.compile(r"datasheet|技术规格书|规格书|数据手册", re.I), "datasheet"),
    (re.compile(r"\bmanual\b|\bguide\b|手册|说明书", re.I), "manual"),
)
_STEM_SPLIT = re.compile(r"[_\-.\s]+|(?<=[a-z])(?=[A-Z])")


@dataclass(frozen=True)
class DocumentProfile(ListFieldsRecord):
    """One document's entry in the document-level index (see the module docstring).

    :param doc_id: the document's sha256 (as ``DocumentInfo.doc_id``).
    :param path: path relative to the collection root.
    :param title: document title.
    :param organisation: issuer / author organisation, ``""`` when the cover names none.
    :param doc_type: form or kind (``10-K``, ``10-Q``, ``8-K``, ``earnings``, ``law``,
        ``standard``, ``contract``, ``datasheet``, ``manual``) or ``""``.
    :param years: period years, most specific first (file name, then the cover's period phrases).
    :param language: ``zh`` or ``en``.
    :param summary: the first page's lead, ≤ 300 characters.
    :param identity: the text entity matching runs on (file-name words, title, organisation,
        cover head).
    :param version: :data:`PROFILE_VERSION` of the code that built it.
    """

    list_fields = ("years",)

    doc_id: str
    path: str
    title: str
    organisation: str = ""
    doc_type: str = ""
    years: tuple[int, ...] = ()
    language: str = "en"
    summary: str = ""
    identity: str = ""
    version: int = PROFILE_VERSION

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> DocumentProfile:
        """Inverse of :meth:`to_data`; unknown keys are ignored."""
        fields = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        fields.setdefault("version", 1)
        fields["years"] = tuple(int(y) for y in fields.get("years", ()))
        return cls(**fields)


def _stem_words(path: str) -> str:
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return " ".join(w for w in _STEM_SPLIT.split(stem) if w)


def cover_chunks(chunks: Iterable[Chunk]) -> list[Chunk]:
    """The leading chunks (given in document order) that :func:`build_profile` reads — pages
    1–2, up to :data:`COVER_CHARS` — so a streamed document's profile is built without holding
    its other chunks: ``build_profile(info, cover_chunks(chunks)) == build_profile(info,
    chunks)``."""
    out: list[Chunk] = []
    n = 0
    for c in chunks:
        if c.page_start > 2 and out:
            break
        out.append(c)
        n += len(c.text)
        if n >= COVER_CHARS:
            break
    return out


def _cover(chunks: Sequence[Chunk]) -> str:
    first = sorted(chunks, key=lambda c: c.ordinal)
    text: list[str] = []
    n = 0
    for c in first:
        if c.page_start > 2 and text:
            break
        text.append(c.text)
        n += len(c.text)
        if n >= COVER_CHARS:
            break
    return "\n".join(text)[:COVER_CHARS]


def _organisation(cover: str) -> str:
    name = ""
    for rx in (_SEC_NAME_RE, _FILE_NO_RE, _TICKER_RE, _ZH_ORG_RE):
        m = rx.search("\n" + cover)
        if m:
            name = " ".join(m.group(1).split()).strip(" ,.")
            break
    symbols = _symbols(cover)
    return f"{name} ({', '.join(symbols)})" if name and symbols else name


def _symbols(cover: str) -> list[str]:
    """Ticker symbols the cover states: "(NYSE: JNJ)" or the lines of an SEC cover's "Trading
    Symbol(s)" column (one to five capital letters on a line of their own)."""
    found = [m.group(1) for m in _SYMBOL_INLINE_RE.finditer(cover)]
    at = re.search(r"trading\s+symbol", cover, re.IGNORECASE)
    if at:
        window = cover[at.end() : at.end() + 500]
        lines = re.findall(r"(?m)^\s*([A-Z]{1,5})\s*$", window)
        found += [s for s in lines if s not in _NOT_SYMBOL]
    return list(dict.fromkeys(found))[:3]


def _years(path: str, cover: str) -> tuple[int, ...]:
    found: list[int] = []
    stem = path.rsplit("/", 1)[-1]
    found += [int(y) for y in _YEAR_RE.findall(stem)]
    for m in _PERIOD_RE.finditer(cover):
        found += [int(g) for g in m.groups() if g]
    return tuple(dict.fromkeys(found))


def _doc_type(path: str, title: str, cover: str) -> str:
    hay = f"{_stem_words(path)}\n{title}\n{cover[:800]}"
    for rx, kind in _FORMS:
        if rx.search(hay):
            return kind
    return ""


def _language(text: str) -> str:
    han = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")
    return "zh" if han * 3 >= max(1, len(text.strip())) * 0.3 else "en"


def _summary(cover: str) -> str:
    lines = [" ".join(ln.split()) for ln in cover.splitlines()]
    text = " ".join(ln for ln in lines if len(ln) > 1)
    return text[:300]


def build_profile(info: DocumentInfo, chunks: Sequence[Chunk]) -> DocumentProfile:
    """The profile of one document from its chunks (only pages 1–2 are read).

    :param info: the document's catalogue info (path, title, ``doc_id``).
    :param chunks: the document's chunks, any order (may be empty: then path and title only).
    :returns: the profile; never raises for odd text.
    """
    cover = _cover(chunks)
    org = _organisation(cover)
    identity = "\n".join(
        p for p in (_stem_words(info.path), info.title, org, cover[:_IDENTITY_HEAD]) if p
    )
    return DocumentProfile(
        doc_id=info.doc_id,
        path=info.path,
        title=info.title,
        organisation=org,
        doc_type=_doc_type(info.path, info.title, cover),
        years=_years(info.path, cover),
        language=_language(cover or info.title),
        summary=_summary(cover),
        identity=identity,
    )
