"""A weakly supported LoopAgent answer asks the caller's fast path for a second opinion
(issue 15 item 4: "not found" when the evidence does not hold what was asked).

The LoopAgent starts from the RAG path's candidates and may answer from a unit RAG never
chose. Where RAG's own answer decision over those candidates (its code, presence, period and
support checks: ``rag.decision``) says "not found" and the unit the loop chose barely holds the
question's terms (answer-support probability below :data:`DOUBT_BELOW`,
``corpus.answer_support``), two independent readings agree that nothing answers: the loop's
answer becomes "not found" too (flag ``fast_path_refused``). An answer the model of the pick
protocol confirmed, a figure computed from statement rows, or an answer in another script than
its question (``corpus.scripts``: term coverage cannot cross scripts, and RAG's verdict on an
English question over Chinese passages reads words it does not share with them; zh-PDF
questions asked in English lost a hit to it) is not doubted. The caller
supplies the second opinion (``gateway.routing``: the extractive RAG answer on the same
retrieval; ``evals.adapters``: the same decision); the loop does not import the RAG path.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable

from corpus.scripts import other_script, script_share
from loop.answer_checks import refuse
from loop.results import LoopResult

__all__ = ["DOUBT_BELOW", "SecondOpinion", "doubted"]

#: ``() -> True`` when the fast path (RAG's answer decision over the same candidates) refuses.
SecondOpinion = Callable[[], Awaitable[bool]]

#: Answer-support probability below which a found loop answer asks for the second opinion, by
#: the question's language (the ``zh`` support feature). English: the offline LoopAgent's
#: answers to the 547 dev questions that the RAG path refused (a9683b5, whole eval collection,
#: no LLM) were eleven, by support 0.20 (answerable, wrong unit), 0.25, 0.25 (unanswerable),
#: 0.29 (answerable, wrong unit), 0.33, 0.42 (answerable, gold unit) …: the bound sits below
#: the first answer holding the gold evidence. Chinese: every found answer asks. RAG's support
#: decision reads its retrieval confidence, which ranks Chinese answers better than the
#: coverage features do (``corpus.answer_support``), and the loop has none; on the 182 Chinese
#: dev questions RAG refused none that the loop answered, and on the questions whose document
#: was deleted RAG refused nine DRCD/CMRC questions the loop answered at support 0.78–0.98
#: (``benchmarks/absent_documents.py``; docs/loopagent.md).
DOUBT_BELOW: dict[str, float] = {"en": 0.30, "zh": math.inf}


async def doubted(question: str, res: LoopResult, second_opinion: SecondOpinion | None,
                  timeout_s: float = 0.0) -> LoopResult:
    """``res``, or "not found" (``fast_path_refused`` True, the cited units under
    ``related``) when it is a found answer with support probability below :data:`DOUBT_BELOW`
    of its question's language and ``second_opinion`` says the fast path refuses (module
    docstring: which answers are never doubted). It is asked only for such answers, under
    ``timeout_s`` seconds (0 = none); a failure or a timeout keeps the answer."""
    if (second_opinion is None or not res.found or not res.citations or res.fallback
            or res.support_p is None
            or res.support_p >= DOUBT_BELOW["zh" if res.support.get("zh", 0.0) > 0 else "en"]
            or res.confirmed or res.computed):
        return res
    first = res.citations[0]
    if other_script(script_share(question),
                    script_share(" ".join([*first.section_path, first.quote]))):
        return res
    try:
        refused = await asyncio.wait_for(second_opinion(), timeout_s or None)
    except Exception:  # noqa: BLE001 - a failed second opinion keeps the answer
        return res
    if refused:
        refuse(res)
        res.fast_path_refused = True
    return res
