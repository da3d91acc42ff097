"""Document resolution: a question that names an organisation (and a period) is resolved to the
documents it names before chunk retrieval runs (issue 15, item 1).

Pure scoring over :class:`~corpus.profile.DocumentProfile` s (no I/O)::

    entity terms  = the question's name terms (``Tokenizer.name_terms``: codes, capitalised
                    words, Chinese proper nouns), without years and period codes (fy2018, q2),
                    that name a document: a word of its issuer ("3M COMPANY", "PepsiCo, Inc.")
                    or a code of letters and digits in its file name, title or issuer
                    (ESP32-PICO-D4, 3M; a code of 4+ letters and digits also in a file name
                    without punctuation: esp32_pico_d4_datasheet_cn.pdf) — and that few
                    documents' identity text holds (df ≤ max(5, 2 % of the documents))
    score(doc)    = Σ idf(t) over the entity terms the document matches, idf = ln(N / df)
    candidates    = documents with score ≥ 0.8 × best score, plus every document whose cover
                    head names all the matched terms (same issuer, unrecognised issuer line),
                    plus every document of a candidate's issuer (same organisation once legal
                    suffixes and the ticker are set aside: "Johnson & Johnson (JNJ)" names
                    the 10-K of "JOHNSON & JOHNSON" too)
    period        = years in the question (2018, FY2018, FY 2023, 2023年); candidates whose
                    period years meet them are kept when there are any
    resolved      = the candidates, when there are at most ``max_docs`` of them

A name written in lower case ("what is EBITDA for costco in FY2021?") is not a name term; when
the name terms resolve nothing, the question's other key terms that are an issuer's word
(``words``: alphabetic, four letters or more, as rare as an entity term) are tried, and the
resolution holds only when the question names a period those documents cover: a lower-case word
is as often a common word ("square miles", "health") that an issuer's name happens to hold.

Else an article or clause of a document whose Chinese title the question writes resolves it
(``rag.resolve_titles``); else, or naming more than ``max_docs``, it is *unsure*: retrieval
runs over the whole collection (``Retrieval.resolution`` says why). Thresholds: the design's
starting values, not fitted to question ids. ``rag.resolution`` / ``rag.resolve_terms``:
the outcome and the names and years read, re-exported here.
"""

from __future__ import annotations

import math
import re
import threading
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from corpus.labels import asked_item
from corpus.profile import DocumentProfile
from corpus.term_match import is_period, one_edit_from
from corpus.types import ChunkStore
from rag.resolution import Resolution
from rag.resolve_terms import asked_organisations, fiscal_years, issuer_key, question_years
from rag.resolve_titles import named_by_title, title_runs

__all__ = ["DocumentResolver", "ProfileSource", "Resolution", "fiscal_years", "issuer_key",
           "question_years"]

_CODE = re.compile(r"(?=.*\d)(?=.*[a-z])")
_SPLIT = re.compile(r"[\s_\-./\\()\[\],;:]+")
_FLAT = re.compile(r"[^0-9a-z]+")
# shortest name term read as a misspelt issuer word: a 4-letter word is one edit from too many
_MIN_TYPO_LEN = 5


@dataclass
class _Card:
    profile: DocumentProfile
    strong: set[str] = field(default_factory=set)  # issuer words and codes: names the document
    weak: set[str] = field(default_factory=set)  # every term of the identity text


