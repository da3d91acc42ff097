"""Plain-text parser (``.txt``, ``.text``) and the text decoding shared with Markdown.

Decoding order (case 19; open-webui#24973 decoded GB18030 files as GB2312 and failed):

1. a byte-order mark: UTF-8-SIG, UTF-32 LE/BE, UTF-16 LE/BE;
2. strict UTF-8; UTF-8 with a few bad bytes (at least four valid non-ASCII characters per bad
   sequence) goes to step 7;
3. chardetng's guess (``corpus.parsers._legacy_encoding``): a single-byte encoding
   (windows-1252 for Western European text — Latin-1 files included —, windows-1250, -1251 …)
   decodes the file, with an ``encoding_guessed`` warning naming it; a Latin-script guess the
   bytes give no evidence for is windows-1252. Latin-1 text is valid GB18030 (``Größe`` →
   ``Gr鲞e``), so this comes before the Chinese steps; a guess the detector turns into Chinese
   when hinted so, and a Chinese guess, go on to step 4;
4. strict GB18030 (superset of GBK and GB2312; ``gbk``/``gb2312`` are never used), kept when
   at least 80 % of its non-ASCII characters are GB2312 characters (common Simplified text);
5. strict Big5 (Traditional); Big5 bytes also decode as GB18030, into rare characters, which
   is why step 4 checks plausibility;
6. GB18030 even when implausible, then charset-normalizer's best guess (warned);
7. UTF-8 with ``errors="replace"`` plus a warning on the document.

Binary data is rejected as ``undecodable``: NUL-heavy bytes, or a decoded text in which more than
2 % of the characters are control characters other than tab, line and page breaks and escape
(random or compressed bytes decode "successfully" as GB18030, which maps almost every byte
sequence; real text files hold next to no control characters).

Paragraphs are runs of non-blank lines; line numbers are those of the decoded text. A
hard-wrapped file's lines are joined into their paragraphs (``corpus.parsers._unwrap``), so the
wrapped and the unwrapped spelling of a text give the same chunks.

A short line that is a numbered division of a text — 第一编 / 第二章 总则 / 第三节 (levels 1 / 2 /
3), "PART II", "Chapter 3 Setup" — is a heading, whether or not blank lines surround it: a law
or a manual saved as plain text gets the section path its chapters give (a new-user trial: the
articles of a .txt law all sat under "(top)"). A line ending like a sentence is no heading.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

from corpus.errors import ParseError
from corpus.parsers._common import lines_block, text_document
from corpus.parsers._legacy_encoding import guess_legacy, mostly_utf8
from corpus.parsers._unwrap import unwrap_paragraph, wrap_width
from corpus.types import Block, ParsedDocument

__all__ = ["decode_text", "parse_text"]

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_GB_PLAUSIBLE = 0.8
_MAX_CONTROL_SHARE = 0.02
_TEXT_CONTROLS = frozenset("\t\n\r\f\v\x1b")


def _control_share(text: str) -> float:
    """Share of characters that are C0/C1 control characters not used in text files."""
    if not text:
        return 0.0
    bad = sum(1 for c in text if (c < " " or "\x7f" <= c <= "\x9f") and c not in _TEXT_CONTROLS)
    return bad / len(text)


def _strict(data: bytes, encoding: str) -> str | None:
    try:
        return data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return None


def _gb2312_share(text: str) -> float:
    """Share of non-ASCII characters that GB2312 can encode (1.0 when all are ASCII)."""
    wide = [c for c in text if ord(c) > 0x7F]
    if not wide:
        return 1.0
    ok = 0
    for c in wide:
        try:
            c.encode("gb2312")
            ok += 1
        except UnicodeEncodeError:
            pass
    return ok / len(wide)


def _guessed(encoding: str) -> str:
    """The warning of a file decoded with a detector's guess."""
    return (f"encoding_guessed: no byte-order mark and not UTF-8; decoded as {encoding}, the "
            "detector's guess (save the file as UTF-8 if the text reads wrong)")


