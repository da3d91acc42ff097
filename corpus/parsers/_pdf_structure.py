"""Page structure rules for the PDF parser: running headers/footers, table-of-contents pages,
body font size and headings (see :mod:`corpus.parsers.pdf` for where each rule applies).
"""

from __future__ import annotations

import re
from collections import Counter

from corpus.parsers._pdf_page import VLine

__all__ = ["body_size", "heading_level", "is_toc_page", "norm_title", "running_lines"]

_MARGIN = 0.12
_DIGITS = re.compile(r"\d+")
_PAGE_NO = re.compile(
    r"^\s*(?:[-–—]\s*)?(?:page\s+)?(?:\d{1,4}|[ivxlc]{1,6})(?:\s*(?:/|of)\s*\d{1,4})?"
    r"(?:\s*[-–—])?\s*$|^\s*第\s*\d{1,4}\s*页(?:\s*[/／]?\s*共\s*\d{1,4}\s*页)?\s*$",
    re.IGNORECASE,
)
_TOC_LINE = re.compile(
    r"^(?P<title>.*?\S)(?:\s*[.·…_]{2,}\s*|\s+)(?P<num>\d{1,3}|[ivxlc]{1,6})$", re.I
)
_TOC_TITLE = re.compile(r"^\s*(?:table\s+of\s+)?contents\s*$|^\s*目\s*录\s*$|^\s*目\s*次\s*$", re.I)
_ROMAN_VAL = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}


def _toc_number(raw: str) -> int:
    """A TOC entry's page number; a Roman label (front matter) counts below every Arabic one."""
    if raw.isdigit():
        return int(raw)
    vals = [_ROMAN_VAL[c] for c in raw.lower()]
    return sum(-a if a < b else a for a, b in zip(vals, [*vals[1:], 0], strict=True)) - 1000
_NUMBERED = re.compile(
    r"^(?:(?P<word>section|chapter|part|item|article)\s+(?P<wn>[0-9ivx]+[a-z]?(?:\.\d+)*)\.?"
    r"|(?P<num>\d+(?:\.\d+)+)\.?(?=\s+[A-Z\u4e00-\u9fff])"
    r"|第[一二三四五六七八九十百零〇\d]+[章节篇部编])\s",
    re.IGNORECASE,
)
_SENT_END = re.compile(r"[.。;；,，:：]$")


def running_lines(
    pages: list[list[VLine]], heights: list[float], body: float, toc_titles: dict[str, int]
) -> set[tuple[int, int]]:
    """``(page_index, line_number)`` of running headers/footers and edge page numbers.

    Heading candidates (a title of the PDF outline, or a font ≥ 1.15x the body font) are never
    running headers: ``Chapter 1`` / ``Chapter 2`` atop their pages differ only in digits.
    """
    cands: list[tuple[int, VLine, str]] = []
    for pi, lines in enumerate(pages):
        h = heights[pi]
        edge = lines[:3] + lines[-3:] if len(lines) > 6 else lines
        for v in edge:
            if v.min_size >= body * 1.15 or norm_title(v.text) in toc_titles:
                continue
            # the first/last line of a page counts wherever it sits: HTML-to-PDF 10-Ks put
            # "2021 FORM 10-K 24" right under the last paragraph, mid-page
            in_margin = v.bbox[3] <= h * _MARGIN or v.bbox[1] >= h * (1 - _MARGIN)
            if in_margin or v is lines[0] or v is lines[-1]:
                cands.append((pi, v, _DIGITS.sub("#", " ".join(v.text.lower().split()))))
    # a running header that also names its chapter ("TH2817B 系列使用说明书 第六章 性能测试",
    # "User Guide Chapter 3 Setup") changes with every chapter: its part before the chapter
    # repeats, so each line counts under its whole key and under that part
    keyed = [(pi, v, [key, _chapter_free(key)]) for pi, v, key in cands]
    pages_with: dict[str, set[int]] = {}
    for pi, _v, keys in keyed:
        for k in filter(None, keys):
            pages_with.setdefault(k, set()).add(pi)
    need = max(2, int(0.2 * len(pages)))
    drop = {(pi, v.number) for pi, v, keys in keyed
            if any(k and len(pages_with[k]) >= need for k in keys)}
    for pi, lines in enumerate(pages):
        for v in lines[:1] + lines[-2:]:
            if _PAGE_NO.match(v.text):
                drop.add((pi, v.number))
    return drop


_CHAPTER_TAIL = re.compile(r"\s+(?:第[一二三四五六七八九十百零〇#]+[章篇部编]"
                           r"|(?:chapter|part)\s+[#ivxlc]+\b).*$", re.I)


def _chapter_free(key: str) -> str:
    """A running-line key (``running_lines``) without the chapter it names at its end, when
    at least 4 characters stand before it; else ``""``."""
    head = _CHAPTER_TAIL.sub("", key)
    return "^" + head if head != key and len(head.replace(" ", "")) >= 4 else ""


def is_toc_page(lines: list[VLine]) -> bool:
    """True for a table-of-contents page: at least 6 lines (3 under a ``Contents`` / ``目录``
    title) and 40 % of the page's lines are ``title …… page`` entries (Arabic or Roman page
    numbers), their numbers mostly ascending. Such a page is kept out of the chunks, so its
    lines never become headings or section paths."""
    nums: list[int] = []
    titled = any(_TOC_TITLE.match(v.text) for v in lines[:5])
    for v in lines:
        m = _TOC_LINE.match(v.text)
        if m and "$" not in v.text and "%" not in v.text and re.search(r"[^\W\d]", m["title"]):
            nums.append(_toc_number(m["num"]))
    if len(nums) < (3 if titled else 6) or len(nums) < 0.4 * len(lines):
        return False
    ups = sum(b >= a for a, b in zip(nums, nums[1:], strict=False))
    return ups >= 0.8 * (len(nums) - 1)


def body_size(pages: list[list[VLine]]) -> float:
    weights: Counter[float] = Counter()
    for lines in pages:
        for v in lines:
            weights[round(v.min_size, 1)] += len(v.text)
    return weights.most_common(1)[0][0] if weights else 10.0


def norm_title(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


def heading_level(
    v: VLine, body: float, size_levels: dict[float, int], toc_titles: dict[str, int]
) -> int:
    if toc_titles:
        key = norm_title(v.text)
        if key and key in toc_titles:
            return toc_titles[key]
    if len(v.text) > 150 or not re.search(r"[^\W\d_]", v.text):
        return 0
    if v.min_size >= body * 1.15 and not toc_titles:
        return size_levels.get(round(v.size, 1), 3)
    m = _NUMBERED.match(v.text + " ")
    if m and len(v.text) <= 90 and not _SENT_END.search(v.text):
        return min((m["num"] or m["wn"] or "").count(".") + 1, 6)
    return 0
