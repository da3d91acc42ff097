"""What a unit or a chunk is, for evidence: a figure, another code of the question's family, an
order to a model, a revision history. Pure functions, no I/O.

- :func:`holds_figure_unit`: a unit holding a digit outside the question's own codes
  (``corpus.tokenizer.holds_figure``) and outside its leading item or section number
  (:data:`ENUMERATOR`: ``7.1.1 RS232C 接口简介``, ``2、…``, ``（3）…``, ``第三章 …`` state no
  value) answers a question asking a quantity.
- :func:`excluded`: never evidence — a unit naming another code of the family of a code of the
  question and not the question's own (``fw-3010`` for ``fw-301``,
  ``corpus.term_match.foreign_code``), or addressing the reader as a model or cut from such a
  line (``corpus.injection.in_injection``).
- :func:`flat_code` (``corpus.term_match``, the one code-separator rule): a key term written
  with separators and holding a digit, without its separators (``esp32-pico-d4`` →
  ``esp32picod4``): it matches a text whatever separates its parts there.
- Revision histories: a document's own change log restates old and new values of the
  parameters the body specifies ("供电电压范围从 2.7 V ~ 3.6 V 改为 3.0 V ~ 3.6 V"), a look-alike
  of the real answer. :func:`under_revision_heading` (a heading of the section path *is* a
  revision-history title; the LoopAgent's test) and :func:`opens_revision_history` (the
  innermost heading or the chunk's first 80 characters *contain* one; the RAG path's test: a
  datasheet whose title or first heading is its history is not demoted whole);
  :func:`asks_revision` / :func:`asks_history`: the question is about versions or changes.
  The two paths keep their own word lists (measured with them; issue 18 keeps answers
  identical); both lists live here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from corpus.figures import holds_figure, numeral_figure
from corpus.injection import in_injection
from corpus.term_match import flat_code, foreign_code
from corpus.types import Chunk

__all__ = [
    "DIGIT",
    "asks_history",
    "asks_revision",
    "excluded",
    "flat_code",
    "holds_figure_unit",
    "opens_revision_history",
    "under_revision_heading",
]

#: a decimal digit (any script's, as ``\d``)
DIGIT = re.compile(r"\d")
#: a unit's leading list-item or section number: ``7.1.1 `` / ``2.1.10 `` (two dots or more),
#: ``2、`` ``3. `` ``（3）`` ``(3)`` ``3)``, ``第3章`` / ``第十二条``; a single-dot number
#: (``3.3 V``, ``1.5 倍``) is a value, never stripped
ENUMERATOR = re.compile(
    r"^\s*(?:[•·\-*]\s*)?(?:\d{1,3}(?:\.\d{1,3}){2,}\.?\s+|\d{1,3}\s*[、．]\s*|\d{1,3}\.\s+"
    r"|[(（]\s*\d{1,3}\s*[)）]\s*|\d{1,3}[)）]\s*"
    r"|第\s*[\d一二三四五六七八九十百零〇]{1,6}\s*[章节条款篇部分]\s*)")


# a link's target or a bare URL: its digits are an address, no value
_ADDRESS = re.compile(r"\]\([^)\s]*\)|\b(?:https?://|www\.)\S+", re.IGNORECASE)
# a column's scale written in zeros: "(000's)", "(in 000s)", "($000)", "000's omitted" (SEC
# filings' tables): thousands, no value
_SCALE = re.compile(r"\(\s*(?:in\s+)?\$?\s*0{3}(?:,0{3})*(?:['’]?s)?(?:\s+omitted)?\s*\)"
                    r"|(?<![\d,.])\$?0{3}(?:,0{3})*['’]s\b", re.IGNORECASE)


def holds_figure_unit(unit: str, normalized: str, terms: Iterable[str]) -> bool:
    """True when ``unit`` holds a digit and its ``normalized`` form (the key terms' form) holds
    one outside the digit-holding ``terms`` (the question's own codes are no figure), outside a
    leading :data:`ENUMERATOR` (a heading's or list item's number is no value) and outside
    link targets and URLs (a new-user trial: "How long does the CEO shadow program last?" was
    answered "The CEO Shadows maintain a project called [CEO Shadow Tasks](https://gitlab.com/
    …/boards/1385894)" for the figure of its link; "a rotation is two weeks" answers), and
    outside a column's scale written in zeros ("Shares Repurchased Average Price per (000's)"
    answered "How much shares did COSTCO repurchase in FY2021?" for its "000")."""
    unit, normalized = ENUMERATOR.sub("", unit, count=1), ENUMERATOR.sub("", normalized, count=1)
    unit, normalized = _ADDRESS.sub(" ", unit), _ADDRESS.sub(" ", normalized)
    unit, normalized = _SCALE.sub(" ", unit), _SCALE.sub(" ", normalized)
    return ((bool(DIGIT.search(unit)) or numeral_figure(unit))
            and holds_figure(normalized, terms))


# a line that is only Markdown links (a list item of them, or several joined by , ; | ·):
# navigation — a table of contents or a "see also" list — it names a topic, it states nothing
_LINKS_ONLY = re.compile(
    r"^\s*(?:[-*+]|\d+[.)])?\s*(?:\[[^\]\n]+\]\([^)\s]*\)\s*[,;|·]?\s*)+$")


def is_link_line(unit: str) -> bool:
    """True for a unit that is only Markdown links (``- [Metrics](/handbook/sales/…)``): a
    new-user trial got "[Everyone can contribute with GitLab](/handbook/company/mission/…)"
    as the answer to "What is GitLab's mission?" at confidence 0.97, the mission's own
    sentence ten lines below."""
    return _LINKS_ONLY.match(unit) is not None


def excluded(chunk: Chunk, unit: str, codes: Sequence[str],
             normalize: Callable[[str], str]) -> bool:
    """True when ``unit`` (of ``chunk``) is never evidence: another code of the family of one
    of ``codes`` (the question's codes, ``corpus.term_match.code_terms``) without the
    question's own, an order to a model (``corpus.injection``), or a line of links alone
    (:func:`is_link_line`: navigation)."""
    return (bool(codes and foreign_code(normalize(unit), codes))
            or in_injection(chunk.text, unit) or is_link_line(unit))


# headings of a revision history, whole (an optional chapter / section number in front)
_REVISION_SECTION = re.compile(
    r"^\s*(?:第\s*\d+\s*章\s*|\d+(?:\.\d+)*\.?\s+|appendix\s+\w+[:.]?\s*)?(?:修订历史|修订记录"
    r"|修改记录|修改历史|版本历史|版本记录|更新记录|更新历史|变更记录|变更历史"
    r"|文档历史|文档修订|(?:document\s+)?revision\s+history|change\s*log|document\s+history"
    r"|version\s+history|record\s+of\s+(?:changes|revisions)|amendment\s+history)\s*$",
    re.I,
)
_REVISION_WORDS = re.compile(
    r"版本|修订|修改|变更|更新|改为|改成|revis|version|chang|amend|updat", re.I
)
# a revision-history title anywhere in a heading or a chunk's opening
_CHANGELOG = re.compile(r"修改记录|修订历史|修订记录|版本历史|更新记录|变更记录|revision history|"
                        r"change ?log|document history|release notes", re.IGNORECASE)
_ASKS_HISTORY = re.compile(r"版本|修改|修订|变更|更新|改为|改成|version|revision|chang|histor|"
                           r"release|updat", re.IGNORECASE)


def under_revision_heading(chunk: Chunk) -> bool:
    """True when a heading of ``chunk``'s section path is a revision-history title (修订历史,
    修改记录, Revision History, Change Log …, optionally numbered: ``第22 章 修改记录``)."""
    return any(_REVISION_SECTION.match(h) for h in chunk.section_path)


def opens_revision_history(chunk: Chunk) -> bool:
    """True when ``chunk``'s innermost heading or its first 80 characters hold a
    revision-history title (修改记录, Revision History, Change Log, release notes …)."""
    return bool(_CHANGELOG.search(" ".join((*chunk.section_path[-1:], chunk.text[:80]))))


def asks_revision(question: str) -> bool:
    """True when the question is about versions or changes (版本, 修改, revision, amend …): a
    revision history is then the place to read (the LoopAgent's word list)."""
    return bool(_REVISION_WORDS.search(question))


def asks_history(question: str) -> bool:
    """As :func:`asks_revision`, with the RAG path's word list (… history, release)."""
    return bool(_ASKS_HISTORY.search(question))
