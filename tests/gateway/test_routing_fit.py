"""The fitted escalation rule (issue 14 item 3): fit, threshold under a budget, cross-validated
estimate, save/load, and ``loopgate calibrate --router`` on two eval results files."""

from __future__ import annotations

import json
import random
from pathlib import Path

from typer.testing import CliRunner

from gateway.routing.fit import RoutingModel, decision_features, fit_router


def _rows(n: int = 400, seed: int = 1) -> list[dict]:
    """Synthetic questions: the LoopAgent wins on low-confidence Chinese questions, loses on
    Markdown sources, and the two paths tie elsewhere (both hit or both miss)."""
    rnd = random.Random(seed)
    rows = []
    for _ in range(n):
        zh = rnd.random() < 0.5
        conf = rnd.random()
        text_doc = rnd.random() < 0.3
        feats = decision_features(conf, {"coverage": rnd.random()}, "问题" if zh else "question",
                                  [], "a.md" if text_doc else "a.pdf")
        rag_hit = rnd.random() < 0.4 + 0.5 * conf
        loop_hit = rag_hit
        if zh and conf < 0.4 and not text_doc and rnd.random() < 0.7:
            loop_hit = True
        if text_doc and rnd.random() < 0.5:
            loop_hit = False
        rows.append({"features": feats, "rag_hit": rag_hit, "loop_hit": loop_hit})
    return rows


def test_fitted_rule_gains_within_budget_and_cross_validates() -> None:
    rows = _rows()
    m = fit_router(rows, budget=0.35)
    meta = m.meta
    assert meta["escalated"] <= 0.35 and meta["cv_escalated"] <= 0.40
    assert meta["fitted_hit"] > max(meta["rag_hit"], meta["loop_hit"])
    assert meta["cv_hit"] > max(meta["rag_hit"], meta["loop_hit"])  # carries to held-out folds
    assert meta["fitted_hit"] <= meta["oracle_hit"]
    zh_low = decision_features(0.1, {}, "问题", [], "a.pdf")
    en_md = decision_features(0.1, {}, "question", [], "a.md")
    assert m.escalate(zh_low)[0] and not m.escalate(en_md)[0]
    assert m.escalate(zh_low)[1] > m.escalate(en_md)[1]


def test_zero_budget_never_escalates() -> None:
    m = fit_router(_rows(), budget=0.0)
    assert m.meta["escalated"] == 0.0 and m.meta["fitted_hit"] == m.meta["rag_hit"]


def test_save_load_round_trip(tmp_path: Path) -> None:
    m = fit_router(_rows(), budget=0.3)
    m.save(tmp_path / "r.json")
    back = RoutingModel.load(tmp_path / "r.json")
    assert back is not None and back.threshold == m.threshold
    f = decision_features(0.2, {}, "问题", ["reference"], "x.pdf")
    assert abs(back.score(f) - m.score(f)) < 1e-12
    assert RoutingModel.load(tmp_path / "absent.json") is None


