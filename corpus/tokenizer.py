"""CJK-aware keyword tokenizer: keyword terms and sparse BM25 vectors (issue 2, item 5).

Pipeline for one text (index and query side alike):

1. NFKC (full-width → half-width, ligatures expanded), lower case, Traditional → Simplified
   Chinese (OpenCC ``t2s``, one call per text).
2. One regex pass (:data:`corpus._token_rules.TOKEN_RE`) picks out, in priority order, dates
   (``2024年1月1日`` = ``2024-01-01`` = ``2024/1/1`` → ``2024-01-01`` plus ``2024-01``, ``01-01``,
   ``2024``), versions (``v2.3.1`` → ``2.3.1``, kept whole), numbers with units (``8 kW`` =
   ``8KW`` = ``8千瓦`` → ``8kw`` plus ``8``), codes (``FW-301`` → ``fw-301`` plus its parts
   ``fw``, ``301``; never equal to ``fw-3010``), plain numbers (``1,234.50`` → ``1234.5``),
   Latin words (English stopwords dropped, Snowball-stemmed with py-rust-stemmers) and runs of
   Han characters.
3. Han runs are segmented by rjieba (jieba-rs) in search mode on BOTH sides, so a query word
   that is a sub-word of an indexed compound still matches (``健康`` ∈ ``健康检查``, ``插拔`` ∈
   ``热插拔``); Chinese function words are dropped.

Sparse vectors: index ``mmh3.hash(term, signed=False)`` (stable 32-bit MurmurHash3; colliding
terms add up). Document values are the BM25 term-frequency part
``tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl))`` with ``k1 = 1.2``, ``b = 0.75`` (Robertson &
Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009) and a fixed
``avgdl = 256`` terms (Qdrant keeps no document-length statistics; fastembed's Bm25 uses the same
constant); the IDF factor is applied by Qdrant (``Modifier.IDF``). Query values are the term
counts.

Usage example::

    tok = Tokenizer()
    tok.terms("型号FW-301的额定功率为8kW")   # ['型号', 'fw-301', 'fw', '301', '额定', '功率', ...]
    vec = tok.sparse_query("FW-301 额定功率")
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache

import mmh3

from corpus._token_rules import (
    CJK_STOPWORDS,
    EN_STOPWORDS,
    QUESTION_WORDS,
    TOKEN_RE,
    special_terms,
)
from corpus.figures import FINANCIAL_NUMERAL, ZH_QUANTITY, asks_quantity, holds_figure
from corpus.types import SparseVector

__all__ = ["BM25_AVGDL", "BM25_B", "BM25_K1", "FINANCIAL_NUMERAL", "ZH_QUANTITY", "Tokenizer",
           "asks_quantity", "holds_figure", "term_index"]

# ECMA-48 control sequences (CSI … final byte, OSC … BEL/ST) and C0/C1 controls but tab/newline
_CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|"
                      r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


BM25_K1 = 1.2
BM25_B = 0.75
BM25_AVGDL = 256.0
_STEM_CACHE: dict[str, str] = {}  # word → Snowball stem, capped at 200k words

_QUOTED_RE = re.compile(
    r'"([^"]{2,80})"|“([^”]{2,80})”|「([^」]{1,80})」|『([^』]{1,80})』|\'([^\']{2,80})\''
)
_POSSESSIVE = re.compile(r"['’]s?$")
_PROPER_RE = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][A-Za-z0-9]*(?:[-][A-Z0-9][A-Za-z0-9]*)*)")


@lru_cache(maxsize=1)
def _engines() -> tuple[object, object, object]:
    """Load OpenCC, rjieba's dictionary and the Snowball stemmer once per process."""
    import opencc
    import py_rust_stemmers
    import rjieba

    rjieba.cut("预热")  # forces the dictionary to load now, not on the first real text
    return opencc.OpenCC("t2s"), rjieba, py_rust_stemmers.SnowballStemmer("english")


def term_index(term: str) -> int:
    """Sparse-vector index of a term: unsigned 32-bit MurmurHash3 (``mmh3``), seed 0."""
    return int(mmh3.hash(term, signed=False))


