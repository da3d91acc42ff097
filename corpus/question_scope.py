"""What a question restricts its answer to, beyond its terms (issue 15 item 4, answerability):
the **page** it names and the **visual** attribute it asks about.

Retrieval always returns the closest text, so "What is the FAX No on page thirteen?" used to be
answered from page fourteen, and "What is the color of the icons …?" or "What is the yellow
italic text on page 9?" from a sentence that says nothing about a colour or a font. Both paths
(the RAG answer decision and the LoopAgent's answer checks) ask this module:

- :func:`asked_pages` – the pages a question names (``page 14``, ``page fourteen``, ``the first
  page``, ``p. 12``, ``第14页``); an answer must be quoted from one of them (its physical page
  or its printed label), else the evidence is about another page: "not found";
- :func:`visual_ask` – what the question asks that only the rendered page shows:
  a **colour** (a colour word, or "colour" itself), **typography** (the italic / underlined /
  bold / highlighted text itself), or objects **counted in a picture** ("how many people … in
  the photo / on page 5"). Text extraction keeps the words of a page, not how they look, so
  such a question is answerable only when the quoted text states it (a colour word in the unit:
  "the indicator turns red"); typography and picture counts never are;
- :func:`asked_dimension` – the physical dimension a value is asked in ("多少微安", "in mV"):
  the evidence must write a number in a unit of it (``10 µA``, ``0.15 mA``), not "8 KB".

Pure functions over the question and the evidence text, no I/O. The page functions live in
``corpus.page_scope`` (re-exported here).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from corpus.labels import asked_item, other_item
from corpus.page_scope import MAX_PAGE, MAX_PAGE_SPAN, asked_pages, on_asked_page, page_misses
from corpus.period_scope import other_period, pinned_years
from corpus.quantity_kind import asked_kind, states_kind
from corpus.term_forms import asked_dates, other_day

__all__ = ["MAX_PAGE", "MAX_PAGE_SPAN", "VisualAsk", "asked_dimension", "asked_pages",
           "asks_content", "content_misses", "count_unit", "on_asked_page", "page_misses",
           "states_dimension", "visual_ask", "visual_supported"]

_COLOURS_EN = ("red", "yellow", "green", "blue", "black", "white", "orange", "purple", "pink",
               "grey", "gray", "brown", "violet", "cyan", "magenta")
_COLOURS_ZH = ("红", "黄", "绿", "蓝", "黑", "白", "橙", "紫", "粉", "灰", "棕",
               "紅", "黃", "綠", "藍")
_COLOUR_WORD = re.compile(r"\b(?:" + "|".join(_COLOURS_EN) + r")(?:ish)?\b", re.I)
# a question asking *for* a colour: "what is the color of …", "which colour …", "what color
# indicates …"; "customize the font and color of …" asks how, not which colour
_COLOUR_ASK = re.compile(
    r"\b(?:what|which)\s+(?:is\s+|are\s+|was\s+)?(?:the\s+)?colou?rs?\b"
    r"|什么颜色|什麼顏色|哪种颜色|哪種顏色|什么色|什麼色|颜色是|顏色是", re.I)
# what follows a capitalised colour word that begins a name: another capitalised word
_IN_NAME = re.compile(r"[\s-]+[A-Z]")
_COLOUR_ZH = re.compile("(?:" + "|".join(_COLOURS_ZH) + ")色")
# the formatted text itself is asked for: "the underlined italic words", "lines highlighted in
# yellow", "the bold text"
_TYPOGRAPHY = re.compile(
    r"\b(?:italic|italics|italicized|underlined|bold|boldface|highlighted|strikethrough)\b"
    r"(?:\s+\w+){0,2}?\s+(?:texts?|words?|lines?|phrases?|sentences?|letters?)\b"
    r"|\b(?:texts?|words?|lines?|phrases?|sentences?)\s+(?:are\s+|is\s+)?(?:in\s+)?"
    r"(?:italics?|bold|underlined|highlighted)\b", re.I)
# objects counted in a rendered picture: "how many people with sunglasses are there in page 5"
_PICTURE_COUNT = re.compile(
    r"\bhow\s+many\s+(?:\w+\s+){0,2}(?:people|persons|men|women|children|faces|logos|icons|"
    r"animals|cars)\b.*\b(?:in|on)\s+(?:the\s+)?(?:picture|photo|photograph|image|page)\b",
    re.I)

# physical dimensions a question may ask a value in, by the units that write them (SI symbols
# and their Chinese names, any scale): a question asking "多少微安" is answered by a current,
# not by "8 KB"
_DIMENSIONS: dict[str, tuple[str, str]] = {
    # dimension: (units after a number in the evidence, unit words a question asks in)
    "current": (r"[µμu]A|mA|nA|A(?![a-zA-Z])|微安|毫安|纳安|安培?",
                r"微安|毫安|纳安|安培|microamps?|milliamps?|amperes?|amps?|(?-i:µA|μA|uA|mA)"),
    "voltage": (r"[mk]?V(?![a-zA-Z])|毫伏|千伏|伏特?",
                r"毫伏|千伏|伏特|伏|volts?|millivolts?|(?-i:[mk]?V)"),
    "power": (r"[mkµμu]?W(?![a-zA-Z])|毫瓦|千瓦|瓦特?",
              r"毫瓦|千瓦|瓦特|瓦|watts?|milliwatts?|(?-i:[mk]?W)"),
    "frequency": (r"[kMG]?Hz|赫兹|千赫|兆赫|吉赫", r"赫兹|千赫|兆赫|吉赫|hertz|(?-i:[kMG]?Hz)"),
    "data": (r"[KkMGT]i?B(?![a-zA-Z])|[KkMG]?bit|字节|千字节|兆字节",
             r"字节|千字节|兆字节|bytes|kilobytes|megabytes|gigabytes|KB|MB|GB"),
    "temperature": (r"°\s*C|℃|摄氏度|度", r"摄氏度|degrees?\s+celsius|°C|℃"),
}
_ASK_UNIT = {dim: re.compile(r"(?:多少|几)\s*(?:" + ask + r")|\bhow\s+many\s+(?:" + ask +
                             r")\b|\bin\s+(?P<unit>" + ask + r")\b|[(（]\s*(?:" + ask +
                             r")\s*[)）]", re.I if dim != "data" else 0)
             for dim, (_, ask) in _DIMENSIONS.items()}
# "in V" asks a voltage only where the clause ends ("the supply voltage in V?"): a unit symbol
# mid-clause is a name or a letter ("the phases in V-Model", "stores in GB and Ireland",
# "what happened in W. Virginia"); a unit word ("in millivolts") asks wherever it stands
_CLAUSE_END = re.compile(r"\s*(?:[?？!！,，;；:：)）]|\.?\s*$)")
_STATES_UNIT = {dim: re.compile(r"\d[\s|]*(?:" + units + ")")
                for dim, (units, _) in _DIMENSIONS.items()}

# a drawn object the question asks about: "the diagram on page 10", "in the picture on page 50",
# "what types of charts are in the document", "how many strategies are plotted"; not "chart of
# accounts", "flowchart" of a text, "sub-graph knowledge" or a figure meaning a number
_FIGURE_ASK = re.compile(
    r"\b(?:the|this|that|these|those|each|any|which|what|of|in)\s+(?:[a-z][\w'-]*\s+){0,2}?"
    r"(?:charts?(?!\s+of\s+accounts)|diagrams?|pictures?|photos?|photographs?|illustrations?"
    r"|infographics?|(?:bar|line|pie|box|scatter)\s+(?:graphs?|plots?))\b"
    r"|\b(?:are|is|was|were)\s+plotted\b"
    r"|图片|照片|示意图|图表|插图", re.I)
# how a text names a drawn object: its caption or a reference to it ("Figure 3", "Fig. 2",
# "the chart below", "图 3")
_FIGURE_NAMED = re.compile(
    r"\b(?:figure|fig\.?|chart|diagram|graph|plot|picture|photo|photograph|image|illustration"
    r"|infographic|map|exhibit)s?\b|图\s*\d|图表|示意图|图片|照片|插图", re.I)


@dataclass(frozen=True, slots=True)
class VisualAsk:
    """A question asking what only the rendered page shows: ``kind`` is ``colour``,
    ``typography``, ``picture`` (objects counted in a picture) or ``figure`` (a drawn object:
    a chart, diagram, picture); ``colours`` the colour words the question names (normal form,
    may be empty: "what colour …")."""

    kind: str
    colours: tuple[str, ...] = ()


@lru_cache(maxsize=4096)
def visual_ask(question: str) -> VisualAsk | None:
    """What ``question`` asks that only the rendered page shows (:class:`VisualAsk`), or
    ``None``. Typography and picture counts come first: "the yellow italic text" asks for the
    italic text, whatever its colour. A capitalised colour word before another capitalised
    word is part of a name ("Red Hat", "Blue Cross", "White House"), not a colour asked."""
    text = unicodedata.normalize("NFKC", question)
    if _TYPOGRAPHY.search(text):
        return VisualAsk("typography")
    if _PICTURE_COUNT.search(text):
        return VisualAsk("picture")
    colours = tuple(dict.fromkeys(m.group(0).lower() for m in _COLOUR_WORD.finditer(text)
                                  if not _IN_NAME.match(text, m.end()) or m.group(0).islower()))
    zh = tuple(dict.fromkeys(m.group(0) for m in _COLOUR_ZH.finditer(text)))
    if colours or zh or _COLOUR_ASK.search(text):
        return VisualAsk("colour", colours + zh)
    if _FIGURE_ASK.search(text):
        return VisualAsk("figure")
    return None


def visual_supported(ask: VisualAsk, text: str) -> bool:
    """True when the evidence ``text`` states what ``ask`` asks: for a colour, one of the
    question's colour words (any colour word when it names none); for a drawn object, a
    caption or a reference naming one ("Figure 3", "the chart", "图 2": the text layer keeps
    a drawing's caption, nothing else of it); typography and picture counts never (extracted
    text does not keep them)."""
    if ask.kind == "figure":
        return _FIGURE_NAMED.search(unicodedata.normalize("NFKC", text)) is not None
    if ask.kind != "colour":
        return False
    norm = unicodedata.normalize("NFKC", text)
    if ask.colours:
        low = norm.lower()
        # the colour word itself ("red", "reddish", "reds"), not a word it begins ("reduce",
        # "greenhouse", "blacklist")
        return any((re.search(rf"\b{re.escape(c)}(?:s|d?ish)?\b", low) if c.isascii()
                    else c[0] in norm) for c in ask.colours)
    return bool(_COLOUR_WORD.search(norm) or _COLOUR_ZH.search(norm))


@lru_cache(maxsize=4096)
def asked_dimension(question: str) -> str | None:
    """The physical dimension ``question`` asks a value in (``current``, ``voltage``,
    ``power``, ``frequency``, ``data``, ``temperature``), or ``None``:
    ``"…典型电流是多少微安？"`` → ``current``; ``"What is the supply voltage in V?"`` →
    ``voltage``; ``"How many days …"`` → ``None`` (a count, not a physical unit); ``"the phases
    in V-Model"``, ``"stores in GB and Ireland"`` → ``None`` (a unit symbol after "in" asks only
    at the end of a clause)."""
    text = unicodedata.normalize("NFKC", question)
    for dim, pattern in _ASK_UNIT.items():
        for m in pattern.finditer(text):
            unit = m.group("unit")
            if (unit is None or (unit.isalpha() and unit.islower() and len(unit) > 2)
                    or _CLAUSE_END.match(text, m.end())):
                return dim
    return None


def states_dimension(dimension: str, text: str) -> bool:
    """True when ``text`` holds a number written in a unit of ``dimension`` (any scale:
    ``10 µA`` and ``0.15 mA`` are both currents; a unit in a table header counts when the
    caller passes the header with the row)."""
    return _STATES_UNIT[dimension].search(unicodedata.normalize("NFKC", text)) is not None


def content_misses(question: str, text: str, unit: str | None = None, *,
                   quote: str | None = None, chunk_text: str = "",
                   headings: Sequence[str] = ()) -> list[str]:
    """Why evidence ``text`` (the answer unit, with its chunk's text when the caller has it)
    does not state what ``question`` asks, as flags (empty: it does):
    ``asks_visual:<kind>`` (:func:`visual_ask` / :func:`visual_supported`),
    ``no_value_in:<dimension>`` (:func:`asked_dimension` / :func:`states_dimension`) and
    ``no_value_in:days`` / ``no_value_in:multiple`` (the kind of count asked:
    ``corpus.quantity_kind``), ``other_date:<date>`` (the unit writes another day of the
    month and year of a date the question pins: ``corpus.term_forms.other_day``; the unit
    only) and ``other_period:<years>`` (the unit states a year and none the question pins:
    "Revenue in 2019 was …" for "… in 2018?", ``corpus.period_scope.other_period``; the unit
    only), ``other_item:<label>`` (``quote``, a unit of ``chunk_text`` under ``headings``,
    sits in another numbered item than the article or clause the question names:
    ``corpus.labels.other_item``), looked for in ``unit`` (the quoted unit alone) when given: a
    count and its unit word stand in the sentence that answers, while a chunk holds other
    sentences' dates and percentages (a wage article quoted for "多少倍" in a chunk with a 10 %
    bonus share)."""
    out: list[str] = []
    ask = visual_ask(question)
    if ask is not None and not visual_supported(ask, text):
        out.append("asks_visual:" + ask.kind)
    dim = asked_dimension(question)
    if dim is not None and not states_dimension(dim, text):
        out.append("no_value_in:" + dim)
    kind = asked_kind(question)
    if kind is not None and not states_kind(kind, text if unit is None else unit):
        out.append("no_value_in:" + kind)
    day = other_day(question, unit) if unit is not None else None
    if day is not None:
        out.append("other_date:" + day)
    period = other_period(question, unit) if unit is not None else None
    if period is not None:
        out.append("other_period:" + period)
    item = other_item(question, quote, chunk_text, headings) if quote is not None else None
    if item is not None:
        out.append("other_item:" + item)
    return out


def count_unit(quote: str, headings: Sequence[str]) -> str | None:
    """The text a kind of count is looked for in (:func:`content_misses`'s ``unit``): the
    quote, or ``None`` (the whole chunk) when the quote is one of the chunk's ``headings``
    (its title or a section path entry: a quoted heading "4 提交时限" answers by the section
    under it)."""
    q = " ".join(quote.split())
    return None if q and any(q == " ".join(h.split()) for h in headings) else quote


def asks_content(question: str) -> bool:
    """True when ``question`` asks what :func:`content_misses` checks (a visual attribute, a
    value in a physical unit, a number of days or a multiple, a fact of a given day or year,
    a numbered article or clause):
    the caller then needs the evidence text."""
    return (visual_ask(question) is not None or asked_dimension(question) is not None
            or asked_kind(question) is not None
            or any("," in d for d in asked_dates(question)) or bool(pinned_years(question))
            or asked_item(question) is not None)
