"""Plan-and-execute (issue 16 item 3): a multi-part or comparison question is split by
:func:`gateway.routing.decompose.decompose`, its parts run concurrently through the router's own
path (cache → retrieval → RAG or LoopAgent, each part under the per-stage timeouts and the one
request deadline), and the answers are merged into one whose every part keeps its citations.

- A part that is not found is said to be not found; the others are still answered.
- A part still running when the request deadline comes is cancelled and reported as not
  answered in time (the route record's ``timeouts`` name it ``part<N>``), so one slow part never
  holds the answer past the deadline.
- Route record: ``final_path`` / ``brain`` ``plan``, ``decision`` ``{"route": "plan", …}`` and
  ``plan``: ``{"kind", "rule", "parts": [{"question", "found", "final_path", "brain",
  "citations" (indices into the answer's citations), "latency_ms", "decision", "timeouts",
  "cache_hit"}]}``; ``candidates`` are the parts' candidates in part order.
- :class:`gateway.routing.QueryResult` ``parts``: ``[{"question", "answer", "found",
  "citations": [indices]}]``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections import Counter
from typing import Any

from corpus.types import Citation
from gateway.errors import ServiceUnavailable
from gateway.routing.decompose import Plan, decompose
from gateway.routing.stages import Ctx, DeadlineExceeded, RouterStages, degraded_result
from gateway.routing.trace import RouteTrace
from gateway.routing.types import QueryInput, QueryResult

__all__ = ["NOT_FOUND_ZH", "PlanStages", "asks_in_chinese", "merge_parts", "not_found_text"]

#: seconds kept before the request deadline to merge and record the answer
_MERGE_RESERVE_S = 0.05


class PlanStages(RouterStages):
    """The router's plan-and-execute stage (module docstring); :class:`gateway.routing.Router`
    provides ``_route``."""

    async def _route(self, ctx: Ctx, q: QueryInput) -> QueryResult:  # pragma: no cover
        raise NotImplementedError

    def _plan_for(self, q: QueryInput, record: RouteTrace) -> Plan | None:
        """The question's plan, or ``None`` (one question, or decomposition switched off).

        Key terms the conversation stage appended for a question in the other language than
        the documents (``record.cross_language``: ``question (terms)``) are set aside while the
        question is split and appended to every part. A follow-up the conversation stage read
        with its earlier question in front of it (rule ``previous_question``) gets no
        elliptic split (``decompose(elliptic=False)``): the earlier question is not asked
        again as a part."""
        if not self.settings.decompose:
            return None
        text, tail = q.question, ""
        terms = (record.cross_language or {}).get("terms")
        if terms:
            suffix = f" ({' '.join(terms)})"
            if text.endswith(suffix):
                text, tail = text[:-len(suffix)], suffix
        # a follow-up read with its earlier question in front of it is one question
        glued = (record.rewrite or {}).get("rules", [])[-1:] == ["previous_question"]
        plan = decompose(text, max_parts=self.settings.decompose_max_parts,
                         elliptic=not glued)
        if plan is None or not tail:
            return plan
        return dataclasses.replace(plan, parts=tuple(p + tail for p in plan.parts))

    async def _run_plan(self, ctx: Ctx, q: QueryInput, plan: Plan) -> QueryResult:
        """Run ``plan``'s parts concurrently until the request deadline and merge them.

        :raises ServiceUnavailable: every part found no path that can run.
        """
        rec = ctx.record
        more = (f"; {len(plan.left)} more not run (LOOPGATE_DECOMPOSE_MAX_PARTS)"
                if plan.left else "")
        rec.decide("plan", f"{plan.kind} question: {len(plan.parts)} parts (rule {plan.rule})"
                   + more)
        if plan.left:
            rec.flag("parts_over_limit")
        await self._emit(ctx, {"type": "route", **rec.decision, "parts": list(plan.parts)})
        subs = [Ctx(ctx.deadline, RouteTrace.start(p, q.collection, q.mode), None)
                for p in plan.parts]
        results = await self._gather_parts(ctx, q, plan, subs)
        result, part_dicts = merge_parts(q.question, plan, results)
        self._record_plan(ctx, plan, subs, results, part_dicts)
        return result

    async def _gather_parts(self, ctx: Ctx, q: QueryInput, plan: Plan, subs: list[Ctx]
                            ) -> list[QueryResult | None]:
        """Each part's result (``None``: cut by the deadline or failed, said in its record).

        :raises ServiceUnavailable: every part found no path that can run.
        """
        t0 = time.perf_counter()
        tasks = [asyncio.create_task(self._part(sub, dataclasses.replace(
            q, question=part, history=(), session_id=None, expect_previous=None)))
            for sub, part in zip(subs, plan.parts, strict=True)]
        left = ctx.deadline - time.monotonic() - _MERGE_RESERVE_S
        done, pending = await asyncio.wait(tasks, timeout=max(0.0, left))
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
        ctx.timings["plan"] = round((time.perf_counter() - t0) * 1000, 3)
        results: list[QueryResult | None] = []
        unavailable: ServiceUnavailable | None = None
        for i, task in enumerate(tasks):
            if task in pending:
                subs[i].record.timeout(f"part{i + 1}", round(max(left, 0.0), 3), True)
                results.append(None)
                continue
            exc = task.exception()
            if isinstance(exc, ServiceUnavailable):
                unavailable = exc
                results.append(None)
            elif exc is not None:
                subs[i].record.error(f"part{i + 1}: {type(exc).__name__}: {exc}")
                results.append(None)
            else:
                results.append(task.result())
        if unavailable is not None and all(r is None for r in results):
            raise unavailable
        return results

    async def _part(self, sub: Ctx, q: QueryInput) -> QueryResult:
        """One part through the router's path; a passed deadline is a degraded part."""
        t0 = time.perf_counter()
        try:
            return await self._route(sub, q)
        except DeadlineExceeded as exc:
            sub.record.timeout(str(exc), 0.0, True)
            return degraded_result(sub.record, "the request deadline passed")
        finally:
            sub.timings["total"] = round((time.perf_counter() - t0) * 1000, 3)

    def _record_plan(self, ctx: Ctx, plan: Plan, subs: list[Ctx],
                     results: list[QueryResult | None], part_dicts: list[dict[str, Any]]) -> None:
        """Fill the request's record from its parts' records."""
        rec = ctx.record
        parts: list[dict[str, Any]] = []
        # part_dicts also holds the parts over the limit (plan.left), which ran nowhere: a
        # question of five parts was a 500 here (a break-it trial)
        ran = part_dicts[:len(subs)]
        for i, (sub, res, pd) in enumerate(zip(subs, results, ran, strict=True)):
            r = sub.record
            rec.absorb_part(i, r)
            parts.append({
                "question": pd["question"], "found": pd["found"],
                "final_path": r.final_path or ("timeout" if res is None else ""),
                "brain": r.brain, "citations": pd["citations"], "decision": r.decision,
                "confidence": r.confidence, "cache_hit": r.cache_hit,
                "latency_ms": sub.timings.get("total"), "timeouts": r.timeouts,
                "steps": len(r.steps),
                "tool_calls": dict(Counter(str(st.get("tool")) for st in r.steps
                                           if st.get("kind") == "tool")),
            })
        parts.extend({"question": pd["question"], "found": False, "final_path": "over_limit",
                      "citations": [], "steps": 0, "tool_calls": {}}
                     for pd in part_dicts[len(subs):])
        rec.planned(plan.kind, plan.rule, parts)


