"""Evaluation questions: the JSON Lines format of ``../shared/eval/README.md``.

One line = one :class:`Question`. :func:`load_questions` reads one or more files, checks every
line and raises :class:`QuestionFormatError` naming the file and line of every bad record (up
to 20; nothing is silently skipped): a required field missing, empty or blank (``"question":
""``), or not text.

Usage example::

    from evals import load_questions
    qs = load_questions(["../shared/eval/zh/questions.jsonl"], limit=10)
    qs[0].gold_pages, qs[0].unanswerable, qs[0].current_date
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["GoldPage", "Question", "QuestionFormatError", "load_questions", "parse_question"]

_REQUIRED = ("id", "question", "answer", "source_dataset", "lang")


class QuestionFormatError(ValueError):
    """A question file or record does not follow the README format (``where`` = file:line of
    the first bad record; ``problems``: one ``file:line: message`` per bad record)."""

    def __init__(self, message: str, where: str = "",
                 problems: Sequence[str] = ()) -> None:
        super().__init__(f"{where}: {message}" if where else message)
        self.where = where
        self.problems = tuple(problems) or (str(self),)


@dataclass(frozen=True, slots=True)
class GoldPage:
    """One gold location on a paginated document: ``doc`` (relative to the eval folder) and
    1-based physical ``page``."""

    doc: str
    page: int


@dataclass(frozen=True, slots=True)
class Question:
    """One evaluation question (fields of the README table, plus ``context``/``evidence_pages``).

    :param id: ``<dataset>:<original id>``.
    :param question: the question text as asked.
    :param answer: gold answer (always a string; numbers are kept as written).
    :param doc: gold document relative to the eval folder
        (``en/docs/financebench/3M_2018_10K.pdf``);
        ``""`` when the dataset names none.
    :param page: 1-based gold page for PDFs, else ``None``.
    :param pages: every gold page (1-based) when known, else ``()``.
    :param section: Markdown heading path (GitLab, ``" > "``-joined) or paragraph id (DRCD).
    :param source_dataset: FinanceBench, MMLongBench-Doc, DRCD, … (the per-dataset key).
    :param lang: ``en``, ``zh-Hans`` or ``zh-Hant``.
    :param evidence: original evidence (strings or dicts, as the dataset has it).
    :param answer_aliases: other accepted answers.
    :param tags: ``unanswerable``, ``answer_needs_image``, ``assumes_current_date:YYYY-MM-DD`` …
    :param notes: free text from the question file.
    :param context: the previous turn of a follow-up question (send it as history), or ``None``.
    :param evidence_pages: zh-pdf multi-place gold: every ``(doc, page)`` holding evidence.
    """

    id: str
    question: str
    answer: str
    source_dataset: str
    lang: str
    doc: str = ""
    page: int | None = None
    pages: tuple[int, ...] = ()
    section: str | None = None
    evidence: tuple[Any, ...] = ()
    answer_aliases: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    notes: str = ""
    context: str | None = None
    evidence_pages: tuple[GoldPage, ...] = field(default=())

    # -- derived views -------------------------------------------------------------------

    @property
    def dataset(self) -> str:
        """Short name of ``source_dataset`` (the aggregation key)."""
        return self.source_dataset

    @property
    def unanswerable(self) -> bool:
        """True when the right output is an explicit "not found"."""
        return "unanswerable" in self.tags

    @property
    def needs_image(self) -> bool:
        """True when the answer cannot be read from text (reported separately)."""
        return "answer_needs_image" in self.tags

    @property
    def current_date(self) -> str | None:
        """The ``YYYY-MM-DD`` of an ``assumes_current_date:`` tag, else ``None``."""
        for tag in self.tags:
            if tag.startswith("assumes_current_date:"):
                return tag.split(":", 1)[1].strip() or None
        return None

    @property
    def is_follow_up(self) -> bool:
        """True when the question needs its previous turn (``context``) as history."""
        return bool(self.context)

    @property
    def gold_answers(self) -> tuple[str, ...]:
        """The gold answer followed by its aliases, de-duplicated, empty strings dropped."""
        seen: list[str] = []
        for a in (self.answer, *self.answer_aliases):
            if a and a not in seen:
                seen.append(a)
        return tuple(seen)

    @property
    def gold_pages(self) -> tuple[GoldPage, ...]:
        """Every gold ``(doc, page)``: ``pages`` (else ``page``) of ``doc``; ``evidence_pages``."""
        out: list[GoldPage] = []
        nums = self.pages or ((self.page,) if self.page is not None else ())
        if self.doc:
            out.extend(GoldPage(self.doc, p) for p in nums)
        for gp in self.evidence_pages:
            if gp not in out:
                out.append(gp)
        return tuple(out)

    @property
    def gold_docs(self) -> tuple[str, ...]:
        """Every gold document: ``doc`` plus any other document named by ``evidence_pages``."""
        docs = [self.doc] if self.doc else []
        for gp in self.evidence_pages:
            if gp.doc not in docs:
                docs.append(gp.doc)
        return tuple(docs)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form (round-trips through :func:`parse_question`)."""
        data = asdict(self)
        data["evidence_pages"] = [{"doc": g.doc, "page": g.page} for g in self.evidence_pages]
        return data


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
