"""The pick step of the line-reading protocol (issue 14, protocol ``pick``): the model chooses
which of the offline policy's best lines answers (:mod:`loop.policies.read_pick`: candidates,
prompt, schema, parsing), one call and one re-ask; the chosen line is cited verbatim and the
offline answer's citations follow as ``related``. "None of them", an unusable reply twice, a
fault or the deadline keep the offline answer, and so does an offline answer whose line does
not state what the question asks (:func:`offline_misses`: the agent refuses it; no pick
overturns that).
"""

from __future__ import annotations

from corpus.question_scope import content_misses, count_unit
from corpus.tuning import TUNING
from loop.citations import check_citations
from loop.controller import LoopState
from loop.evidence import asks_quantity
from loop.policies.offline import OfflinePolicy
from loop.policies.read_calls import ReadCalls, ReadStop
from loop.policies.read_nav import Navigator
from loop.policies.read_pick import (
    PICK_SYSTEM,
    Candidate,
    parse_pick,
    pick_candidates,
    pick_prompt,
    pick_schema,
    resolve_pick,
)
from loop.policies.read_value import bare_figure
from loop.results import LoopResult

__all__ = ["PickStep", "offline_misses"]

_PICK_REASK = ('Your reply could not be used: {error}. Reply with one JSON object only, like '
               '{{"value": "...", "line": 1}}.')


def offline_misses(state: LoopState, base: LoopResult) -> list[str]:
    """What the offline answer ``base``'s first line, read with its chunk, does not state of
    what the question asks (``corpus.question_scope.content_misses``: a value in a physical
    unit, a colour): the agent's scope check turns such an answer into "not found", and a
    picked line must not overturn that. Measured (zh-PDF dev, unanswerable zhpdf:62, "Deep-sleep
    模式下的典型电流是多少微安"): offline refused, the model picked a 40 mA pull-up current line,
    which states a current and passed the check."""
    if not base.citations:
        return []
    first = base.citations[0]
    chunk = state.ctx.read.get(first.chunk_id)
    heads = (chunk.title, *chunk.section_path) if chunk else ()
    return content_misses(state.question, first.quote + "\n" + (chunk.text if chunk else ""),
                          count_unit(first.quote, heads), quote=first.quote,
                          chunk_text=chunk.text if chunk else "",
                          headings=chunk.section_path if chunk else ())


