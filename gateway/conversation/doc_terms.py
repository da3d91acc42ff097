"""What a document says of itself, for a question in the other language
(:mod:`gateway.conversation.crosslang`): its file name (:func:`named_document`: the document a
question names by it) and its own bilingual term list (:func:`bilingual_pairs`: 暂停模式（Halt）).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Sequence

from gateway.conversation.english_terms import codes, content_words, word_forms

__all__ = ["bilingual_pairs", "named_document"]

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


_NAME_SPLIT = re.compile(r"[^a-z0-9]+")


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
    for lw in content_words(question):
        words.update(word_forms(lw))
    matched: dict[str, set[str]] = defaultdict(set)  # doc -> matched keys
    for d, toks in tokens.items():
        matched[d] |= toks & words
    for code in codes(question):
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
