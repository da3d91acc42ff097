"""Join hard-wrapped lines of a plain-text file back into paragraphs (issue 17 item 6).

A hard-wrapped file breaks every line near one width (``fmt``, ``textwrap``, an e-mail client,
a Chinese text exported every 40 characters), also inside sentences. Chunking and sentence
splitting must not depend on where those breaks fell: the wrapped file and the same text
unwrapped give the same paragraph text, hence the same chunks.

Detection, per file and script (lines mostly CJK, other lines: a 40-character Chinese wrap and
a 72-character English wrap can share a file): ``W`` is the 90th percentile length in
characters of the script's lines followed by a non-blank line; the script is wrapped when
``W`` is 15–60 (CJK) / 30–120 (other) characters (wider lines are unwrapped paragraphs, one
per line) and at least four and at least half of those lines are at
least ``0.75·W`` long (unwrapped paragraphs, one per line, have widely varying lengths).

Joining: line *i* continues into line *i+1* when its script is wrapped and it is at least
``0.75·W`` long (a shorter line ends its paragraph, wherever the wrap fell) and line *i+1* is
not indented (a new paragraph) and does not open a list item, heading, clause or table row.
Lines are joined with no space when either side is CJK or line *i* ends with a hyphen
(``textwrap`` breaks after ``well-``), else with one space. The block's ``line_map`` keeps
where every source line starts in the joined text, so citations still give the file's own line
numbers.
"""

from __future__ import annotations

import re

from corpus.types import Block

__all__ = ["unwrap_paragraph", "wrap_width"]

_MIN_WIDTH = {"cjk": 15, "latin": 30}
_MAX_WIDTH = {"cjk": 60, "latin": 120}
_MIN_FULL = 4  # full-width lines a wrapped script shows at least (3 similar lines prove nothing)
_FULL = 0.75
_ITEM = re.compile(
    r"\s*(?:[-*•#>|+]|\d{1,3}[.)、]|[（(]?[一二三四五六七八九十\d]{1,3}[)）、]"
    r"|第[一二三四五六七八九十百零〇\d]{1,6}[条章节款])"
)
_CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]")

Widths = dict[str, int]


def _script(line: str) -> str:
    return "cjk" if len(_CJK.findall(line)) * 2 >= len(line.strip()) else "latin"


def wrap_width(lines: list[str]) -> Widths:
    """The file's wrap width in characters per script (``{"cjk": 40, "latin": 0}``), empty
    when the lines are not hard-wrapped (rule in the module docstring). ``lines`` are the
    file's lines without line ends."""
    groups: dict[str, list[int]] = {"cjk": [], "latin": []}
    for a, b in zip(lines, lines[1:], strict=False):
        if a.strip() and b.strip():
            groups[_script(a)].append(len(a.rstrip()))
    out: Widths = {}
    for script, widths in groups.items():
        if len(widths) < 3:
            continue
        w = sorted(widths)[min(len(widths) - 1, int(0.9 * len(widths)))]
        full = sum(x >= _FULL * w for x in widths)
        if _MIN_WIDTH[script] <= w <= _MAX_WIDTH[script] and full >= _MIN_FULL \
                and 2 * full >= len(widths):
            out[script] = w
    return out


def _full(line: str, widths: Widths) -> bool:
    w = widths.get(_script(line), 0)
    return bool(w) and len(line.rstrip()) >= _FULL * w


def unwrap_paragraph(run: list[tuple[str, int]], widths: Widths) -> Block:
    """One text block from a paragraph's ``(line, line_number)`` pairs (non-blank, right-
    stripped), wrapped lines joined (module docstring); with no ``widths`` the lines are kept
    as they are. ``line_map`` holds ``(offset, 1, line_number)`` for every source line."""
    text = ""
    lmap: list[tuple[int, int, int]] = []
    prev = ""
    for line, num in run:
        if not text:
            piece = line
        elif (_full(prev, widths) and not _ITEM.match(line)
              and not line[:1].isspace()):
            piece = line.lstrip()
            if not (prev.endswith("-") or _CJK.match(prev[-1]) or _CJK.match(piece[:1] or " ")):
                text += " "
        else:
            text += "\n"
            piece = line
        lmap.append((len(text), 1, num))
        text += piece
        prev = line
    return Block(kind="text", text=text, page=1, page_end=1, line_start=run[0][1],
                 line_end=run[-1][1], line_map=tuple(lmap))