def decode_text(data: bytes, path: Path) -> tuple[str, str, list[str]]:
    """Decode a text file's bytes.

    :returns: ``(text, encoding_used, warnings)``; line ends folded to ``\\n``; ``warnings``
        holds ``encoding_guessed: …`` when a detector chose the encoding (module docstring),
        ``replacement_characters: …`` for step 7.
    :raises ParseError: ``undecodable`` when the bytes hold NUL-heavy binary data.
    """
    warnings: list[str] = []
    text: str | None = None
    enc = ""
    for bom, name in _BOMS:
        if data.startswith(bom):
            text = _strict(data, name)
            enc = name
            break
    if text is None:
        text = _strict(data, "utf-8")
        enc = "utf-8"
    damaged = text is None and mostly_utf8(data)  # step 7 (a stray byte in a UTF-8 file)
    if text is None and not damaged:
        guess = guess_legacy(data)
        if guess.text is not None:
            text, enc = guess.text, guess.name
            warnings.append(_guessed(enc))
    if text is None and not damaged:
        gb = _strict(data, "gb18030")
        if gb is not None and _gb2312_share(gb) >= _GB_PLAUSIBLE:
            text, enc = gb, "gb18030"
        else:
            big5 = _strict(data, "big5")
            if big5 is not None:
                text, enc = big5, "big5"
            elif gb is not None:
                text, enc = gb, "gb18030"
    if text is None and not damaged:
        import charset_normalizer

        best = charset_normalizer.from_bytes(data).best()
        if best is not None and best.encoding:
            name = best.encoding
            if name.replace("_", "").lower() in {"gb2312", "gbk", "cp936"}:
                name = "gb18030"
            text, enc = _strict(data, name), name
            if text is not None:
                warnings.append(_guessed(enc))
    if text is None:
        if data.count(0) > len(data) // 10:
            raise ParseError("undecodable", f"{path}: binary data, not text in any known encoding")
        text = data.decode("utf-8", errors="replace")
        enc = "utf-8 (replacement)"
        bad = text.count("\ufffd")
        warnings.append(
            f"replacement_characters: decoded as UTF-8 with {bad} undecodable byte "
            "sequence(s) replaced by U+FFFD"
        )
    control = _control_share(text)
    if control > _MAX_CONTROL_SHARE:
        raise ParseError(
            "undecodable",
            f"{path}: binary data, not text ({control:.0%} control characters when decoded "
            f"as {enc})",
        )
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:
        text = text.replace("\x00", "")
    return text, enc, warnings


# 第一编 / 第二章 总则 / 第三节 (short, no sentence end); PART II / Chapter 3 Setup
_ZH_DIVISION = re.compile(r"^第[一二三四五六七八九十百零〇\d]+([编篇部章节])(?:[\s\u3000]+\S.{0,24})?$")
_EN_DIVISION = re.compile(r"^(part|chapter)\s+([ivxlc]+|\d+)\b(?:[\s.:—–-]+\S.{0,60})?$",
                          re.IGNORECASE)
_ZH_LEVEL = {"编": 1, "篇": 1, "部": 1, "章": 2, "节": 3}
_SENTENCE_END = ("。", "；", "，", "：", ".", ";", ",", ":")


def division_level(line: str) -> int:
    """The heading level of a plain-text line that names a numbered division of its text
    (module docstring), else 0."""
    s = line.strip()
    if not s or s.endswith(_SENTENCE_END):
        return 0
    if (m := _ZH_DIVISION.match(s)) is not None:
        return _ZH_LEVEL[m.group(1)]
    if (m := _EN_DIVISION.match(s)) is not None:
        return 1 if m.group(1).lower() == "part" else 2
    return 0


def paragraph_blocks(lines: list[str], first_line: int = 1, *, unwrap: bool = True,
                     headings: bool = False) -> list[Block]:
    """Group non-blank lines into paragraph blocks (blank lines separate paragraphs). With
    ``unwrap``, the lines of a hard-wrapped file are joined into their paragraphs
    (:mod:`corpus.parsers._unwrap`; ``line_map`` keeps each source line's number). With
    ``headings``, a line naming a numbered division (:func:`division_level`) is a heading block
    of its own."""
    widths = wrap_width(lines) if unwrap else {}
    blocks: list[Block] = []
    run: list[tuple[str, int]] = []
    for i, line in enumerate([*lines, ""], start=first_line):
        level = division_level(line) if headings else 0
        if line.strip() and not level:
            run.append((line.rstrip(), i))
            continue
        if run:
            blocks.append(unwrap_paragraph(run, widths) if widths else lines_block("text", run))
            run = []
        if level:
            blocks.append(Block("heading", line.strip(), line_start=i, line_end=i, level=level))
    return blocks


def parse_text(path: Path, data: bytes) -> ParsedDocument:
    """Parse a plain-text file into paragraph blocks.

    :raises ParseError: ``undecodable`` (binary data), ``no_text`` (only whitespace).
    """
    text, _enc, warnings = decode_text(data, path)
    blocks = paragraph_blocks(text.split("\n"), headings=True)
    if not blocks:
        raise ParseError("no_text", f"{path}: the file holds only whitespace")
    heads = any(b.kind == "heading" for b in blocks)
    return text_document(path, data, "text", path.stem, blocks, warnings,
                         outline=None if heads else [])