class DocumentResolver:
    """Resolves questions to documents over one collection's profiles (immutable once built).

    :param profiles: the collection's document profiles (``Catalogue.profiles``).
    :param terms: the tokenizer's index-side analysis (``Tokenizer.terms``), so question key
        terms and profile terms compare.
    :param max_docs: most documents a sure resolution may hold (default 4).
    :param min_df_share: a term more than ``max(5, share × N)`` documents hold is not an entity
        term (default 0.02).
    """

    def __init__(
        self,
        profiles: Sequence[DocumentProfile],
        terms: Callable[[str], list[str]],
        *,
        max_docs: int = 4,
        min_df_share: float = 0.02,
    ) -> None:
        self.max_docs = max_docs
        self._terms = terms
        self._cards = []
        df: dict[str, int] = defaultdict(int)
        issuers: set[str] = set()  # every issuer's words
        for p in profiles:
            strong_text = "\n".join(
                (_SPLIT.sub(" ", p.path.rsplit("/", 1)[-1]), p.title, p.organisation)
            )
            # names: the issuer's words, and codes (letters + digits) of file name, title, issuer
            issuer = set(terms(p.organisation))
            names = issuer | {t for t in terms(strong_text) if _CODE.search(t)}
            card = _Card(p, names, set(terms(p.identity)) | names)
            issuers |= issuer
            self._cards.append(card)
            for t in card.weak:
                df[t] += 1
        self._df = dict(df)
        # file names without punctuation: a code the question writes with hyphens
        # (esp32-pico-d4) is in esp32_pico_d4_datasheet_cn.pdf, whose tokens are esp32, pico, d4
        self._names = [_FLAT.sub("", c.profile.path.rsplit("/", 1)[-1].lower())
                       for c in self._cards]
        self._issuer = [issuer_key(c.profile.organisation) for c in self._cards]
        self._titles = [title_runs(c.profile.path, c.profile.title) for c in self._cards]
        # issuer words a misspelt name may stand for (_spelled)
        self._issuer_terms = frozenset(issuers)
        self._issuer_words = {t for t in issuers if len(t) >= _MIN_TYPO_LEN and t.isalpha()}
        self._issuer_docs = frozenset(c.profile.doc_id for c in self._cards
                                      if c.profile.organisation.strip())
        n = max(1, len(self._cards))
        self._n = n
        self._max_df = max(5, int(min_df_share * n))

    def __len__(self) -> int:
        return len(self._cards)

    def resolve(self, question: str, key_terms: Sequence[str],
                words: Sequence[str] = ()) -> Resolution:
        """Resolve ``question`` given its name terms (``Tokenizer.name_terms``; key terms work
        too, less precisely); never raises.

        :param words: the question's other key terms (``Tokenizer.key_terms``), tried as issuer
            words written in lower case when ``key_terms`` resolve nothing; such a resolution
            is kept only when the question names a year its documents cover (module doc).
        """
        got = self._resolve(question, key_terms)
        named = ([] if got.doc_ids or asked_item(question) is None
                 else named_by_title(question, self._titles)[0])
        if 0 < len(named) <= self.max_docs:  # an item of a document named by its title
            docs = [self._cards[i].profile for i in named]
            got = Resolution(tuple(d.doc_id for d in docs), tuple(d.path for d in docs),
                             years=got.years, sure=True, reason=f"title → {len(docs)} document(s)")
        unknown = self.unknown_subjects(question)
        if unknown:
            got = replace(got, unknown_subjects=unknown, issuer_docs=self._issuer_docs)
        if got.doc_ids or not words or not got.years:
            return got
        names = set(key_terms)
        issuer = [t for t in dict.fromkeys(words)
                  if t not in names and len(t) >= 4 and t.isalpha() and t in self._issuer_terms]
        if not issuer:
            return got
        loose = self._resolve(question, [*key_terms, *issuer], in_period_only=True)
        return replace(loose, unknown_subjects=got.unknown_subjects,
                       issuer_docs=got.issuer_docs) if loose.doc_ids else got

    def unknown_subjects(self, question: str) -> tuple[str, ...]:
        """The organisations ``question`` asks about — a capitalised name in the possessive
        ("Walmart's revenue") or after "for" / "of" ending the asked phrase ("revenue for Boeing
        in 2022") — none of whose words any document's identity text (file name, title, issuer,
        cover) holds, lower-cased; ``()`` when every one is named somewhere (or none is asked).
        Such a question is about an organisation the collection has no document of."""
        out: list[str] = []
        for name in asked_organisations(question):
            terms = [t for t in self._terms(name) if t]
            if terms and all(self._df.get(self._spelled(t), 0) == 0 for t in terms):
                out.append(name.lower())
        return tuple(dict.fromkeys(out))

    def _resolve(self, question: str, key_terms: Sequence[str], *,
                 in_period_only: bool = False) -> Resolution:
        """:meth:`resolve` of the name terms ``key_terms``; ``in_period_only``: no resolution
        unless some candidate's period years meet the question's."""
        years = question_years(question)
        terms = [self._spelled(t) for t in dict.fromkeys(key_terms)]
        cands = [
            t
            for t in dict.fromkeys(terms)
            if t and not is_period(t) and 0 < self._df.get(t, 0) <= self._max_df
        ]
        if not cands:
            return Resolution(years=years)
        scores: dict[int, float] = defaultdict(float)
        matched: set[str] = set()
        for t in cands:
            idf = math.log(self._n / self._df[t]) + 1e-6
            flat = _FLAT.sub("", t) if _CODE.search(t) else ""
            for i, card in enumerate(self._cards):
                if t in card.strong or (len(flat) >= 4 and flat in self._names[i]):
                    scores[i] += idf
                    matched.add(t)
        if not scores:
            return Resolution(years=years)
        # documents whose cover also names what matched belong to the set (a report by the
        # same organisation whose issuer line was not recognised, a paper on its datasets)
        for i, card in enumerate(self._cards):
            if i not in scores and matched and matched <= card.weak:
                scores[i] = sum(math.log(self._n / self._df[t]) for t in matched)
        best = max(scores.values())
        picked = [i for i, s in scores.items() if s >= 0.8 * best]
        issuers = {k for i in picked if (k := self._issuer[i])}
        picked += [i for i, k in enumerate(self._issuer) if k in issuers and i not in picked]
        in_period = [i for i in picked if years and set(years) & set(self._cards[i].profile.years)]
        fiscal = fiscal_years(question)
        if fiscal:
            in_period = self._fiscal(in_period or picked, in_period, fiscal)
        if in_period:
            picked = in_period
        elif in_period_only:
            return Resolution(years=years)
        picked.sort(key=lambda i: (-scores[i], self._cards[i].profile.path))
        entity = tuple(t for t in cands if t in matched)
        docs = tuple(self._cards[i].profile for i in picked)
        sure = len(docs) <= self.max_docs
        what = " ".join(entity) + (f" + {'/'.join(map(str, years))}" if in_period else "")
        return Resolution(
            doc_ids=tuple(d.doc_id for d in docs) if sure else (),
            paths=tuple(d.path for d in docs) if sure else (),
            entity_terms=entity,
            years=years,
            sure=sure,
            reason=f"{what} → {len(docs)} document{'s' if len(docs) != 1 else ''}",
        )

    def _spelled(self, term: str) -> str:
        """``term``, or the one issuer word it misspells: a name term of letters only, of
        ``_MIN_TYPO_LEN`` or more, that no document's identity text holds, one edit (rapidfuzz
        Damerau-Levenshtein: insertion, deletion, substitution or transposition) from exactly
        one issuer word ("Neflix" → netflix, mmlongbench:1026/1027 resolved to no document and
        answered from Adobe's 10-K). Unchanged otherwise."""
        if term in self._df or len(term) < _MIN_TYPO_LEN or not term.isalpha():
            return term
        near = one_edit_from(term, self._issuer_words)
        return near.pop() if len(near) == 1 else term

    def _fiscal(self, pool: list[int], in_period: list[int], fiscal: set[int]) -> list[int]:
        """Of the period's documents (else of all ``pool``), those whose own period — the first
        of their period years (the file name's, then the cover's) — is a fiscal year the question
        names: "FY2023" is the 10-K for fiscal 2023, not the next year's 10-Q whose cover dates
        its quarter in calendar 2023. With none in the period, a fiscal year no document's period
        names is read in the next year's report other than a 10-Q (an annual report shows the year
        before as its comparative column). ``in_period`` unchanged when neither applies."""
        def own(i: int) -> int | None:
            years = self._cards[i].profile.years
            return years[0] if years else None

        primary = [i for i in pool if own(i) in fiscal]
        if primary:
            return primary
        if in_period:
            return in_period
        later = {y + 1 for y in fiscal}
        return [i for i in pool
                if own(i) in later and self._cards[i].profile.doc_type != "10-Q"]


