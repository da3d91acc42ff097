"""A weakly supported LoopAgent answer asks the caller's fast path (``loop.second_opinion``):
"not found" when RAG refuses the question too; any other answer is left as it is, without
asking. On the dev questions the loop answered "Which page of the guidebook refers to the most
central part of Oakland?" (unanswerable) with a guidebook's preface sentence at support 0.25,
where RAG had said "not found"."""

from __future__ import annotations

import asyncio

import pytest

from corpus.types import Citation
from loop.results import LoopResult
from loop.second_opinion import DOUBT_BELOW, doubted
from loop.types import NOT_FOUND

Q = "Which page of the guidebook refers to the most central part of Oakland?"
CITE = Citation("c-1", "guide.pdf", ("San Francisco",), 39, (11, 12),
                "We share Tony's belief that a great guidebook should inform.")


def _answer(support_p: float | None, **kw: object) -> LoopResult:
    res = LoopResult(CITE.quote, True, [CITE], "answer", "offline", support_p=support_p)
    for k, v in kw.items():
        setattr(res, k, v)
    return res


class Opinion:
    """The fast path's verdict, counting how often it was asked."""

    def __init__(self, refuses: bool | Exception) -> None:
        self.refuses, self.asked = refuses, 0

    async def __call__(self) -> bool:
        self.asked += 1
        if isinstance(self.refuses, Exception):
            raise self.refuses
        return self.refuses


def test_weak_support_and_a_refusing_fast_path_is_not_found() -> None:
    opinion = Opinion(True)
    res = asyncio.run(doubted(Q, _answer(0.2465), opinion))
    assert opinion.asked == 1
    assert not res.found and res.answer == NOT_FOUND and res.citations == []
    assert res.fast_path_refused and res.related == [CITE]
    assert res.to_dict()["fast_path_refused"] is True


def test_weak_support_and_an_answering_fast_path_keeps_the_answer() -> None:
    opinion = Opinion(False)
    res = asyncio.run(doubted(Q, _answer(0.2465), opinion))
    assert opinion.asked == 1 and res.found and res.citations == [CITE]
    assert not res.fast_path_refused


@pytest.mark.parametrize("kw", [
    {"support_p": DOUBT_BELOW["en"]},    # support at the bound: not weak
    {"support_p": 0.9},
    {"support_p": None},                 # no support model: nothing to judge by
    {"support_p": 0.1, "confirmed": True},   # the pick protocol's model confirmed the line
    {"support_p": 0.1, "computed": True},    # a figure computed from statement rows
])
def test_other_answers_do_not_ask(kw: dict[str, object]) -> None:
    opinion = Opinion(True)
    p = kw.pop("support_p")
    res = asyncio.run(doubted(Q, _answer(p, **kw), opinion))  # type: ignore[arg-type]
    assert opinion.asked == 0 and res.found


def test_a_not_found_answer_and_no_opinion_are_left_alone() -> None:
    refused = LoopResult(NOT_FOUND, False, [], "answer", "offline", support_p=0.1)
    opinion = Opinion(True)
    assert asyncio.run(doubted(Q, refused, opinion)) is refused and opinion.asked == 0
    assert asyncio.run(doubted(Q, _answer(0.1), None)).found


@pytest.mark.parametrize("fault", [RuntimeError("store down"), TimeoutError()])
def test_a_failing_second_opinion_keeps_the_answer(fault: Exception) -> None:
    res = asyncio.run(doubted(Q, _answer(0.1), Opinion(fault)))
    assert res.found and not res.fast_path_refused


def test_a_slow_second_opinion_times_out_and_keeps_the_answer() -> None:
    async def slow() -> bool:
        await asyncio.sleep(5)
        return True

    res = asyncio.run(doubted(Q, _answer(0.1), slow, timeout_s=0.05))
    assert res.found and not res.fast_path_refused


def test_every_found_answer_to_a_chinese_question_asks() -> None:
    # the loop's support has no retrieval confidence, which ranks Chinese answers best
    opinion = Opinion(True)
    res = asyncio.run(doubted(Q, _answer(0.98, support={"zh": 1.0}), opinion))
    assert opinion.asked == 1 and not res.found and res.fast_path_refused
    opinion = Opinion(False)
    assert asyncio.run(doubted(Q, _answer(0.98, support={"zh": 1.0}), opinion)).found
    assert opinion.asked == 1


def test_an_answer_in_another_script_than_its_question_is_not_doubted() -> None:
    # zhpdf-en:10 ("What is the storage temperature range of the ESP32-PICO-D4?") was answered
    # by the gold row of a Chinese datasheet; the RAG verdict reads words it cannot share
    row = Citation("c-2", "esp32.pdf", ("5 电气特性", "5.1 绝对最大额定值"), 20, (3, 3),
                   "| Tstore | 存储温度 | –40 | 150 | °C |")
    res = LoopResult(row.quote, True, [row], "answer", "offline", support_p=0.05)
    opinion = Opinion(True)
    question = "What is the storage temperature range of the ESP32-PICO-D4?"
    assert asyncio.run(doubted(question, res, opinion)).found and opinion.asked == 0
    # the same answer to the question asked in Chinese is doubted (every zh answer asks)
    res = LoopResult(row.quote, True, [row], "answer", "offline", support_p=0.9,
                     support={"zh": 1.0})
    assert not asyncio.run(doubted("ESP32-PICO-D4 的存储温度范围是多少？", res, opinion)).found
    assert opinion.asked == 1
