"""The line-reading LLM policy (issue 14): a reading protocol a small local model can follow,
and never worse than no LLM.

1. The offline policy (:class:`loop.policies.offline.OfflinePolicy`) runs first through the
   controller, without the LLM: it starts from the RAG candidates seeded in ``ctx.seen``,
   searches, reads, and yields its answer (milliseconds; the reading plan and the fallback).
2. The model then reads ONE block at a time (:mod:`loop.policies.read_blocks`: a few hundred
   characters of numbered lines), starting at the block of the offline policy's best evidence,
   then the blocks of the next best units, then unread candidates. Each call is the byte-stable
   system prompt plus question, notes so far and the block, and the reply is one JSON object
   constrained by a JSON schema (:mod:`loop.policies.read_parse`): ``extract`` (facts + line
   ids), ``continue`` (next / previous / other) or ``stop``. The loop, not the model, picks the
   chunk id to read next (``next_chunk`` / ``prev_chunk`` / ``read`` under the per-tool timeout).
   A reply that cannot be parsed is re-asked once with the error; then the offline rule takes
   that step (the block's best unit over the coverage floor becomes a note).
3. Line ids become verbatim quotes with page and lines (``loop.citations.check_citations``); the
   model writes the answer from its notes with footnote markers; no notes = "not found".
4. Never worse: on a deadline, an LLM fault or the token budget the answer is the offline
   policy's over everything read; otherwise the LLM answer is kept only when its cited lines
   support the question at least as well as the offline policy's best evidence
   (:mod:`loop.policies.read_guard`); ``LoopResult.guard`` and the last step say why. A kept
   LLM answer's citations are followed by the offline answer's other citations (its answer
   text marks only its own), so the evidence returned always holds the offline answer's.

Usage example::

    policy = LLMReadPolicy(client, embedder=embedder)
    result = await policy.run(state, on_event)   # a LoopResult; never raises for LLM faults
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from corpus.citations import location_text
from corpus.labels import asked_item
from corpus.types import Citation
from loop.citations import check_citations
from loop.controller import EventCallback, LoopState, drive
from loop.llm_client import AsyncLLMClient
from loop.policies import read_parse as rp
from loop.policies.offline import OfflinePolicy
from loop.policies.read_blocks import BLOCK_CHARS, Block
from loop.policies.read_calls import FAULTS, ReadStop
from loop.policies.read_guard import is_question_echo, judge, unsupported_figures
from loop.policies.read_nav import Navigator, OutOfTime
from loop.policies.read_pick_step import PickStep
from loop.policies.read_prompts import (
    READ_SYSTEM,
    REASK,
    answer_prompt,
    context_lines,
    renumber,
    step_prompt,
)
from loop.results import LoopResult, StopReason
from loop.types import NOT_FOUND, UnitEmbedder

__all__ = ["LLMReadPolicy"]


class LLMReadPolicy(PickStep):
    """Reads with an LLM one block at a time (see the module docstring).

    :param client: the chat-completions client (JSON schema through ``response_format``).
    :param current_date, history: told to the model with the question.
    :param embedder: the offline policy's dense embedder (``None`` = key terms only).
    :param max_steps: block decisions (LLM calls, re-asks not counted) per question.
    :param block_chars: characters of numbered lines per block.
    :param reserve_s: seconds before the loop deadline at which reading stops, kept for the
        offline answer (default: 10 % of the deadline, at most 2 s).
    :param step_tokens, answer_tokens: ``max_tokens`` of a step / the answer call.
    :param write_single: also make the answer call when there is one note (default: that
        note's fact, which the model wrote in the question's language, is the answer; the call
        cost 8–15 s per question with the local 1.5B model on 2 busy cores).
    :param pick: first have the model choose which of the offline policy's best lines answers
        (:mod:`loop.policies.read_pick`, one call, ``pick_tokens``); blocks are read only when
        the offline policy found nothing. The chosen line is one the offline policy ranked as
        evidence (over the coverage floor), cited verbatim; its other citations go to
        ``related``. "None of them", an unusable reply twice, a fault or the deadline keep the
        offline answer.
    """

    def __init__(self, client: AsyncLLMClient, *, current_date: str | None = None,
                 history: Sequence[dict[str, Any]] = (), embedder: UnitEmbedder | None = None,
                 max_steps: int = 12, block_chars: int = BLOCK_CHARS,
                 reserve_s: float | None = None, step_tokens: int = 160,
                 answer_tokens: int = 200, write_single: bool = False, pick: bool = False,
                 pick_tokens: int = 64) -> None:
        super().__init__(client)
        self.embedder = embedder
        self.current_date, self.history = current_date, list(history)
        self.max_steps, self.block_chars, self.reserve_s = max_steps, block_chars, reserve_s
        self.step_tokens, self.answer_tokens, self.write_single = (step_tokens, answer_tokens,
                                                                   write_single)
        self.pick, self.pick_tokens = pick, pick_tokens
        self.notes: list[tuple[str, list[Citation]]] = []

    async def _decide(self, nav: Navigator, head: str, block: Block) -> rp.Decision:
        """The model's decision on ``block`` (one call, one re-ask with the parse error); when
        both replies are unusable the offline rule decides: the block's best unit becomes a
        note when it covers the coverage floor, and reading moves on to another block."""
        msgs = [{"role": "system", "content": READ_SYSTEM}, {"role": "user", "content":
                step_prompt(head, [f for f, _ in self.notes], block)}]
        where = f"block {block.chunk.chunk_id}#{block.index + 1}"
        got = await self._ask(nav, msgs, rp.STEP_SCHEMA, self.step_tokens,
                              lambda text: rp.parse_decision(text, len(block.lines)), REASK,
                              where)
        if got is not None:
            d, attempt, ms, tokens = got
            self.dropped_lines += d.dropped_lines
            what = (f"extract {[ids for _, ids in d.notes]} then {d.move}"
                    if d.action == "extract" else f"{d.action} {d.reason or d.move}")
            await nav.emit(kind="llm", elapsed_ms=ms, tokens=tokens,
                           note=f"{where}: {what}" + (" (re-asked)" if attempt else ""))
            return d
        m, floor = nav.state.matcher, nav.state.ctx.config.min_coverage
        best = max(range(len(block.lines)), key=lambda i: m.coverage(block.lines[i]))
        if m.coverage(block.lines[best]) >= floor:
            return rp.Decision("extract", [(block.lines[best], [best + 1])], "other")
        return rp.Decision("continue", move="other")

    def _note(self, state: LoopState, block: Block, fact: str, ids: list[int]) -> None:
        raw = [{"chunk_id": block.chunk.chunk_id, "quote": block.line(i)} for i in ids]
        chk = check_citations(raw, state.ctx.read, state.ctx.resolve)
        state.dropped += chk.dropped
        quotes = [c.quote for c in chk.verified]
        if (unsupported_figures(fact, quotes, state.question)
                or is_question_echo(fact, state.question)):
            self.dropped_lines += 1  # a figure the lines do not hold, or the question: no fact
        elif chk.verified:
            self.notes.append((fact or quotes[0], chk.verified))

    async def run(self, state: LoopState, on_event: EventCallback | None = None) -> LoopResult:
        """Answer ``state.question``: offline pass, block reading, answer, guard. Never raises
        for LLM or tool faults (they end the reading; the offline answer is returned)."""
        cfg = state.ctx.config
        reserve = self.reserve_s if self.reserve_s is not None else min(2.0, 0.1 * cfg.deadline_s)
        self._deadline = (state.started + cfg.deadline_s - reserve) if cfg.deadline_s else 1e18
        nav = Navigator(state, on_event, self._deadline, self.block_chars)
        offline = OfflinePolicy(embedder=self.embedder)
        base = await drive(offline, state, on_event)
        if base.stop_reason == "fallback_to_rag" or not state.ctx.read:
            return self._result(state, base, base.stop_reason, "offline: nothing to read",
                                offline.dense_error)
        read_before = set(state.ctx.read)  # the guard scores with the offline answer's weights
        m0 = state.matcher.known([c.context_text() for c in state.ctx.seen.values()],
                              label=asked_item(state.question))
        head = context_lines(state.question, self.current_date, self.history)
        if self.pick and base.found:  # the model chooses a line: it writes no text
            return await self._pick(nav, context_lines(
                state.question, self.current_date, self.history, language=False), offline, base)
        nav.make_plan(base, list(offline.planned.values()))
        end: StopReason = "answer"
        note, written = "", None
        try:
            end = await self._read(nav, head)
            written = await self._write(nav, head) if self.notes else None
        except ReadStop as stop:
            end, note = stop.reason, str(stop)
        except OutOfTime as exc:
            end, note = "deadline", str(exc)
        if set(state.ctx.read) != read_before and not base.found:  # over everything read;
            base = await self._offline_again(state)  # a found one stays (recomputed: zhpdf:10 lost)
        if end in FAULTS or (end == "max_loops" and not self.notes):
            why = f"offline answer: {end}" + (f" ({note})" if note else "")
            await nav.emit(kind="stop", status=end, note=why[:300])
            return self._result(state, base, end, why, offline.dense_error)
        cited = [c for _, cs in self.notes for c in cs]
        verdict = judge(cited, base.citations, base.found, state.ctx.read, m0, cfg.min_coverage)
        await nav.emit(kind="stop", status=end, note=verdict.reason)
        if not verdict.keep_llm or written is None:
            return self._result(state, base, end, verdict.reason, offline.dense_error)
        answer, mine = written  # then the offline answer's other citations: never less evidence
        more = [c for c in base.citations if c not in mine]
        return self._result(state, None, end, verdict.reason, offline.dense_error,
                            (answer, [*mine, *more]))

    async def _read(self, nav: Navigator, head: str) -> StopReason:
        """Blocks one at a time until the model says it can answer, the plan runs out
        (``answer``) or ``max_steps`` (``max_loops``)."""
        block = await nav.other()
        steps = 0
        while block is not None:
            if steps >= self.max_steps:
                return "max_loops"
            steps += 1
            nav.state.turn += 1
            nav.shown.add(block.key)
            d = await self._decide(nav, head, block)
            for fact, ids in d.notes:
                self._note(nav.state, block, fact, ids)
            if d.move == "answer" or (d.action == "stop" and d.reason == "sufficient"):
                return "answer"
            if d.move in ("next", "previous"):
                block = (await nav.neighbour(block, 1 if d.move == "next" else -1)
                         or await nav.other())
            else:
                block = await nav.other(block.chunk.doc_id if d.action == "stop" else "")
        return "answer"

    async def _write(self, nav: Navigator, head: str) -> tuple[str, list[Citation]]:
        """The answer from the notes (one LLM call and one re-ask; the notes' facts joined when
        both replies are unusable; one note's fact without a call unless ``write_single``) and
        its citations, footnote markers renumbered to them."""
        citations: list[Citation] = []
        per_note: list[list[int]] = []
        for _, cs in self.notes:
            citations += [c for c in cs if c not in citations]
            per_note.append([citations.index(c) + 1 for c in cs])
        if len(self.notes) == 1 and not self.write_single:  # its fact is the model's answer
            return renumber(f"{self.notes[0][0]} [1]", per_note), citations
        shown = [(f, cs[0].quote, f"{cs[0].path} "
                  + location_text(cs[0].page, cs[0].page_end, cs[0].lines))
                 for f, cs in self.notes]
        msgs = [{"role": "system", "content": READ_SYSTEM},
                {"role": "user", "content": answer_prompt(head, shown)}]
        text = ""
        for attempt in range(2):
            reply, ms, tokens = await self._chat(nav, msgs, rp.ANSWER_SCHEMA, self.answer_tokens)
            try:
                text = rp.parse_answer(reply)
            except rp.ReplyError as exc:
                self.invalid += 1
                msgs = [*msgs[:2], {"role": "assistant", "content": reply[:1000]},
                        {"role": "user", "content": REASK.format(error=exc)}]
            await nav.emit(kind="llm", status="ok" if text else "invalid", elapsed_ms=ms,
                           tokens=tokens, note="answer" + (" (re-asked)" if attempt else ""))
            if text:
                break
        if not text or unsupported_figures(text, [c.quote for c in citations],
                                           nav.state.question):
            text = " ".join(f"{f} [{k}]" for k, (f, _) in enumerate(self.notes, 1))
        return renumber(text, per_note), citations

    async def _offline_again(self, state: LoopState) -> LoopResult:
        """The offline policy's answer over every chunk read (embedder only if time is left)."""
        late = time.monotonic() >= self._deadline
        call = await OfflinePolicy(embedder=None if late else self.embedder).final_answer(state)
        args = call.arguments
        chk = check_citations(args.get("citations") or [], state.ctx.read, state.ctx.resolve)
        found = bool(args.get("found")) and bool(chk.verified)
        return LoopResult(str(args.get("response", NOT_FOUND)) if found else NOT_FOUND, found,
                          chk.verified, "answer", "offline")
