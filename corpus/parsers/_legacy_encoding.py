"""The encoding of a text file that has no byte-order mark and is not UTF-8: what
``corpus.parsers.text.decode_text`` asks before it tries the Chinese encodings.

The guess is chardetng's (``chardetng-py``: Firefox's detector for unlabelled legacy text,
scoring every legacy encoding of the web over the whole input). A Latin-1 file used to decode
as GB18030 (``Größe`` → ``Gr鲞e``: Latin-1 letter pairs are valid GB18030) or as cp1250
(charset-normalizer's first pick for ``naïve`` → ``naďve``, ``£`` → ``Ł``) without a word.

Three rules are ours. Among the Latin-script encodings, an input that gives the detector nothing
to tell them apart by — fewer than three non-ASCII bytes, or no non-ASCII letter inside a word
in the guessed reading (``£250``, ``± 2 °C``: symbols only) — is read as windows-1252, the
encoding of most unlabelled Western text (and what HTML5 reads ``iso-8859-1`` as); chardetng
alone reads ``Price: £5`` as windows-1250 ``Ł5``. A non-ASCII byte with no letter on either
side (``5 £ au``, ``½ £``) is no evidence either, yet chardetng scores it as a letter of the
Latin encodings that have one there (windows-1250 ``Ł``) and so read whole sentences wrong
(``Le naïve garçon a payé 5 £`` → ``naďve … 5 Ł``, ``Ça coûte 10 £`` → ``coűte``): when it
guesses a Latin-script encoding other than windows-1252, it is asked again with such bytes
hidden (read as spaces), and windows-1252 from that second look wins; a Central European text
keeps its guess, its evidence being letters inside words (``łódź``, ``řeka``). A guess of
another script (Cyrillic, Greek, Japanese, Korean …) is asked again with a Chinese hint
(``tld=b"cn"``), and when the detector then calls it Chinese the caller's GB18030 / Big5 chain
reads it: a few Chinese characters (``杰米·海纳曼``) looked like EUC-KR or ISO-8859-5 to it,
while Russian or Greek prose stays what it is.

Measured on 1,273 pieces of the eval's CMRC and DRCD files written in GB18030 and Big5 (whole
files, lines, the first 12 characters of lines): 16 read wrong, all of 2–12 characters (13
before this module). On 39 other samples (Western European in windows-1252 and Latin-1,
Central European, Turkish, Baltic, Cyrillic, Greek, Hebrew, Arabic, Japanese, Korean): 8 wrong,
27 before — Hungarian windows-1250 (its ő and ű are letters in windows-1252 too, so read as
windows-1252), a lone Russian and a lone Greek word, and the Japanese and Korean samples, read
as GB18030 as before. The second look (lone bytes hidden), on 23 Western sentences with
``£ ¥ ½ ± ©`` in windows-1252 and Latin-1: 6 of 45 files read wrong before, none after; 17 Central
European sentences in windows-1250 and ISO-8859-2 and 15 Turkish, Baltic, Cyrillic and Greek
ones read exactly as before (its 12 Central European misreads — Hungarian, or under 30
characters — stay); 2,419 GB18030/Big5 pieces of 80 CMRC and DRCD files: no change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["LegacyGuess", "guess_legacy", "mostly_utf8"]

# chardetng's names that Python's codecs spell otherwise
_CODEC = {"windows-874": "cp874"}
# multi-byte encodings: decoded by the caller's Chinese chain (GB18030 / Big5) or strictly
_MULTI_BYTE = frozenset({"gb18030", "big5", "shift_jis", "euc-jp", "iso-2022-jp", "euc-kr"})
_CHINESE = frozenset({"gb18030", "big5"})
# single-byte encodings of the Latin script that chardetng tells from windows-1252 by letters
_LATIN = frozenset({"windows-1250", "windows-1254", "windows-1257", "windows-1258",
                    "iso-8859-2", "iso-8859-4", "iso-8859-13", "iso-8859-15"})
_MIN_EVIDENCE_BYTES = 3
_UTF8_VALID_PER_BAD = 4
# a non-ASCII byte with neither an ASCII letter nor another non-ASCII byte on either side
_LONE_BYTE = re.compile(rb"(?<![A-Za-z\x80-\xff])[\x80-\xff](?![A-Za-z\x80-\xff])")


@dataclass(frozen=True, slots=True)
class LegacyGuess:
    """A detector's verdict on bytes that are not UTF-8.

    :param name: the encoding name, lower-case (``windows-1252``, ``gb18030``, ``big5`` …).
    :param multi_byte: a CJK multi-byte encoding.
    :param text: the bytes decoded strictly with ``name``; ``None`` when they are not valid in
        it, and for GB18030 and Big5, which the caller's own chain reads (case 19).
    """

    name: str
    multi_byte: bool
    text: str | None


# the five bytes Python's cp1252 leaves undefined; WHATWG's windows-1252 (the detector's) reads
# them as the C1 controls of the same number, as Latin-1 does
_CP1252_HOLES = {0xDC00 + b: b for b in (0x81, 0x8D, 0x8F, 0x90, 0x9D)}


def _strict(data: bytes, name: str) -> str | None:
    try:
        if name == "windows-1252":
            text = data.decode("cp1252", errors="surrogateescape")
            return text.translate(_CP1252_HOLES)
        return data.decode(_CODEC.get(name, name))
    except (UnicodeDecodeError, LookupError):
        return None


def _letter_in_word(text: str) -> bool:
    """True when a non-ASCII letter stands beside another letter (``ł`` in ``małym``)."""
    for i, c in enumerate(text):
        if ord(c) > 0x7F and c.isalpha() and (
            (i > 0 and text[i - 1].isalpha()) or (i + 1 < len(text) and text[i + 1].isalpha())
        ):
            return True
    return False


def _hide_lone_bytes(data: bytes) -> bytes:
    """``data`` with every non-ASCII byte that has no letter byte beside it (``£`` in ``5 £ au``)
    turned into a space: a symbol in windows-1252, a letter in others, such a byte tells the
    Latin encodings apart by nothing but chardetng's liking for one-letter words."""
    return _LONE_BYTE.sub(b" ", data)


