"""Per-question scores: answer containment, refusals, evidence hits.

- :func:`normalise_answer` – NFKC, Traditional→Simplified (OpenCC ``t2s``), case-folded,
  punctuation to spaces, whitespace collapsed.
- :func:`answer_contains` – a gold answer or alias occurs in the answer after normalisation
  (CJK golds as substrings with spaces removed; others on word boundaries, a Chinese
  character next to them being one), or — for golds
  that are mostly a number ("$1,577", "15m", "约1138公顷", "3.0 V ~ 3.6 V") — every number of
  the gold occurs numerically in the answer ("$1,577" = "1577.00"; an answer value rounded to
  the gold's decimals also matches: 8.704 ~ "8.70"). A list-valued gold
  (``"['$35,000', '$40,684']"``, MMLongBench-Doc) needs every item.
- :func:`is_refusal` – ``found is False``, else a "not found" phrase in the answer.
- :func:`score_question` – one ``results.jsonl`` row's ``score`` block.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from functools import lru_cache
from typing import Any

import opencc

from evals.gold import doc_matches, gold_level, location_hits_gold, section_hits_gold
from evals.questions import Question
from evals.types import AnswerRecord

__all__ = [
    "answer_contains",
    "extract_numbers",
    "is_refusal",
    "normalise_answer",
    "score_question",
]

#: the scores of a gold location, all ``None`` for a question that has none (``unanswerable``)
_LOCATION_SCORES = ("evidence_hit", "evidence_hit_at_k", "evidence_rank", "answer_precision",
                    "doc_hit", "section_hit")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# a letter or digit of a word a number or gold cannot start or end inside; Chinese characters
# are not: Chinese writes no spaces, "总薪酬的20%" holds the gold "20%" ("P3" holds no "3")
_WORD = r"[^\W\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
_NUMBER = re.compile(rf"(?<![.])(?<!{_WORD})[-−–]?\d[\d,]*(?:\.\d+)?|(?<!{_WORD})\.\d+")
_NUM_NOISE = re.compile(r"[$€£¥%‰~～\-−–/()（）,.:：、\s]")
_REFUSALS = (
    "not found",
    "no answer",
    "cannot find",
    "can't find",
    "could not find",
    "couldn't find",
    "not answerable",
    "unanswerable",
    "no relevant",
    "not mentioned",
    "not in the documents",
    "does not contain",
    "doesn't contain",
    "no information",
    "not available",
    "unable to find",
    "未找到",
    "找不到",
    "没有找到",
    "无法回答",
    "无法找到",
    "未提及",
    "没有提及",
    "没有相关",
    "文档中没有",
    "无相关",
    "不包含",
)
# Golds whose text, numbers removed, is at most this long are compared numerically.
_MAX_NUMERIC_RESIDUE = 12


@lru_cache(maxsize=1)
def _t2s() -> Any:
    return opencc.OpenCC("t2s")


@lru_cache(maxsize=65536)
def normalise_answer(text: str) -> str:
    """NFKC, Traditional→Simplified, case-folded, punctuation and symbols → spaces, whitespace
    collapsed. ``"  約1,138 公頃！"`` → ``"约1 138 公顷"``."""
    text = unicodedata.normalize("NFKC", text or "")
    if _CJK.search(text):
        text = _t2s().convert(text)
    text = text.casefold()
    text = "".join(" " if unicodedata.category(ch)[0] in "PSZ" else ch for ch in text)
    return " ".join(text.split())


def extract_numbers(text: str) -> list[tuple[float, int]]:
    """Numbers in ``text`` as ``(value, decimals)``; thousands commas ignored, leading minus
    kept (``"$1,577.50"`` → ``[(1577.5, 2)]``)."""
    text = unicodedata.normalize("NFKC", text or "")
    out: list[tuple[float, int]] = []
    for m in _NUMBER.finditer(text):
        raw = m.group(0).replace(",", "")
        neg = raw[0] in "-−–"
        raw = raw.lstrip("-−–")
        try:
            value = float(raw)
        except ValueError:
            continue
        decimals = len(raw.split(".", 1)[1]) if "." in raw else 0
        out.append((-value if neg else value, decimals))
    return out


def _numbers_match(gold: tuple[float, int], have: list[tuple[float, int]]) -> bool:
    """A gold number matches an answer number with the same magnitude (sign ignored: "–40"
    in a range) that is equal, or equal once rounded to the gold's decimals."""
    gv, gd = abs(gold[0]), gold[1]
    for value, _ in have:
        v = abs(value)
        if abs(v - gv) <= 1e-9 * max(1.0, gv) or round(v, gd) == round(gv, gd):
            return True
    return False


