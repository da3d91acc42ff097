"""Whether a line holds the value a model copied from it (the pick step of the line-reading
protocol, ``loop.policies.read_pick``): the forms a value and a line are compared in (spaces,
punctuation, table cell bars, NFKC, Chinese capital numerals as figures), and what is no value
(a yes / no reply, a heading's section number, a figure alone in a second round).
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["NO_VALUE", "bare_figure", "line_holds", "spaced"]


def _flat(text: str) -> str:
    return re.sub(r"[\s|]+", "", unicodedata.normalize("NFKC", text)).casefold()


# replies that name no line's content: a yes/no answer is no value to look for
NO_VALUE = frozenset({"yes", "no", "true", "false", "none", "n/a", "是", "否", "有", "无"})


def spaced(text: str) -> str:
    """NFKC, case-folded, table cell bars as spaces (``| | 320 | | uA |`` holds ``320 uA``),
    spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().replace("|", " ").split())


def _bounded(value: str, text: str) -> bool:
    """``value`` occurs in ``text`` not inside a longer run of ASCII letters or digits."""
    def edge(ch: str, inner: str) -> bool:
        return not (ch.isascii() and ch.isalnum() and inner.isascii() and inner.isalnum())
    for m in re.finditer(re.escape(value), text):
        i, j = m.start(), m.end()
        if (i == 0 or edge(text[i - 1], value[0])) and (j == len(text) or edge(text[j],
                                                                               value[-1])):
            return True
    return False


_AROUND_MARK = re.compile(r"\s*([^\w\s])\s*")


def _tight(text: str) -> str:
    """:func:`spaced`, then no space next to a punctuation mark or symbol (``2019 - 07 -11``
    reads ``2019-07-11``); a space between two words or figures stays (``rice 2019``)."""
    return _AROUND_MARK.sub(r"\1", spaced(text))


_CN_DIGITS = {**dict.fromkeys("零〇", 0), **{c: i for i, c in enumerate("一二三四五六七八九", 1)},
              **{c: i for i, c in enumerate("壹贰叁肆伍陆柒捌玖", 1)}, "两": 2, "貳": 2, "參": 3,
              "陸": 6}
_CN_TENS = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
_CN_RUN = re.compile(f"[{''.join(_CN_DIGITS)}{''.join(_CN_TENS)}]+")
_CN_UPPER = frozenset("壹贰貳叁參肆伍陆陸柒捌玖拾佰仟")


def _cn_run_value(run: str) -> int:
    """A run of Chinese numerals below 10,000 as its value (``贰佰伍拾`` 250, ``二〇二三``
    2023, ``十二`` 12)."""
    if not any(ch in _CN_TENS for ch in run):
        return int("".join(str(_CN_DIGITS[ch]) for ch in run))
    total = digit = 0
    for ch in run:
        if ch in _CN_TENS:
            total += (digit or 1) * _CN_TENS[ch]
            digit = 0
        else:
            digit = _CN_DIGITS[ch]
    return total + digit


def _arabic(text: str) -> str:
    """``text`` with its runs of Chinese numerals in the capital forms contracts and invoices
    write amounts in (大写: 壹 贰 … 拾 佰 仟) as Arabic figures (万 / 亿 stay as the unit they
    are written as: ``贰佰伍拾 万元`` reads ``250 万元``). A run of common numerals stays: with
    them the model's invented ``30`` (zhpdf:17, '试用期内提前几天', gold 三日) was held by
    '提前三十日' of another article and moved the pick off the offline answer's line."""
    def sub(m: re.Match[str]) -> str:
        run = m[0]
        return str(_cn_run_value(run)) if any(ch in _CN_UPPER for ch in run) else run
    return _CN_RUN.sub(sub, text)


def _holds(value: str, text: str) -> bool:
    """``value`` is in ``text`` (NFKC, case-folded; with spaces collapsed, without spaces
    around punctuation, or both without spaces: ``15 m`` / ``15m``), not inside a longer run
    of Latin letters or digits (``3`` is not in ``13``, ``no`` not in ``notice``). The
    space-free form alone joins a figure to the word before it: a PDF's ``Sheyang rice 2019 -
    07 -11 发布`` held the copied ``2019-07-11`` only as ``rice2019-07-11`` (zh-PDF dev). An
    amount a line writes in Chinese numerals is held as its figure (:func:`_arabic`: the model
    copied ``250万元`` from ``贰佰伍拾 万元``, zh-PDF dev zhpdf:26)."""
    if not value:
        return False
    if (_bounded(spaced(value), spaced(text)) or _bounded(_tight(value), _tight(text))
            or _bounded(_flat(value), _flat(text))):
        return True
    digits = _arabic(text)
    return digits != text and _bounded(_flat(_arabic(value)), _flat(digits))


_FIGURE_ONLY = re.compile(r"[-+−(]?\s*[$€£¥]?\s*\d[\d,.]*\s*%?\)?")


def bare_figure(value: str) -> bool:
    """``value`` is a number alone: digits with thousands / decimal separators, a sign,
    brackets, a currency sign or ``%`` (``57,046``, ``3``, ``$1.2``, ``(1,234)``); not a date
    (``2019-07-11``) nor a figure with a word or unit (``250万元``, ``15 m``)."""
    return _FIGURE_ONLY.fullmatch(unicodedata.normalize("NFKC", value).strip()) is not None


_HEAD_NUMBER = re.compile(r"^\s*(\d+(?:\.\d+)+)\s+(?=[^\W\d])")


def _only_heading_number(value: str, text: str) -> bool:
    """``value`` is the section number a heading line starts with (``3.2`` of ``3.2 Dataset
    Construction …``) and the rest of the line does not hold it: a heading's number, no value
    (MMLongBench dev, mmlongbench:66: the local 1.5B model copied ``3.2`` for "which step …",
    and the heading line replaced an offline answer that held the gold)."""
    m = _HEAD_NUMBER.match(text)
    return m is not None and spaced(value) == m[1] and not _holds(value, text[m.end():])


def line_holds(value: str, text: str) -> bool:
    """``value`` (:func:`spaced`) is held by the line ``text`` (:func:`_holds`) and is not only
    the section number the line starts with (:func:`_only_heading_number`)."""
    return _holds(value, text) and not _only_heading_number(value, text)
