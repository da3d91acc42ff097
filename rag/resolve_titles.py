"""Documents a question names by their Chinese title: "园区管理办法第十一条规定了什么？" names the
document 园区管理办法.md, whose issuer no name term of the question gives (Chinese names are not
capitalised, ``Tokenizer.name_terms`` finds none). A new-user trial on three laws and a
regulation: that question was answered by the labour law's 第十一条 (the regulation has ten
articles), "not found" being right.

A document's **title runs** are the runs of four or more Chinese characters of its file name (the
extension and punctuation set aside) and of its title; the question names the document when it
writes one of them whole. Where several documents are named, those with the longest run
written win ("劳动合同法实施条例" over "劳动合同法"). Pure functions, no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

__all__ = ["named_by_title", "title_runs"]

_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]{4,}")  # four or more Chinese characters
_EXT = re.compile(r"\.[A-Za-z0-9]{1,5}$")


def title_runs(path: str, title: str) -> tuple[str, ...]:
    """The runs of four or more Chinese characters of ``path``'s file name (without its
    extension) and of ``title``, NFKC, longest first, deduplicated."""
    name = _EXT.sub("", path.rsplit("/", 1)[-1])
    runs = _RUN.findall(unicodedata.normalize("NFKC", f"{name}\n{title}"))
    return tuple(sorted(dict.fromkeys(runs), key=len, reverse=True))


def named_by_title(question: str, runs: Sequence[Sequence[str]]) -> tuple[list[int], str]:
    """The indexes of the documents ``question`` names by a title run (``runs[i]``: document
    ``i``'s :func:`title_runs`) and the run written, the longest written run's documents
    only; ``([], "")`` when it writes none."""
    q = unicodedata.normalize("NFKC", question)
    best, picked = "", list[int]()
    for i, doc_runs in enumerate(runs):
        hit = next((r for r in doc_runs if r in q), "")
        if not hit or len(hit) < len(best):
            continue
        if len(hit) > len(best):
            best, picked = hit, []
        picked.append(i)
    return picked, best