class Tokenizer:
    """Turns text into keyword terms and sparse BM25 vectors (see the module docstring).

    The heavy engines (OpenCC, the jieba dictionary, the stemmer) load once per process on first
    use or on :meth:`warm_up`; instances are cheap and thread-safe for reading.

    :param k1: BM25 term-frequency saturation (default 1.2).
    :param b: BM25 length normalisation (default 0.75).
    :param avgdl: assumed average chunk length in terms (default 256).
    """

    def __init__(self, *, k1: float = BM25_K1, b: float = BM25_B,
                 avgdl: float = BM25_AVGDL) -> None:
        self.k1, self.b, self.avgdl = k1, b, avgdl
        self._stems = _STEM_CACHE  # shared by all instances of the process

    def warm_up(self) -> None:
        """Load OpenCC, the jieba dictionary and the stemmer now (about 0.3 s, once)."""
        _engines()

    def normalize(self, text: str) -> str:
        """NFKC, lower case and Traditional → Simplified: the form every term is taken from
        (use it for substring checks of :meth:`quoted_phrases` against chunk text). Terminal
        escape sequences (ECMA-48 CSI, ``\\x1b[31m``) and other control characters are dropped
        first: a question pasted from a coloured terminal has no term ``31m``."""
        text = _CONTROL.sub(" ", text) if _CONTROL.search(text) else text
        if text.isascii():  # NFKC and OpenCC leave ASCII as it is (test_tokenizer)
            return text.lower()
        cc = _engines()[0]
        return str(cc.convert(unicodedata.normalize("NFKC", text).lower()))  # type: ignore[attr-defined]

    # --- terms -------------------------------------------------------------------------
    def terms(self, text: str) -> list[str]:
        """Index-side keyword terms, in text order, with repeats (search-mode sub-words kept)."""
        return self._terms(self.normalize(text), stop=True)

    def query_terms(self, text: str) -> list[str]:
        """Query-side terms: the same analysis as :meth:`terms`; when every term of a question is
        a stopword (``"的"``, ``"the"``) the stopwords are kept so the query is never empty."""
        norm = self.normalize(text)
        return self._terms(norm, stop=True) or self._terms(norm, stop=False)

    def sparse(self, text: str) -> SparseVector:
        """Document vector: BM25 term-frequency weights (IDF is Qdrant's ``Modifier.IDF``).
        Empty when the text holds no terms (the store then omits the ``bm25`` vector)."""
        counts = Counter(self.terms(text))
        dl = sum(counts.values())
        norm = self.k1 * (1.0 - self.b + self.b * dl / self.avgdl)
        weights = {t: tf * (self.k1 + 1.0) / (tf + norm) for t, tf in counts.items()}
        return _to_sparse(weights)

    def sparse_query(self, text: str) -> SparseVector:
        """Query vector: term counts of :meth:`query_terms`; empty only when the text has no
        letters or digits at all (the store never sends an empty vector to Qdrant)."""
        return _to_sparse({t: float(n) for t, n in Counter(self.query_terms(text)).items()})

    # --- key terms ----------------------------------------------------------------------
    def quoted_phrases(self, question: str) -> list[str]:
        """Strings the question puts in quotes (``"…"``, ``“…”``, ``「…」``), normalised."""
        found = (next(g for g in m.groups() if g) for m in _QUOTED_RE.finditer(question))
        return [self.normalize(p).strip() for p in found if p.strip()]

    def key_terms(self, question: str) -> list[str]:
        """The question's salient terms, as index terms (comparable with :meth:`terms` output).

        Order: numbers, dates, versions and codes first; then terms of quoted strings; then
        proper nouns / acronyms (capitalised Latin words not opening a sentence, Chinese words
        rjieba tags as names ``nr``/``ns``/``nt``/``nz``); then the other content words. Chinese
        is cut in accurate mode (``健康检查`` stays one term); stopwords and question words
        (``what``, ``什么``, ``多少`` …) are dropped. Deduplicated; ``[]`` for an empty question.
        """
        norm = self.normalize(question)
        special, names, other = [], [], []
        proper = {
            self.normalize(w) for w in _PROPER_RE.findall(unicodedata.normalize("NFKC", question))
        }
        for kind, term in self._iter_kinds(norm, stop=True, search_mode=False, tag=True):
            if term in QUESTION_WORDS or (kind == "han" and len(term) < 2):
                continue
            if kind == "special":
                special.append(term)
            elif kind == "name" or (kind == "word" and term in proper):
                names.append(self._stem(term) if kind == "word" else term)
            else:
                other.append(self._stem(term) if kind == "word" else term)
        quoted = [t for p in self.quoted_phrases(question) for t in self._terms(p, stop=True)]
        return list(dict.fromkeys(special + quoted + names + other))

    def name_terms(self, question: str) -> list[str]:
        """The key terms that name something: codes holding letters and digits (``3m``,
        ``esp32-pico-d4``), capitalised Latin words not opening a sentence and acronyms
        (``Amazon``, ``AMCOR``), and Chinese words rjieba tags as names (``nr``/``ns``/``nt``/
        ``nz``) — as index terms, deduplicated, question order. Document resolution
        (``rag.resolve``) matches only these against document profiles."""
        norm = self.normalize(question)
        proper = {
            self.normalize(w) for w in _PROPER_RE.findall(unicodedata.normalize("NFKC", question))
        }
        out: list[str] = []
        for kind, term in self._iter_kinds(norm, stop=True, search_mode=False, tag=True):
            if term in QUESTION_WORDS:
                continue
            if kind == "special" and any(c.isalpha() for c in term):
                out.append(term)
            elif kind == "name" and len(term) >= 2:
                out.append(term)
            elif kind == "word":
                bare = _POSSESSIVE.sub("", term)  # "amazon's" names Amazon
                if bare in proper:
                    out.append(self._stem(bare))
        return list(dict.fromkeys(out))

    # --- internals ----------------------------------------------------------------------
    def _stem(self, word: str) -> str:
        stem = self._stems.get(word)
        if stem is None:
            stem = _engines()[2].stem_word(word)  # type: ignore[attr-defined]
            if len(self._stems) < 200_000:
                self._stems[word] = stem
        return stem

    def _terms(self, norm: str, *, stop: bool) -> list[str]:
        """:meth:`_iter_kinds` (search mode, no tags) in one loop, Latin words stemmed."""
        jieba = _engines()[1]
        stems, stem = self._stems, self._stem
        out: list[str] = []
        for m in TOKEN_RE.finditer(norm):
            group = m.lastgroup
            if group == "word":
                w = m.group()
                if len(w) > 1 and not (stop and w in EN_STOPWORDS):
                    out.append(stems.get(w) or stem(w))
            elif group == "han":
                cut = jieba.cut_for_search(m.group())  # type: ignore[attr-defined]
                out += [w for w in cut if not (stop and w in CJK_STOPWORDS)]
            elif group == "other":
                out.append(m.group())
            else:  # date / number / code: a term without a digit is a word, stemmed
                out += [t if any(c.isdigit() for c in t) else stem(t) for t in special_terms(m)]
        return out

    def _iter_kinds(
        self, norm: str, *, stop: bool, search_mode: bool, tag: bool
    ) -> Iterator[tuple[str, str]]:
        """Yield ``(kind, term)``: kind is ``special`` (date/number/code), ``word`` (Latin word,
        not yet stemmed), ``han`` (Chinese word), ``name`` (tagged Chinese proper noun).
        ``tag`` (key-term mode) also keeps only the primary term of a code/date/number match."""
        jieba = _engines()[1]
        for m in TOKEN_RE.finditer(norm):
            group = m.lastgroup
            if group == "han":
                run = m.group()
                if tag:
                    pairs = jieba.tag(run)  # type: ignore[attr-defined]
                    words = [
                        (w, "name" if f[:2] in ("nr", "ns", "nt", "nz") else "han")
                        for w, f in pairs
                    ]
                else:
                    cut = jieba.cut_for_search(run) if search_mode else jieba.cut(run)  # type: ignore[attr-defined]
                    words = [(w, "han") for w in cut]
                for w, kind in words:
                    if not (stop and w in CJK_STOPWORDS):
                        yield kind, w
            elif group == "word":
                w = m.group()
                if len(w) > 1 and not (stop and w in EN_STOPWORDS):
                    yield "word", w
            elif group == "other":
                yield "han", m.group()
            else:
                terms = special_terms(m)
                for term in terms[:1] if tag else terms:  # key terms: the whole code/date only
                    yield ("special" if any(c.isdigit() for c in term) else "word"), term


def _to_sparse(weights: dict[str, float]) -> SparseVector:
    """Hash terms to indices (colliding terms add up) and sort by index."""
    acc: dict[int, float] = {}
    for term, w in weights.items():
        idx = term_index(term)
        acc[idx] = acc.get(idx, 0.0) + w
    items = sorted(acc.items())
    return SparseVector(tuple(i for i, _ in items), tuple(v for _, v in items))
