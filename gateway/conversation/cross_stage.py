"""The cross-language part of the conversation stage: a question in one language on documents in
the other gets key terms in the documents' language appended — the LLM's translation when a model
is configured (``gateway.conversation.llm.LLMConversation.key_terms``), else the dictionary's and
the collection's terms (:class:`gateway.conversation.crosslang.CrossLanguage`).

Without an LLM, the dictionary's answer for a question (terms or none) is kept per collection
while the collection's corpus version is the one known without I/O and for at most the
dictionary's own ``cache_s`` (its language counts and document names live that long): a question
asked again — every cache hit in a collection with documents in both languages — gets the same
terms without the worker thread and the dictionary walk (about 0.25 ms of a hit's 0.4 ms CPU on a
Chinese + English collection), and nothing at all to do when there were none
(:meth:`CrossLanguageStage.idle_for`).

Used by :class:`gateway.conversation.service.ConversationService` for every request. Route record
fields written here: ``cross_language`` (terms, units, coverage, a document named by file name),
``cross_language_llm`` (translation, terms, tokens); flags ``crosslang_llm_skipped``,
``crosslang_llm_failed``, ``crosslang_llm_unused``.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from gateway.conversation import cedict
from gateway.conversation.crosslang import CrossLanguage
from gateway.conversation.crosslang_choice import CrossTerms
from gateway.conversation.english_terms import codes
from gateway.conversation.rewrite import Rewrite
from gateway.routing import RouteTrace

__all__ = ["CrossLanguageStage"]


class CrossLanguageStage:
    """Key terms in the documents' language for one request's question.

    :param cross_language: the dictionary / collection terms, or ``None`` (the stage is off).
    :param llm_key_terms: async ``(question, language) -> KeyTerms | [terms]`` (the LLM's
        translation), or ``None`` (no LLM).
    :param llm_timeout_s: seconds the LLM call may take (then the dictionary's terms stand,
        flagged ``crosslang_llm_failed``); ``None``: the client's own timeout only.
    :param cached_version: ``collection -> corpus version`` when known without I/O, else
        ``None``; without it (or with an LLM) nothing is kept (module docstring).
    :param memo_entries: questions kept (least recently used dropped first).
    """

    def __init__(self, cross_language: CrossLanguage | None,
                 llm_key_terms: Callable[..., Any] | None = None,
                 llm_timeout_s: float | None = None, *,
                 cached_version: Callable[[str], str | None] | None = None,
                 memo_entries: int = 4096) -> None:
        self.cross_language = cross_language
        self.llm_key_terms = llm_key_terms
        self.llm_timeout_s = llm_timeout_s
        self.cached_version = cached_version if llm_key_terms is None else None
        self.memo_entries = memo_entries
        # (question, collection) -> (corpus version, kept until (monotonic), the terms or None)
        self._memo: OrderedDict[tuple[str, str], tuple[str, float, CrossTerms | None]] = \
            OrderedDict()

    def idle_for(self, question: str, collection: str) -> bool:
        """True when :meth:`apply` would return its rewrite unchanged without I/O (the stage
        is off, the collection holds no document in the other script, or the question got no
        terms at this corpus version)."""
        cl = self.cross_language
        if cl is None or cl.known_absent(question, collection):
            return True
        kept = self._kept(question, collection)
        return kept is not None and kept[0] is None

    def _kept(self, question: str, collection: str) -> tuple[CrossTerms | None] | None:
        """``(terms or None,)`` kept for ``question`` at the current corpus version, or
        ``None`` when nothing valid is kept."""
        if self.cached_version is None:
            return None
        key = (question, collection)
        item = self._memo.get(key)
        if item is None:
            return None
        version, until, found = item
        if until < time.monotonic() or version != self.cached_version(collection):
            del self._memo[key]
            return None
        self._memo.move_to_end(key)
        return (found,)

    def _keep(self, question: str, collection: str, version: str | None,
              found: CrossTerms | None) -> None:
        """Keep the dictionary's answer when it cannot have depended on time: the corpus
        version was known before it was computed and is unchanged, the index was ready."""
        cl = self.cross_language
        if (version is None or cl is None or not cedict.is_ready() or self.cached_version is None
                or self.cached_version(collection) != version):
            return
        self._memo[(question, collection)] = (version, time.monotonic() + cl.cache_s, found)
        self._memo.move_to_end((question, collection))
        while len(self._memo) > self.memo_entries:
            self._memo.popitem(last=False)

    def known_question(self, question: str, collection: str) -> str:
        """``question`` as :meth:`apply` would return it when that is known without I/O (no
        terms to add, or terms kept at this corpus version), else ``question`` as asked: the
        near-cache key a short way through the HTTP stack looks for
        (``gateway.api.query_fast``)."""
        if self.idle_for(question, collection):
            return question
        kept = self._kept(question, collection)
        if kept is None or kept[0] is None:
            return question
        return _with_terms(question, kept[0])

    async def apply(self, rw: Rewrite, collection: str, record: RouteTrace) -> Rewrite:
        """``rw`` with the question's key terms in the documents' language appended."""
        if self.cross_language is None:
            return rw
        if self.cross_language.known_absent(rw.question, collection):
            return rw  # no document in the other script: no thread hop (every cache hit)
        kept = self._kept(rw.question, collection)
        if kept is not None:
            found = kept[0]  # asked before at this corpus version: no thread hop
        else:
            version = (self.cached_version(collection) if self.cached_version is not None
                       else None)
            try:
                found = await self._llm_terms(rw.question, collection, record)
                if found is None:
                    found = await asyncio.to_thread(self.cross_language.terms_for, rw.question,
                                                    collection)
                    self._keep(rw.question, collection, version, found)
            except Exception as exc:  # noqa: BLE001 - the question goes as it is
                record.error(f"cross_language: {type(exc).__name__}: {exc}")
                return rw
        if found is None:
            return rw
        named = found.document
        record.translated(found.terms, found.units, found.coverage,
                          named[1] if named is not None else None)
        text = _with_terms(rw.question, found)
        return Rewrite(rw.original, text, (*rw.rules, "cross_language"),
                       rw.by if rw.by != "none" else "rules",
                       rw.focus_doc or (named[0] if named is not None else None))

    async def _llm_terms(self, question: str, collection: str,
                         record: RouteTrace) -> CrossTerms | None:
        """The LLM's key terms in the documents' language that the collection holds, with its
        translation as the phrase to append, or ``None`` (no LLM, same language; a document in
        the question's own language holds it, or a mixed collection's question names no
        document in the other language (``CrossLanguage.translation_skip``): flag
        ``crosslang_llm_skipped``, no call; a failed
        or late call: flag ``crosslang_llm_failed``; a reply with no term the collection holds:
        flag ``crosslang_llm_unused``). The model's translation is kept in the route record
        either way; the dictionary's terms stand in for ``None``."""
        cl, terms_of = self.cross_language, self.llm_key_terms
        if terms_of is None or cl is None:
            return None
        target = await asyncio.to_thread(cl.target_for, question, collection)
        if target is None:
            return None
        if await asyncio.to_thread(cl.translation_skip, question, collection, target):
            # a document in the question's own language holds it (an English question on the
            # English pages of a mixed collection), or a mixed collection's question names no
            # document in the other language: no model call, the dictionary's bounds
            record.flag("crosslang_llm_skipped")
            return None
        try:
            async with asyncio.timeout(self.llm_timeout_s):
                got = await terms_of(question, target)
        except Exception:  # noqa: BLE001 - the dictionary terms are used instead
            record.flag("crosslang_llm_failed")
            return None
        terms = list(getattr(got, "terms", got))
        record.llm_translated(getattr(got, "translation", None), terms,
                              getattr(got, "prompt_tokens", 0),
                              getattr(got, "completion_tokens", 0))
        kept = await asyncio.to_thread(cl.present, collection, terms)
        if not kept:
            record.flag("crosslang_llm_unused")
            return None
        # the whole translation goes with the question (searched with both): measured on the 30
        # English zh-PDF dev questions, 8 zh PDFs, e5 + BM25, Qwen2.5-Coder-1.5B: evidence hit
        # 70.0 % with its terms appended, 73.3 % with its and the dictionary's, 80.0-83.3 % with
        # the translation (two runs; dictionary only: 56.7 %; the Chinese originals: 90.0 %)
        phrase = getattr(got, "phrase", None) or None
        # in a collection mostly in the target language the translation is routed alone: with
        # the English question in front, its words (matching no passage) still led the answer
        # choice to other units — the 30 English zh-PDF dev questions reached 66.7 % evidence
        # hit with the translation appended (issue 16; the Chinese originals: 90.0 %)
        alone = bool(phrase) and await asyncio.to_thread(cl.mostly_in, collection, target)
        return CrossTerms(tuple(kept), ("llm",), round(len(kept) / max(1, len(terms)), 3),
                          phrase=phrase, alone=alone)


def _with_terms(question: str, found: CrossTerms) -> str:
    """``question`` with the terms (or the translation) appended, as it is routed; or the
    translation alone (``found.alone``), with the question's codes it lacks (TH2817B)."""
    if found.alone and found.phrase:
        lacking = [c for c in codes(question) if c.lower() not in found.phrase.lower()]
        return " ".join([found.phrase, *lacking])
    added = found.phrase or " ".join(found.terms)
    return f"{question} ({added})" if added else question