def test_calibrate_router_command(tmp_path: Path) -> None:
    from gateway.cli import app

    rnd = random.Random(3)
    rag, loop = [], []
    for i, r in enumerate(_rows(300, seed=3)):
        zh = r["features"]["zh"] == 1.0
        q = "试用期多久？" if zh else "How long is the probation?"
        path = "a.md" if r["features"]["top_text_doc"] else "a.pdf"
        rec = {"confidence": r["features"]["confidence"], "candidates": [{"path": path}],
               "route_record": {"features": {"dense_top": 0.8, "coverage": rnd.random()}}}
        rag.append({"id": f"q{i}", "question": q, "lang": "zh" if zh else "en",
                    "score": {"evidence_hit": r["rag_hit"]}, "record": rec})
        loop.append({"id": f"q{i}", "score": {"evidence_hit": r["loop_hit"]}})
    rag.append({"id": "u", "question": "?", "score": {"evidence_hit": None}, "record": {}})
    (tmp_path / "rag.jsonl").write_text("\n".join(json.dumps(x) for x in rag), "utf-8")
    (tmp_path / "loop.jsonl").write_text("\n".join(json.dumps(x) for x in loop), "utf-8")
    out = tmp_path / "routing.json"
    res = CliRunner().invoke(app, ["calibrate", str(tmp_path / "rag.jsonl"), "--router",
                                   str(tmp_path / "loop.jsonl"), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "cv_hit" in res.output and "fitted on 300 questions" in res.output
    assert RoutingModel.load(out) is not None


def test_router_uses_the_fitted_rule_when_configured(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from gateway.routing import RagResult
    from gateway.routing.fit import fitted_decision, load_routing_model
    from gateway.settings import Settings

    m = fit_router(_rows(), budget=0.35)
    m.save(tmp_path / "r.json")
    s = Settings(router_model_path=str(tmp_path / "r.json"))
    model = load_routing_model(s)
    assert model is not None and model.threshold == m.threshold
    assert load_routing_model(Settings(router_rule="threshold")) is None
    hit = SimpleNamespace(chunk=SimpleNamespace(path="law.pdf"))
    low_zh = RagResult([hit], 0.1, {}, [])
    d = fitted_decision(model, "问题", low_zh, [])
    assert d.route == "loop" and "fitted rule" in d.reason
    md = RagResult([SimpleNamespace(chunk=SimpleNamespace(path="handbook.md"))], 0.1, {}, [])
    assert fitted_decision(model, "question", md, []).route == "rag"
    # under the RAG answer floor RAG would refuse: escalated whatever the fitted score
    d = fitted_decision(model, "question", md, [], answer_floor=0.2)
    assert d.route == "loop" and "under the RAG answer floor 0.20" in d.reason
    assert fitted_decision(model, "question", md, [], answer_floor=0.05).route == "rag"


def _forced(rows: list[dict], loop_wins: bool, seed: int = 2) -> list[dict]:
    """Mark a fifth of the rows as having question signals; there the LoopAgent either wins
    (hits where RAG misses) or loses (misses where RAG hits)."""
    rnd = random.Random(seed)
    out = []
    for r in rows:
        r = dict(r)
        if rnd.random() < 0.2:
            r["forced"] = True
            r["rag_hit"], r["loop_hit"] = (False, True) if loop_wins else (True, False)
        out.append(r)
    return out


def test_signals_escalate_only_when_the_data_says_they_gain(tmp_path: Path) -> None:
    gain = fit_router(_forced(_rows(), loop_wins=True), budget=0.35)
    assert gain.signals_escalate and gain.meta["escalated"] <= 0.35
    lose = fit_router(_forced(_rows(), loop_wins=False), budget=0.35)
    assert not lose.signals_escalate
    assert lose.meta["cv_hit"] > lose.meta["signals_cv_hit"]
    lose.save(tmp_path / "r.json")
    back = RoutingModel.load(tmp_path / "r.json")
    assert back is not None and back.signals_escalate is False


def test_forced_rows_count_against_the_budget() -> None:
    rows = [{**r, "forced": True} for r in _rows()[:150]] + _rows()[150:]
    m = fit_router(rows, budget=0.35)
    if m.signals_escalate:  # 150 of 400 forced: at most 140 escalations in all
        assert m.meta["escalated"] == 150 / 400  # the budget is used up by the signals
    else:
        assert m.meta["escalated"] <= 0.35


def test_router_records_count_a_right_refusal_as_a_hit(tmp_path: Path) -> None:
    """An unanswerable question enters the fit with "hit" = the path refused it (the right
    output), so a rule that sends such questions to a LoopAgent that refuses them gains; a
    question with neither a gold location nor an unanswerable tag stays out."""
    from gateway.cli.calibrate import router_records

    def row(qid: str, score: dict) -> dict:
        return {"id": qid, "question": "Which icon colour?", "lang": "en", "score": score,
                "record": {"confidence": 0.4, "candidates": [{"path": "a.pdf"}]}}

    rag = [row("a", {"evidence_hit": True}),
           row("u", {"evidence_hit": None, "refusal_correct": False}),
           row("img", {"evidence_hit": None, "refusal_correct": None})]
    loop = [row("a", {"evidence_hit": False}),
            row("u", {"evidence_hit": None, "refusal_correct": True}),
            row("img", {"evidence_hit": None, "refusal_correct": None})]
    (tmp_path / "rag.jsonl").write_text("\n".join(json.dumps(x) for x in rag), "utf-8")
    (tmp_path / "loop.jsonl").write_text("\n".join(json.dumps(x) for x in loop), "utf-8")
    rows = router_records(tmp_path / "rag.jsonl", tmp_path / "loop.jsonl")
    assert [(r["rag_hit"], r["loop_hit"]) for r in rows] == [(True, False), (False, True)]


def test_router_records_fit_on_the_retrieval_confidence(tmp_path: Path) -> None:
    """The rule's ``confidence`` feature is the retrieval confidence the router reads at run
    time (``route_record.retrieval_confidence``); a run recorded before that field existed
    falls back to the record's confidence (the answer's support probability)."""
    from gateway.cli.calibrate import router_records

    def row(qid: str, route: dict) -> dict:
        return {"id": qid, "question": "Which icon colour?", "lang": "en",
                "score": {"evidence_hit": qid == "new"},
                "record": {"confidence": 0.4, "candidates": [{"path": "a.pdf"}],
                           "route_record": route}}

    rag = [row("new", {"retrieval_confidence": 0.9}), row("old", {})]
    loop = [row("new", {}), row("old", {})]
    (tmp_path / "rag.jsonl").write_text("\n".join(json.dumps(x) for x in rag), "utf-8")
    (tmp_path / "loop.jsonl").write_text("\n".join(json.dumps(x) for x in loop), "utf-8")
    rows = router_records(tmp_path / "rag.jsonl", tmp_path / "loop.jsonl")
    assert [r["features"]["confidence"] for r in rows] == [0.9, 0.4]