def _chinese(name: str) -> str:
    """chardetng's ``gbk`` as the superset GB18030 read here; other names unchanged."""
    return "gb18030" if name == "gbk" else name


def guess_legacy(data: bytes) -> LegacyGuess:
    """The legacy encoding of ``data`` (no BOM, not valid UTF-8) by chardetng; a Latin-script
    guess that rests on lone symbol bytes, or has no evidence, is windows-1252 (module
    docstring).

    :param data: the file's bytes.
    :returns: the guess; its ``text`` is ``None`` for a Chinese guess or bytes invalid in the
        guessed encoding (never for windows-1252, read as WHATWG reads it).
    """
    from chardetng_py import detect

    name = _chinese(detect(data, allow_utf8=False).lower())
    if name not in _CHINESE and name not in _LATIN and name != "windows-1252" \
            and _chinese(detect(data, allow_utf8=False, tld=b"cn").lower()) in _CHINESE:
        name = "gb18030"  # Cyrillic, Greek, Japanese … or Chinese: Chinese is the likelier
    if name in _CHINESE:
        return LegacyGuess(name, True, None)
    if name in _MULTI_BYTE:  # Japanese, Korean: valid GB18030 too, read as such before
        return LegacyGuess(name, True, _strict(data, name))
    if name in _LATIN and detect(_hide_lone_bytes(data), allow_utf8=False).lower() \
            == "windows-1252":
        name = "windows-1252"  # the guess rested on symbols read as letters (module docstring)
    text = _strict(data, name)
    if name in _LATIN:
        high = sum(1 for b in data if b > 0x7F)
        if high < _MIN_EVIDENCE_BYTES or text is None or not _letter_in_word(text):
            return LegacyGuess("windows-1252", False, _strict(data, "windows-1252"))
    return LegacyGuess(name, False, text)


def mostly_utf8(data: bytes) -> bool:
    """True when ``data`` is UTF-8 with a few bad bytes: at least four valid non-ASCII
    characters per undecodable sequence (Latin-1 text holds next to no valid UTF-8 sequence,
    GBK and Big5 text more bad than valid ones)."""
    text = data.decode("utf-8", errors="replace")
    bad = text.count("\ufffd")
    valid = sum(1 for c in text if ord(c) > 0x7F) - bad
    return bad > 0 and valid >= _UTF8_VALID_PER_BAD * bad