def _is_numeric_gold(gold: str) -> bool:
    if not extract_numbers(gold):
        return False
    residue = _NUMBER.sub("", unicodedata.normalize("NFKC", gold))
    residue = _NUM_NOISE.sub("", residue)
    return len(residue) <= _MAX_NUMERIC_RESIDUE


def _text_contains(gold: str, answer: str) -> bool:
    g, a = normalise_answer(gold), normalise_answer(answer)
    if not g:
        return False
    if _CJK.search(g):
        return g.replace(" ", "") in a.replace(" ", "")
    return re.search(f"(?<!{_WORD})" + re.escape(g) + f"(?!{_WORD})", a) is not None


def _list_gold(gold: str) -> list[str] | None:
    """The items of a list-valued gold (MMLongBench-Doc writes ``"['$35,000', '$40,684']"``)."""
    text = gold.strip()
    if not (text.startswith("[") and text.endswith("]")):
        return None
    try:
        items = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    if not isinstance(items, list) or not items:
        return None
    return [str(i) for i in items]


def answer_contains(golds: tuple[str, ...] | list[str], answer: str) -> bool:
    """True when any gold answer/alias is contained in ``answer`` (rules in the module
    docstring; a list-valued gold needs every item). An empty answer contains nothing."""
    if not answer or not answer.strip():
        return False
    have: list[tuple[float, int]] | None = None
    for gold in golds:
        items = _list_gold(gold)
        if items is not None:
            if all(answer_contains([i], answer) for i in items):
                return True
            continue
        if _text_contains(gold, answer):
            return True
        if _is_numeric_gold(gold):
            if have is None:
                have = extract_numbers(answer)
            if have and all(_numbers_match(n, have) for n in extract_numbers(gold)):
                return True
    return False


def is_refusal(answer: str, found: bool | None) -> bool:
    """True for an explicit "not found": ``found is False``; when ``found`` is ``None``, an
    empty answer or a refusal phrase (English/Chinese) in the first 200 characters."""
    if found is not None:
        return not found
    head = normalise_answer((answer or "")[:200])
    return not head or any(normalise_answer(p) in head for p in _REFUSALS)


def score_question(question: Question, record: AnswerRecord, *, k: int = 5) -> dict[str, Any]:
    """Score one answered question.

    :param k: candidates counted for ``evidence_hit_at_k`` (the top ``k`` in rank order).
    :returns: ``gold_level``; ``evidence_hit`` (a verified citation at a gold location),
        ``evidence_hit_at_k`` and ``evidence_rank`` (1-based rank of the first candidate at a
        gold location, any depth), ``answer_precision`` (the answer's own citation — the first —
        is at a gold location; only where ``evidence_hit``, else ``None``), ``doc_hit`` (a
        citation on a gold document),
        ``section_hit`` (GitLab/DRCD citation in the gold section, else ``None``) — all
        ``None`` when there is no gold location (``unanswerable``); ``answer_contains``
        (``None`` for ``unanswerable``); ``refused``; ``refusal_correct`` (``unanswerable``
        only, else ``None``); ``false_refusal`` (answerable only).
    """
    level = gold_level(question)
    refused = is_refusal(record.answer, record.found) or record.error is not None
    out: dict[str, Any] = {"gold_level": level, "refused": refused}
    if level == "none":
        out.update(dict.fromkeys(_LOCATION_SCORES))
    else:
        cites = [] if refused else record.citations
        out["evidence_hit"] = any(location_hits_gold(question, c) for c in cites)
        out["answer_precision"] = (
            location_hits_gold(question, cites[0]) if out["evidence_hit"] else None
        )
        rank = next(
            (i for i, c in enumerate(record.candidates, 1) if location_hits_gold(question, c)),
            None,
        )
        out["evidence_rank"] = rank
        out["evidence_hit_at_k"] = rank is not None and rank <= k
        out["doc_hit"] = any(doc_matches(question, c.path) for c in cites)
        out["section_hit"] = (
            any(section_hits_gold(question, c.path, c.section_path) for c in cites)
            if question.section
            else None
        )
    if question.unanswerable:
        out["answer_contains"] = None
        out["refusal_correct"] = refused
        out["false_refusal"] = None
    else:
        out["answer_contains"] = (not refused) and answer_contains(
            question.gold_answers, record.answer
        )
        out["refusal_correct"] = None
        out["false_refusal"] = refused
    return out