class ProfileSource:
    """Per-collection :class:`DocumentResolver` s built from the catalogue's profiles and rebuilt
    when the corpus version moves (one ``collection_meta`` read per question).

    :param store: the chunk store holding the catalogue (``QdrantChunkStore``).
    :param terms: ``Tokenizer.terms``.
    :param max_docs: passed to each resolver.
    """

    def __init__(
        self, store: ChunkStore, terms: Callable[[str], list[str]], *, max_docs: int = 4
    ) -> None:
        self.store = store
        self._terms = terms
        self.max_docs = max_docs
        self._cache: dict[str, tuple[int, DocumentResolver]] = {}
        self._lock = threading.Lock()

    def resolver(self, collection: str) -> DocumentResolver:
        """The resolver of ``collection`` at its current corpus version.

        :raises StoreError: when the catalogue cannot be read.
        """
        from corpus.catalogue import Catalogue

        cat = Catalogue(self.store)  # type: ignore[arg-type]
        version = cat.corpus_version(collection)
        hit = self._cache.get(collection)
        if hit is not None and hit[0] == version:
            return hit[1]
        with self._lock:
            hit = self._cache.get(collection)
            if hit is not None and hit[0] == version:
                return hit[1]
            res = DocumentResolver(cat.profiles(collection), self._terms, max_docs=self.max_docs)
            self._cache[collection] = (version, res)
            return res

    def resolve(self, collection: str, question: str, key_terms: Sequence[str],
                words: Sequence[str] = ()) -> Resolution:
        """Resolve ``question`` in ``collection`` (see :meth:`DocumentResolver.resolve`)."""
        return self.resolver(collection).resolve(question, key_terms, words)