class PickStep(ReadCalls):
    """The pick step of :class:`loop.policies.llm_read.LLMReadPolicy` (module docstring);
    ``pick_tokens`` is the ``max_tokens`` of its call."""

    pick_tokens: int

    async def _choose(self, nav: Navigator, head: str, cands: list[Candidate],
                      where: str = "pick") -> int | None:
        """The model's choice among ``cands`` (1-based; ``0`` = none; the copied value decides,
        :func:`~loop.policies.read_pick.resolve_pick`), one call and one re-ask; ``None`` when
        both replies are unusable. :raises ReadStop: deadline, token budget, fault."""
        msgs = [{"role": "system", "content": PICK_SYSTEM},
                {"role": "user", "content": pick_prompt(head, cands)}]
        got = await self._ask(nav, msgs, pick_schema(len(cands)), self.pick_tokens,
                              lambda text: parse_pick(text, len(cands)), _PICK_REASK, where)
        if got is None:
            return None
        (line, value), attempt, ms, tokens = got
        k = resolve_pick(cands, line, value)
        if k and ((bare_figure(value) and not asks_quantity(nav.state.question))
                  or nav.state.matcher.echoes(value)):
            k = 0  # a lone figure for a question that asks none, the question's own words:
            # no answer (_rounds)
        await nav.emit(kind="llm", elapsed_ms=ms, tokens=tokens,
                       note=(f"{where}: value {value!r} line {line} -> {k} of {len(cands)}"
                             + (" (re-asked)" if attempt else ""))[:300])
        return k

    async def _rounds(self, nav: Navigator, head: str, offline: OfflinePolicy,
                      cands: list[Candidate], lead: list[tuple[str, str]]
                      ) -> tuple[int, list[Candidate], int]:
        """The pick over ``cands``, then, when the model's usable reply named no line holding
        its value (none, an invented value, a yes/no), one more round over the offline
        answer's line and the next ``TUNING.pick.more_candidates`` lines of the offline
        ranking with its dense re-rank (:attr:`OfflinePolicy.similarity`) not shown yet: the
        gold line of a question is often just below the first five (zh-PDF dev: 10th, 15th).
        In either round a value that only repeats the question's words
        (:meth:`corpus.evidence.TermMatcher.echoes`: the model copied the heading "2.2 Dataset
        Construction Each" for "For dataset construction, which step …", mmlongbench:66) is no
        answer, and a value that is a figure alone (:func:`~loop.policies.read_value.
        bare_figure`) answers only a question that asks a quantity (``loop.evidence.
        asks_quantity``); either counts as "none of them". In round 2 the model copied a
        total ('57,046', p.156) for "What was the largest liability …" (gold: a row name on
        p.98) and '3' of 'Table 3: …' for "which step …" (English sample,
        financebench_id_01964, mmlongbench:66), both moving off the offline answer; in round
        1 (session 25) the same '3' for mmlongbench:66 and a '5' of a cash line for
        financebench_id_01964 did so again, the first losing the offline answer that held
        the gold.
        Returns the choice (``0`` = none), the candidates it indexes and the round (1, 2).
        :raises ReadStop: deadline, token budget, fault."""
        k = await self._choose(nav, head, cands)
        more = TUNING.pick.more_candidates
        if k != 0 or not more:
            return k or 0, cands, 1
        state = nav.state
        again = pick_candidates(offline.ranked_evidence(state, offline.similarity),
                                limit=more + 1, lead=lead, question=state.question,
                                shown=cands)
        if len(again) < 2 or (again[0].chunk_id, again[0].units) != (cands[0].chunk_id,
                                                                    cands[0].units):
            return 0, cands, 1  # no new line, or the offline answer is not first
        state.turn += 1
        return await self._choose(nav, head, again, "pick round 2") or 0, again, 2

    async def _pick(self, nav: Navigator, head: str, offline: OfflinePolicy,
                    base: LoopResult) -> LoopResult:
        """The pick step over the offline answer ``base`` (found): the model chooses among the
        offline ranking's best lines; the chosen line is the answer, ``base``'s citations
        follow as ``related``, and the answer is ``confirmed`` (the answer-support model does
        not refuse it). A single candidate is asked about too: the model's choice of the
        offline answer's line confirms it (zh-PDF dev, zhpdf:57: the offline answer, the one
        candidate and the gold line, was refused by the support model at p 0.295, the zh
        LoopAgent threshold being 0.696)."""
        state = nav.state
        if misses := offline_misses(state, base):
            return self._result(state, base, "answer", "offline answer: its line does not "
                                f"state what the question asks ({', '.join(misses)}): no pick",
                                offline.dense_error)
        lead = [(c.chunk_id, c.quote) for c in base.citations]
        cands = pick_candidates(offline.ranked_evidence(state), lead=lead,
                                question=state.question)
        if not cands:
            return self._result(state, base, "answer", "offline answer: no candidate line",
                                offline.dense_error)
        state.turn += 1
        try:
            k, cands, round_ = await self._rounds(nav, head, offline, cands, lead)
        except ReadStop as stop:
            why = f"offline answer: {stop.reason}" + (f" ({stop})" if str(stop) else "")
            await nav.emit(kind="stop", status=stop.reason, note=why[:300])
            return self._result(state, base, stop.reason, why, offline.dense_error)
        got = cands[k - 1] if k else None
        chk = check_citations([{"chunk_id": got.chunk_id, "quote": u} for u in got.units],
                              state.ctx.read, state.ctx.resolve) if got else None
        if got is None or chk is None or not chk.verified:
            why = "offline answer: the llm picked none of the offline lines"
            await nav.emit(kind="stop", status="answer", note=why)
            return self._result(state, base, "answer", why, offline.dense_error)
        why = (f"llm picked line {k} of {len(cands)} (offline rank {got.rank + 1})" if round_ == 1
               else f"llm picked line {k} of {len(cands)} in round 2")
        await nav.emit(kind="stop", status="answer", note=why)
        res = self._result(state, None, "answer", why, offline.dense_error,
                           (got.text(), list(chk.verified)))
        res.brain = self.brain.removesuffix(":read") + ":pick"
        res.confirmed = True  # the model judged that this line answers (LoopResult.confirmed)
        res.related = [c for c in [*base.citations, *base.related] if c not in chk.verified]
        return res
