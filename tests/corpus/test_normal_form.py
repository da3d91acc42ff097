"""corpus._normal_form (by whitespace runs) gives what the rules of corpus.citations say applied
character by character: the same normal form and the same source index for each character."""

from __future__ import annotations

import random
import unicodedata

from corpus._normal_form import NormalForm, is_cjk


def _by_character(text: str) -> tuple[str, list[int]]:
    """The rules one character at a time (the implementation before 2026-12)."""
    chars: list[str] = []
    src: list[int] = []
    last_cjk = False
    pending = -1  # source index of a whitespace run not yet emitted
    for i, ch in enumerate(text):
        norm = unicodedata.normalize("NFKC", ch) if ord(ch) > 0x7F else ch
        src_cjk = ord(ch) > 0x7F and is_cjk(ch)
        for n in norm:
            if n.isspace():
                pending = i if pending < 0 else pending
                continue
            cjk = src_cjk or (ord(n) > 0x7F and is_cjk(n))
            if pending >= 0 and chars and not last_cjk and not cjk:
                chars.append(" ")
                src.append(pending)
            pending = -1
            chars.append(n)
            src.append(i)
            last_cjk = cjk
    return "".join(chars), src


def _fast(text: str) -> tuple[str, list[int]]:
    form = NormalForm(text)
    return form.norm, [form.source(i) for i in range(len(form.norm))]


# whitespace of every kind, Latin, Han, full-width forms (NFKC: one other character), forms of
# another length (ligatures, ⑴, ㎒, "¨" → space + combining mark, "…"), Hangul, combining marks
_POOL = list(" \t\n\r\x0b\x0c\x1c\x85\xa0\u3000\u2028\u2007abcXYZ019.,-|") + list(
    "中文档，。（）：；、！？「」ﬁﬂ¨ＡＢ１⑴㎒ｶﾞ가가é\u0301Å\u212b½ſ\ufe49\u3392\u2474…\U0002f800"
)


def test_same_as_character_by_character() -> None:
    rnd = random.Random(19)
    texts = ["", " ", "a", "中", " a \n b ", "新文档，\n\nFact C", "ﬁ ﬁ\n中 ﬁ", "x ¨ y", "a …\n文"]
    texts += ["".join(rnd.choice(_POOL) for _ in range(rnd.randrange(1, 24))) for _ in range(20000)]
    for text in texts:
        assert _fast(text) == _by_character(text), repr(text)


def test_every_character_in_context() -> None:
    for code in range(0x80, 0x3200):
        ch = chr(code)
        for text in (ch, f"a {ch} b", f"中 {ch}\n文", f" \n{ch}{ch} "):
            assert _fast(text) == _by_character(text), hex(code)
