"""Does a question depend on an earlier turn so much that it cannot be answered without one?

A follow-up (``gateway.routing.followup``) is rewritten from the session memory or the
history. Asked with no earlier turn — the first question of a session, a request with neither
``session_id`` nor ``history`` — a question such as 下一条呢？, 那第二十条呢？, "And the next
one?", "What about 2019?" or "and its price?" has nothing to be read against: retrieval then
found some passage for "next" or "2019" and answered it with confidence (issue 16, a new-user
trial). The router answers such a question "not found", saying which reference it could not
resolve (flag ``unresolved_reference``, no citation; ``gateway.routing.router``).

This test is stricter than :func:`gateway.routing.followup.is_followup`, which may fire on a
question that is whole by itself ("And what is the warranty period of the K-200?": a leading
connective). Only the message's first sentence is read (a later one may lean on it: "What is X?
And the next one?" is the decomposer's), without its leading connective (and / what about /
那 / 还有 …), and it depends on an earlier turn when

- ``ordinal`` — it steps along a list with nothing to step from (the next one, 下一条:
  :func:`gateway.routing.followup.dangling_ordinal`);
- ``pronoun`` — a pronoun with nothing in it to refer to (its, 它, 该:
  :func:`gateway.routing.followup.dangling_pronoun`);
- ``ellipsis`` — it asks nothing of its own: a Chinese noun phrase with 呢 and no question word
  or verb (第二十条呢, CH583的呢, 三年以上的呢, an attributive: 无固定期限的呢), a short
  question with no content or no noun (为什么？, 具体怎么操作？), "which one / which of them
  …", "Why?" / "How much?", or after a connective a short phrase with no question word or verb
  ("what about 2019?", "and in 2019?", "and the minimum?").

A question that names what it asks about stands ("What is the next step after approval?",
"CH583支持哪些低功耗模式呢？", "那么网络运营者应当留存日志多久？"). Measured on the dev questions
without a ``context`` field (``tests/gateway/test_unresolved_reference.py``). Pure, no I/O.

Usage example::

    >>> dangling_reference("下一条呢？").kind
    'ordinal'
    >>> dangling_reference("What is the next step after a merge request is approved?") is None
    True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import rjieba

from corpus.evidence.units import CJK
from corpus.labels import asked_item
from gateway.routing.followup import (
    ELLIPSIS_ZH_MAX,
    LEAD_EN,
    LEAD_ZH,
    content_en,
    content_zh,
    dangling_ordinal,
    dangling_pronoun,
    elliptic,
)

__all__ = ["DanglingReference", "dangling_reference", "unresolved_answer"]

_SENTENCE = re.compile(r"(?<=[?？!！。])\s*|(?<=\.)\s+")
_ZH_ASK = re.compile(r"多少|什么|哪|几|多久|多长|多大|多高|如何|怎样|怎么|为什么|为何|是否|能否|"
                     r"可否|吗|谁")
_EN_ASK = re.compile(
    r"\b(?:what|which|who|whom|whose|when|where|why|how|is|are|was|were|do|does|did|can|could|"
    r"should|must|will|would|shall|may|might|has|have|had)\b", re.IGNORECASE)
_FRAGMENT_WORDS = 6  # "and in fiscal year 2019?": a phrase, not a question of its own


@dataclass(frozen=True, slots=True)
class DanglingReference:
    """What in a question refers to an earlier turn: ``kind`` (``ordinal``, ``pronoun``,
    ``ellipsis``; module docstring) and ``phrase``, the words that do (下一条, its, the whole
    question for an ellipsis)."""

    kind: Literal["ordinal", "pronoun", "ellipsis"]
    phrase: str

    def why(self, zh: bool) -> str:
        """Why the phrase needs an earlier turn, in Chinese or English (one clause)."""
        if zh:
            return {"ordinal": f"“{self.phrase}”要从前一个回答列出的条目算起",
                    "pronoun": f"“{self.phrase}”指前一个问题提到的对象",
                    "ellipsis": f"“{self.phrase}”省略了前一个问题问的内容"}[self.kind]
        return {"ordinal": f'"{self.phrase}" steps along a list an earlier answer gave',
                "pronoun": f'"{self.phrase}" refers to something an earlier question named',
                "ellipsis": f'"{self.phrase}" continues an earlier question'}[self.kind]


_QUOTES: tuple[tuple[str, str], ...] = (("「", "」"), ("『", "』"), ("“", "”"), ("《", "》"),
                                         ("（", "）"), ("(", ")"))


def _first_sentence(text: str) -> str:
    """The first sentence of ``text`` (a question mark inside a quotation does not end it)."""
    out = ""
    for piece in _SENTENCE.split(text.strip()):
        out += piece
        if out.strip() and all(out.count(a) <= out.count(b) for a, b in _QUOTES):
            break
    return out.strip()


def _has_verb_zh(text: str) -> bool:
    """jieba tags a verb (``v``, ``vd``; ``vn`` is a noun use) in ``text``."""
    return any(tag in ("v", "vd", "vi", "vg") for _tok, tag in rjieba.tag(text))


def _names_its_noun(text: str, phrase: str) -> bool:
    """A Chinese demonstrative before a code or a name (那台TH2817B): it names what it means."""
    if not CJK.search(phrase) or len(phrase) < 2:
        return False
    after = text[text.find(phrase) + len(phrase):].lstrip()
    if re.match(r"[A-Za-z][A-Za-z0-9._/-]*\d", after):
        return True
    tags = rjieba.tag(after)
    return bool(tags) and tags[0][1].startswith(("nr", "ns", "nt", "nz", "eng"))


def _fragment_zh(rest: str, led: bool) -> bool:
    body = rest.strip(" ？?。!！")
    asks = bool(_ZH_ASK.search(body))
    if re.search(r"呢\s*$", body) or led:
        core = re.sub(r"(?:怎么样|又如何|如何|呢)+$", "", body)
        if (core and not _ZH_ASK.search(core)
                and (core.endswith("的") or not _has_verb_zh(core))
                and content_zh(core) <= ELLIPSIS_ZH_MAX):
            return True  # 第二十条呢, 那CH583的, 三年以上的呢
        if re.search(r"呢\s*$", body):
            return False  # 呢 after a question of its own: CH583支持哪些低功耗模式呢
    # a question naming an article asks about it (第二十二条是什么？), short as it is
    return ((asks or rest.rstrip().endswith(("?", "？"))) and elliptic(rest)
            and asked_item(rest) is None)


def _fragment_en(rest: str, led: bool) -> bool:
    asks = rest.rstrip().endswith("?") or bool(_EN_ASK.search(rest))
    if re.match(r"\s*which (?:one|of (?:them|these|those|the two))\b", rest, re.IGNORECASE):
        return True
    if asks and len(rest.split()) <= 3 and content_en(rest) == 0:
        return True  # "Why?", "How much?"
    return (led and 0 < len(rest.split()) <= _FRAGMENT_WORDS
            and not _EN_ASK.search(rest) and content_en(rest) > 0)


def dangling_reference(question: str) -> DanglingReference | None:
    """What makes ``question`` unanswerable without an earlier turn (module docstring), or
    ``None`` when it can be read by itself.

    :param question: the question as asked (a whole message; only its first sentence is read).
    :returns: the kind and the phrase that refers to an earlier turn, or ``None``.
    """
    first = _first_sentence(question)
    if not first:
        return None
    lead = LEAD_EN.match(first) or LEAD_ZH.match(first)
    rest = first[lead.end():].lstrip(" ,，、：:") if lead else first
    if not rest.strip(" ?？。.!！"):
        return None  # "And?" / "那么？" alone: not a question
    if (phrase := dangling_ordinal(rest)) is not None:
        return DanglingReference("ordinal", phrase)
    if (lead is not None and (phrase := dangling_pronoun(rest)) is not None
            and not _names_its_noun(rest, phrase)):
        # only after a continuation lead ("And its price?", "那它的功耗"): asked first, "What
        # is this product's warranty?", "Can I return it if it is defective?", 这部法律什么时候
        # 开始施行？ are about the collection's own subject (a new-user trial: 12 of 36 such
        # questions were refused)
        return DanglingReference("pronoun", phrase)
    if (_fragment_zh(rest, lead is not None) if CJK.search(rest)
            else _fragment_en(rest, lead is not None)):
        return DanglingReference("ellipsis", first.rstrip(" ?？。.!！"))
    return None


def unresolved_answer(question: str, ref: DanglingReference) -> str:
    """The "not found" answer for ``question`` whose ``ref`` has no earlier turn to resolve it,
    in the question's language: which reference, and how to ask instead."""
    if CJK.search(question):
        return (f"未找到：这个问题接着前面的提问（{ref.why(True)}），但本次对话中没有前一个问题，"
                "无法确定它指什么。请把问题问完整（写明所指的条目、文件或对象），"
                "或在原来的对话中继续提问（loopgate chat；API 用同一个 session_id，"
                "或在 history 中附上前面的问答）。")
    return (f"Not found: this question continues an earlier one ({ref.why(False)}), and this "
            "conversation has no earlier question to read it against. Ask it in full (name the "
            "item, document or subject it refers to), or ask it in the conversation it follows "
            "(loopgate chat; over the API the same session_id, or the earlier turns as history).")
