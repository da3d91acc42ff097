"""Evaluation questions: the JSON Lines format of ``../shared/eval/README.md``.

One line = one :class:`Question` (defined with :class:`GoldPage` and
:class:`QuestionFormatError` in ``evals.types``, re-exported here). :func:`load_questions` reads
one or more files, checks every line and raises :class:`QuestionFormatError` naming the file and
line of every bad record (up to 20; nothing is silently skipped): a required field missing,
empty or blank (``"question": ""``), or not text.

Usage example::

    from evals import load_questions
    qs = load_questions(["../shared/eval/zh/questions.jsonl"], limit=10)
    qs[0].gold_pages, qs[0].unanswerable, qs[0].current_date
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from evals.types import GoldPage, Question, QuestionFormatError

__all__ = ["GoldPage", "Question", "QuestionFormatError", "load_questions", "parse_question"]

_REQUIRED = ("id", "question", "answer", "source_dataset", "lang")


def _str_tuple(value: Any, name: str, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list):
        raise QuestionFormatError(
            f"field {name!r} must be a list, got {type(value).__name__}", where
        )
    return tuple(str(v) for v in value if v is not None)


def _page(value: Any, name: str, where: str) -> int | None:
    if value is None or value == "":
        return None
    try:
        page = int(value)
    except (TypeError, ValueError) as exc:
        raise QuestionFormatError(
            f"field {name!r} must be a page number, got {value!r}", where
        ) from exc
    if page < 1:
        raise QuestionFormatError(f"field {name!r} must be 1-based, got {page}", where)
    return page


def _unanswerable(record: dict[str, Any]) -> bool:
    tags = record.get("tags")
    return tags == "unanswerable" or (isinstance(tags, list) and "unanswerable" in tags)


def parse_question(record: dict[str, Any], where: str = "") -> Question:
    """Build a :class:`Question` from one decoded JSON record.

    :raises QuestionFormatError: a required field (``id``, ``question``, ``answer``,
        ``source_dataset``, ``lang``) is missing, empty or blank (the answer may be empty for
        a question tagged ``unanswerable``), not a string (``id`` and ``answer`` may be
        numbers), or a field has the wrong type.
    """
    if not isinstance(record, dict):
        raise QuestionFormatError("a question must be a JSON object", where)
    missing = [k for k in _REQUIRED if record.get(k) is None]
    if missing:
        raise QuestionFormatError(f"missing field(s): {', '.join(missing)}", where)
    for key in _REQUIRED:
        value = record[key]
        # the answer is kept as written: a figure may be a JSON number; the rest is text
        text = isinstance(value, str) or (key in ("answer", "id") and isinstance(value, int | float)
                                          and not isinstance(value, bool))
        if not text:
            raise QuestionFormatError(
                f"field {key!r} must be a string, got {type(value).__name__}", where)
        if not str(value).strip() and not (key == "answer" and _unanswerable(record)):
            raise QuestionFormatError(f"field {key!r} is empty", where)
    pages_raw = record.get("pages") or []
    if not isinstance(pages_raw, list):
        raise QuestionFormatError("field 'pages' must be a list of page numbers", where)
    pages = tuple(p for p in (_page(v, "pages", where) for v in pages_raw) if p is not None)
    ev_pages: list[GoldPage] = []
    for item in record.get("evidence_pages") or []:
        if not isinstance(item, dict) or "page" not in item:
            raise QuestionFormatError("'evidence_pages' items need 'doc' and 'page'", where)
        p = _page(item.get("page"), "evidence_pages.page", where)
        if p is not None:
            ev_pages.append(GoldPage(str(item.get("doc") or record.get("doc") or ""), p))
    evidence = record.get("evidence")
    evidence_t = (
        tuple(evidence) if isinstance(evidence, list) else (() if evidence is None else (evidence,))
    )
    section = record.get("section")
    return Question(
        id=str(record["id"]),
        question=str(record["question"]),
        answer=str(record["answer"]),
        source_dataset=str(record["source_dataset"]),
        lang=str(record["lang"]),
        doc=str(record.get("doc") or ""),
        page=_page(record.get("page"), "page", where),
        pages=pages,
        section=str(section) if section not in (None, "") else None,
        evidence=evidence_t,
        answer_aliases=_str_tuple(record.get("answer_aliases"), "answer_aliases", where),
        tags=tuple(t for t in _str_tuple(record.get("tags"), "tags", where) if t),
        notes=str(record.get("notes") or ""),
        context=str(record["context"]) if record.get("context") else None,
        evidence_pages=tuple(ev_pages),
    )


def load_questions(
    paths: Iterable[str | Path], *, limit: int | None = None, ids: Sequence[str] = ()
) -> list[Question]:
    """Read questions from JSON Lines files, in file order.

    :param paths: one or more ``.jsonl`` files.
    :param limit: keep at most this many questions in total (``None`` = all).
    :param ids: when given, keep only these question ids.
    :returns: the questions; blank lines are ignored.
    :raises QuestionFormatError: unreadable file, invalid JSON, bad records, or a duplicate id;
        every bad line read is named (the first :data:`MAX_REPORTED` in the message, all in
        ``problems``), not only the first.
    """
    out: list[Question] = []
    seen: set[str] = set()
    wanted = set(ids)
    bad: list[QuestionFormatError] = []
    for path in paths:
        p = Path(path)
        try:
            lines = p.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise QuestionFormatError(f"cannot read question file: {exc}", str(p)) from exc
        for lineno, line in enumerate(lines, 1):
            if not line.strip():
                continue
            where = f"{p}:{lineno}"
            try:
                q = _line_question(line, where, seen)
            except QuestionFormatError as exc:
                bad.append(exc)
                continue
            if wanted and q.id not in wanted:
                continue
            out.append(q)
            if limit is not None and len(out) >= limit and not bad:
                return out
    if bad:
        raise _all_of(bad)
    return out


#: bad lines listed in a :class:`QuestionFormatError`'s message (all are in ``problems``)
MAX_REPORTED = 20


def _line_question(line: str, where: str, seen: set[str]) -> Question:
    """The question of one line of a file, its id added to ``seen``.

    :raises QuestionFormatError: invalid JSON, a bad record, or an id already ``seen``."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise QuestionFormatError(f"invalid JSON: {exc.msg}", where) from exc
    q = parse_question(record, where)
    if q.id in seen:
        raise QuestionFormatError(f"duplicate question id {q.id!r}", where)
    seen.add(q.id)
    return q


def _all_of(bad: list[QuestionFormatError]) -> QuestionFormatError:
    """One error naming every bad line (the first :data:`MAX_REPORTED`)."""
    if len(bad) == 1:
        return bad[0]
    lines = [str(e) for e in bad]
    shown = "\n  ".join(lines[:MAX_REPORTED])
    more = f"\n  … and {len(lines) - MAX_REPORTED} more" if len(lines) > MAX_REPORTED else ""
    err = QuestionFormatError(f"{len(bad)} bad question lines:\n  {shown}{more}",
                              problems=lines)
    err.where = bad[0].where
    return err
