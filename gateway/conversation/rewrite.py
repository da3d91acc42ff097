"""Rule-based query rewriting: a follow-up becomes a standalone question, without an LLM.

Rules, in order (each names itself in :attr:`Rewrite.rules`, shown in the route record):

1. ``relative_date`` — with ``current_date``: "last year" → 2024, "this month" → November 2025,
   "yesterday" → 2025-11-10, 去年 → 2024年, 上个月 → 2025年10月 …
2. ``year_step`` — "and the year before?", "what about the following year?", 上一年呢: the one
   year the previous question named, one year back or on ("What was Nike's net income in
   FY2019?" → "… in FY2018?"; a new-user trial got the FY2019 answer again);
3. ``ordinal`` — "the next one", "the following type", "the one below it", "the level above
   that", "the last one", 下一个 …: the item the previous question named is found in an ordered
   list of the documents the previous answer cited (sibling headings, table rows, list items,
   :mod:`gateway.conversation.items`), the step is taken and the new item replaces the old one
   in the previous question ("What is the prefix for Group Channels in Slack?" + "And for the
   next one?" → "What is the prefix for Location Channels in Slack?"). When the follow-up says
   more than the step ("For the next item, are family plans covered?") the item replaces the
   step phrase in the follow-up instead. A numbered label the previous question named
   (第二十一条, Clause 4, Section 3.2: :mod:`corpus.labels`) is stepped first:
   下一条呢？ → 第二十二条, along the labels that open a line of the cited documents, else by
   its number;
4. ``substitute`` — "And for the CFO?", "What about 2019?", 那2019年呢, 三年以上的呢: the new
   entity replaces a numbered label of the same kind (那第二十条呢), else the one of the same
   list (an item list holding both), else the place of the same kind in the previous
   question (:func:`gateway.routing.slots.fill_slot`: the same shape — year, quantity or
   range with its unit, acronym, code, number —, the value of an attributive for 无固定期限的,
   the noun phrase with the same head word, the A or B of "A的B是多少"), else a name alone
   ("And Lisbon?") the one name the previous question holds, codes and periods aside.
5. ``pronoun`` — it / its / they / this …, 它 / 其 / 该: the previous question's topic
   (:func:`gateway.conversation.topic.previous_topic`: its possessor, the named item, its
   phrase after of/for/about …) replaces the first pronoun; a demonstrative before a noun of
   its own ("this product's price") is no pronoun (:func:`gateway.routing.wordclass.determiner`).
6. ``own_question`` (Chinese) — a follow-up that asks a question of its own (a question word
   and two content words: 违反的话怎么处罚？ after 网络运营者应当留存相关的网络日志不少于多久？):
   the previous question's subject (its first noun run, 网络运营者) is put before it, not the
   whole previous question, whose own ask (多久) would draw retrieval back to the previous
   answer (a new-user trial got the log-retention clause again);
7. ``previous_question`` — any other follow-up (short, or opening with and/also/what about, 那/
   还有): the previous standalone question is put before it, as retrieval did before.

A question that is not a follow-up (:func:`gateway.routing.followup.is_followup`: a leading
"and"/"what about"/那, a step with nothing to step from, a pronoun with no antecedent in the
question, or an ellipsis), or has no previous turn, is returned unchanged except for rule 1: a
new standalone question asked after an unrelated one is never merged with it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import rjieba

from corpus.labels import ITEM_KINDS, find_label, step_label
from corpus.term_match import is_code
from gateway.conversation.dates import resolve_dates, step_year
from gateway.conversation.items import ItemList, find_anchor, find_anchors, move, words
from gateway.conversation.topic import one_name, previous_topic
from gateway.routing.followup import LEAD_ZH, content_zh, is_followup, mask_not_pronouns
from gateway.routing.slots import fill_slot, subject_zh
from gateway.routing.wordclass import determiner

__all__ = ["Rewrite", "is_followup", "resolve_dates", "rewrite_rules"]


@dataclass(frozen=True, slots=True)
class Rewrite:
    """A question as asked (``original``) and as read (``question``); ``rules`` that fired;
    ``by`` is ``rules``, ``llm`` or ``none``."""

    original: str
    question: str
    rules: tuple[str, ...] = ()
    by: str = "none"
    #: the document whose item list resolved the follow-up (retrieval starts there), or None
    focus_doc: str | None = None

    @property
    def changed(self) -> bool:
        """True when the question was rewritten."""
        return self.question != self.original


_STEP_WORDS = (r"one|item|type|category|level|row|entry|channel|section|layer|division|"
               r"step|stage|tier|group|clause|rule|option")
_ORDINAL = re.compile(
    r"\b(?:the\s+)?(?:(?P<kw>next|following|subsequent|previous|preceding|prior|last|first|"
    r"final)(?:\s+(?:" + _STEP_WORDS + r"))?"
    r"|(?:" + _STEP_WORDS + r")\s+(?P<kw2>after|before|below|above|under|beneath)"
    r"(?:\s+(?:that|it|this))?"
    r"|(?P<kw3>after|before|below|above)\s+(?:that|it|this))\b"
    r"|(?P<zh>下一|上一|前一|后一|最后一|第一)(?:个|项|条|种|类|级)?",
    re.IGNORECASE,
)
_STEPS: dict[str, int | str] = {
    "next": 1, "following": 1, "subsequent": 1, "after": 1, "below": 1, "under": 1,
    "beneath": 1, "previous": -1, "preceding": -1, "prior": -1, "before": -1,
    "above": -1, "last": "last", "final": "last", "first": "first",
    "下一": 1, "后一": 1, "上一": -1, "前一": -1, "最后一": "last", "第一": "first"}
_LEAD = re.compile(r"^\s*(?:and|but|also|so|then|ok(?:ay)?|what about|how about|what of|"
                   r"same for|and for|and in|and the|for|in)\b[\s,]*", re.IGNORECASE)
_ENTITY = re.compile(
    r"^\s*(?:and|but|also|ok(?:ay)?,?)?\s*(?:what about|how about|what of|same for|and|for|in)"
    r"\s+(?:for\s+|in\s+|about\s+)?(?P<x>[^?？]{1,60}?)\s*[?？]?\s*$"
    r"|^\s*(?:那么?|还有)\s*(?P<zx>[^？?]{1,30}?)(?:呢|怎么样|如何)?\s*[?？]?\s*$"
    r"|^\s*(?P<zy>[^？?，,。]{1,30}?)(?:呢|怎么样|又如何)\s*[?？]?\s*$",  # 三年以上的呢？
    re.IGNORECASE,
)
# a preposition or copula before the new phrase (那对于无固定期限的呢, 那如果是CH583呢)
_ZH_INTRO = re.compile(r"^(?:对于|关于|如果是|如果|要是|若是|换成|改成|是)")
_PRONOUN = re.compile(r"\b(?P<p>its|it|they|them|their|this|that|these|those)\b|(?P<z>它|其|该)",
                      re.IGNORECASE)
_GENERIC = frozenset(_STEP_WORDS.split("|")) | {"that", "it", "this", "after", "before",
                                                "below", "above", "under", "about", "what"}
_CJK = re.compile(r"[\u3400-\u9fff]")
# a name alone: one to three capitalised words ("Lisbon", "New York", "Acme Corp")
_NAME_ONLY = re.compile(r"[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,2}")
_ZH_ASK = re.compile(r"怎么|怎样|如何|为什么|为何|什么|哪些|哪个|哪里|哪|多少|多久|多长|几|是否|"
                     r"能否|可否|吗")
_ZH_CONTENT_TAGS = ("n", "v", "l", "eng", "j")


def _content_words_zh(text: str) -> int:
    """Nouns and verbs of a Chinese text (jieba's tags), question words not counted."""
    return sum(1 for tok, tag in rjieba.tag(text)
               if tag.startswith(_ZH_CONTENT_TAGS) and not _ZH_ASK.fullmatch(tok))


def _replace_span(text: str, old: str, new: str) -> str | None:
    """``text`` with the words of ``old`` (literal, else the span from its first to its last
    content word) replaced by ``new``; ``None`` when they are not all there."""
    i = text.lower().find(old.lower())
    if i >= 0 and old:
        return text[:i] + new + text[i + len(old):]
    spans = []
    for w in words(old):
        m = re.search(r"(?<![\w#])" + re.escape(w) + r"(?![\w])", text, re.IGNORECASE)
        if m is None:
            return None
        spans.append(m.span())
    if not spans:
        return None
    a, b = min(s[0] for s in spans), max(s[1] for s in spans)
    return text[:a] + new + text[b:]


def _ordinal(question: str, previous: str, lists: Sequence[ItemList], cited: int
             ) -> tuple[str | None, str | None] | None:
    m = _ORDINAL.search(question)
    if m is None:
        return None
    key = (m.group("kw") or m.group("kw2") or m.group("kw3") or m.group("zh") or "").lower()
    step = _STEPS.get(key)
    if step is None:
        return None
    if find_label(question) is not None:
        return None  # 第一条呢？ names its clause: a substitution, not a step
    label = find_label(previous)
    if label is not None:  # 第二十一条 → 下一条 → 第二十二条 (corpus.labels)
        # stepped along the labels of the document the previous question was about: the one
        # whose cited chunk holds the label (two laws in a collection both have a 第七十九条; a
        # trial stepped past the cybersecurity law's last article into the labour law's)
        home = _label_home(lists, label.text, cited)
        known = [t for lst in lists if lst.kind == "numbered"
                 and (home is None or lst.doc_id == home) for t in lst.items]
        numbered = step_label(label, step, known)
        if numbered is None and isinstance(step, int) and label.kind in ITEM_KINDS:
            # past the last article: ask for the one after it, which the answer checks find
            # missing ("not found", corpus.labels.other_item), rather than repeat the last
            last = label.number[-1] + step
            numbered = label.with_number((*label.number[:-1], last)) if last >= 1 else None
        if numbered is not None:  # asked in that document (past its end: "not found")
            doc = home or next((lst.doc_id for lst in lists if numbered in lst.items), None)
            return _stepped(question, m, previous, label.text, numbered), doc
    anchors = find_anchors(previous, lists, cited=cited)
    moved = next(((a, t) for a in anchors[:8] if (t := move(a, step)) is not None), None)
    if moved is None:
        return None
    anchor, target = moved
    return _stepped(question, m, previous, anchor.label, target), anchor.lst.doc_id


def _label_home(lists: Sequence[ItemList], label: str, cited: int) -> str | None:
    """The document whose numbered list holds ``label``: one whose cited chunk (of the first
    ``cited``) holds it first, else the first listing it; ``None`` when none does."""
    held = [(lst, i) for lst in lists if lst.kind == "numbered"
            for i, t in enumerate(lst.items) if t == label]
    home = next((lst for lst, i in held if any(h < cited for h in lst.held_by(i))), None)
    return (home or held[0][0]).doc_id if held else None


def _stepped(question: str, m: re.Match[str], previous: str, old: str, new: str) -> str | None:
    """The previous question with ``old`` replaced by ``new``; or, when the follow-up says more
    than the step ("For the next item, are family plans covered?", 下一条的罚款是多少？), the
    follow-up with ``new`` in place of the step phrase."""
    rest = _LEAD.sub("", question[: m.start()] + " " + question[m.end():])
    if (content_zh(LEAD_ZH.sub("", rest)) >= 2 if _CJK.search(rest)
            else set(words(rest)) - _GENERIC):
        return (question[: m.start()] + new + question[m.end():]).strip()
    return _replace_span(previous, old, new)


def _substitute(question: str, previous: str, lists: Sequence[ItemList], cited: int
                ) -> tuple[str | None, str | None] | None:
    m = _ENTITY.match(question)
    if m is None:
        return None
    x = (m.group("x") or m.group("zx") or m.group("zy") or "").strip()
    x = re.sub(r"^(?:the|a|an)\s+", "", x, flags=re.IGNORECASE)
    x = _ZH_INTRO.sub("", x).strip()
    new, old = find_label(x), find_label(previous)
    if not x or (_ORDINAL.search(x) and new is None) or _PRONOUN.match(mask_not_pronouns(x)):
        return None
    if new is not None and old is not None and new.kind == old.kind:  # 那第二十三条呢？
        return previous[: old.start] + new.text + previous[old.end:], None
    anchor = find_anchor(previous, lists, must_contain=x, cited=cited)
    if anchor is not None and words(anchor.label) != words(x):
        return _replace_span(previous, anchor.label, x), anchor.lst.doc_id
    filled = fill_slot(previous, x)  # the place of the same kind (gateway.routing.slots)
    if filled:
        return filled[0], None
    # a name for the one name the previous question holds: "And Lisbon?" after "How many
    # employees does the Berlin office have?" (a trial got Berlin's 42 again, glued)
    # (codes and periods are no name: "Nike" of "What was Nike revenue in FY2019?")
    plain = " ".join(w for w in previous.split() if not is_code(w.strip("?.,;:'’s").lower()))
    name = one_name(plain) if _NAME_ONLY.fullmatch(x) and not is_code(x.lower()) else None
    if name is not None and name != x:
        return re.sub(rf"\b{re.escape(name)}\b", x, previous, count=1), None
    return None


def _pronoun(question: str, previous: str, lists: Sequence[ItemList], cited: int
            ) -> tuple[str | None, str | None] | None:
    # a demonstrative before a noun of its own is no pronoun ("And this product's price?")
    # 其 / 该 inside a word are none (其他, 应该: a trial read "那其他城市呢？" as
    # "那城市住宿费他城市呢？"), as the follow-up test reads them
    m = next((p for p in _PRONOUN.finditer(mask_not_pronouns(question))
              if not determiner(question, p.start(), p.end())), None)
    if m is None:
        return None
    topic = previous_topic(previous, find_anchor(previous, lists, cited=cited))
    if not topic:
        return None
    if m.group("z"):
        return question[: m.start()] + topic + question[m.end():], None
    rep = f"{topic}'s" if m.group("p").lower() in ("its", "their") else topic
    return question[: m.start()] + rep + question[m.end():], None


def _own_question(question: str, previous: str, lists: Sequence[ItemList], cited: int
                  ) -> tuple[str | None, str | None] | None:
    if not _CJK.search(question):
        return None
    rest = LEAD_ZH.sub("", question).lstrip(" ，,").strip()
    if not _ZH_ASK.search(rest) or _content_words_zh(rest) < 2:
        return None
    subject = subject_zh(previous)
    if not subject or subject in rest:
        return None
    return subject + rest, None


def _year_step(question: str, previous: str, lists: Sequence[ItemList], cited: int
               ) -> tuple[str | None, str | None] | None:
    out = step_year(question, previous)
    return None if out is None else (out, None)


def rewrite_rules(question: str, previous: str | None, lists: Sequence[ItemList] = (),
                  current_date: str | None = None, *, cited: int = 0) -> Rewrite:
    """Rewrite ``question`` into a standalone question (module docstring, rules 1-7).

    :param previous: the previous turn's standalone question, or ``None``.
    :param lists: item lists of the documents the previous answer cited
        (:func:`gateway.conversation.items.item_lists`).
    :param current_date: ``YYYY-MM-DD`` for relative dates, or ``None``.
    :param cited: the first ``cited`` chunks the lists were read from are the ones the previous
        answer cited (an item they hold is preferred as the one the previous question named).
    :raises ValueError: a malformed ``current_date``.
    """
    q, dated = resolve_dates(question, current_date)
    rules = ["relative_date"] if dated else []
    if previous and is_followup(question):
        prev, _ = resolve_dates(previous, current_date)
        for name, rule in (("year_step", _year_step), ("ordinal", _ordinal),
                           ("substitute", _substitute),
                           ("pronoun", _pronoun), ("own_question", _own_question)):
            out, focus = rule(q, prev, lists, cited) or (None, None)
            if out and out.strip() and out.strip() != q.strip():
                return Rewrite(question, _tidy(out), (*rules, name), "rules", focus)
        return Rewrite(question, f"{prev.strip()} {q.strip()}", (*rules, "previous_question"),
                       "rules")
    return Rewrite(question, q, tuple(rules), "rules" if rules else "none")


def _tidy(text: str) -> str:
    text = re.sub(r"\s+([,?？])", r"\1", " ".join(text.split()))
    return text[:1].upper() + text[1:] if text else text

