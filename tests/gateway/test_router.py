"""Router: the pure routing rules (signals, decide, follow-up resolution) and the driver on a
real store with real components (timeouts → degraded answers, never exceptions)."""

from __future__ import annotations

import pytest

from gateway.routing import RuleConfig, decide, detect_signals, retrieval_query


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("第三条规定了什么？", "reference"),
        ("第12条的内容是什么", "reference"),
        ("What does section 3.2 say about warranty?", "reference"),
        ("What is on page 5?", "reference"),
        ("Summarise clause 4 of the contract", "reference"),
        ("附录A列出了哪些型号", "reference"),
        ("Compare the warranty of FW-301 with FW-3010", "comparison"),
        ("What is the difference between plan A and plan B?", "comparison"),
        ("A和B的区别是什么", "comparison"),
        ("Which is higher, revenue or cost?", "comparison"),
        ("What was Apple revenue in 2019 and 2020?", "multipart"),
        ("What is the warranty period and how do I claim it?", "multipart"),
        ("保修期多久？如何申请？", "multipart"),
        ("What was the net income of Amazon and Walmart in FY2019?", "multipart"),
    ],
)
def test_signals_found(question: str, kind: str) -> None:
    kinds = [s.kind for s in detect_signals(question)]
    assert kind in kinds, (question, kinds)


@pytest.mark.parametrize(
    "question",
    ["退货期限是几天？", "仓库周六开门吗？", "How many days do returns take?",
     "What was 3M capital expenditure in FY2018?", "标准配送要几天？", "Is the warehouse open?"],
)
def test_plain_questions_have_no_signal(question: str) -> None:
    assert detect_signals(question) == []


def test_rules_can_be_switched_off() -> None:
    cfg = RuleConfig(on_reference=False, on_comparison=False, on_multipart=False)
    assert detect_signals("Compare page 5 of 2019 and 2020", cfg) == []
    cfg = RuleConfig(min_parts=3)
    assert detect_signals("What was revenue in 2019 and 2020?", cfg) == []
    assert detect_signals("Revenue in 2018, 2019 and 2020?", cfg)[0].kind == "multipart"


def test_decide_modes_threshold_and_reasons() -> None:
    cfg = RuleConfig(confidence_threshold=0.6)
    d = decide("auto", 0.9, [], cfg)
    assert d.route == "rag" and "0.90 >= threshold 0.60" in d.reason
    d = decide("auto", 0.3, [], cfg)
    assert d.route == "loop" and "0.30 < threshold 0.60" in d.reason
    d = decide("auto", None, [], cfg)
    assert d.route == "loop" and "retrieved nothing" in d.reason
    sig = detect_signals("What is on page 5?")
    d = decide("auto", 0.99, sig, cfg)
    assert d.route == "loop" and "reference (page 5)" in d.reason
    assert decide("rag", 0.01, sig, cfg).route == "rag"
    assert decide("loop", 0.99, [], cfg).route == "loop"
    assert decide("auto", 0.99, [], cfg, rag_available=False).route == "loop"
    assert decide("auto", 0.01, [], cfg, loop_available=False).route == "rag"


def test_followup_resolution() -> None:
    hist = [{"role": "user", "content": "What is the warranty of FW-301?"},
            {"role": "assistant", "content": "Two years."}]
    assert retrieval_query("And its price?", hist) == "What is the warranty of FW-301? And its price?"
    assert retrieval_query("那退货呢？", [{"role": "user", "content": "保修期多久"}]) == "保修期多久 那退货呢？"
    long_q = "How many working days does standard shipping take for orders within the country?"
    assert retrieval_query(long_q, hist) == long_q
    assert retrieval_query("And its price?", []) == "And its price?"