#: the "not found" answer to a question asked in Chinese (the paths write theirs in English)
NOT_FOUND_ZH = "文档中未找到。"


def asks_in_chinese(question: str) -> bool:
    """True when ``question`` holds a CJK ideograph (U+4E00–U+9FFF): its answer texts that the
    gateway writes itself ("not found", "not answered in time") are Chinese."""
    return any("\u4e00" <= ch <= "\u9fff" for ch in question)


def not_found_text(question: str, answer: str) -> str:
    """The "not found" text shown for ``question``: :data:`NOT_FOUND_ZH` when it is asked in
    Chinese (a new-user trial read the RAG path's English "Not found: the documents retrieved
    do not answer this confidently." under a Chinese question), else the path's ``answer``."""
    return NOT_FOUND_ZH if asks_in_chinese(question) else answer


def merge_parts(question: str, plan: Plan, results: list[QueryResult | None]
                ) -> tuple[QueryResult, list[dict[str, Any]]]:
    """One answer from the parts' answers: numbered sections, each part's citations kept
    (de-duplicated across parts, by chunk and quote) and indexed per part.

    :param results: one per part, ``None`` when the part was not answered in time.
    :returns: the merged result (``found`` when any part was found, ``parts`` filled) and the
        per-part dicts (``question``, ``answer``, ``found``, ``citations``: indices).
    """
    zh = asks_in_chinese(question)
    citations: list[Citation] = []
    related: list[Citation] = []
    seen: dict[tuple[str, str], int] = {}
    parts: list[dict[str, Any]] = []
    lines: list[str] = []
    for i, (part, res) in enumerate(zip(plan.parts, results, strict=True), 1):
        idx: list[int] = []
        if res is None:
            answer = "（未能在时限内回答）" if zh else "(not answered in time)"
            found = False
        else:
            found = bool(res.found)
            answer = res.answer.strip() if found else (
                NOT_FOUND_ZH if zh else "Not found in the documents.")
            for c in res.citations if found else ():
                key = (c.chunk_id, c.quote)
                if key not in seen:
                    seen[key] = len(citations)
                    citations.append(c)
                idx.append(seen[key])
            related.extend(c for c in res.related if (c.chunk_id, c.quote) not in seen)
        marks = "".join(f"[{n + 1}]" for n in idx)
        lines.append(f"{i}. {part}\n{answer}{(' ' + marks) if marks else ''}")
        parts.append({"question": part, "answer": answer, "found": found, "citations": idx})
    for i, part in enumerate(plan.left, len(plan.parts) + 1):
        answer = ("（未回答：超出一次最多回答的部分数）" if zh else
                  "(not answered: more parts than one question may have, "
                  "LOOPGATE_DECOMPOSE_MAX_PARTS)")
        lines.append(f"{i}. {part}\n{answer}")
        parts.append({"question": part, "answer": answer, "found": False, "citations": []})
    conflicts = [{**r.conflict, "part": i} for i, r in enumerate(results)
                 if r is not None and r.conflict is not None]
    result = QueryResult("\n\n".join(lines), citations, any(p["found"] for p in parts), {},
                         cached=False, related=related[:5], parts=parts,
                         conflict=conflicts[0] if conflicts else None)
    return result, parts
