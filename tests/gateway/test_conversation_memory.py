"""Session memory (gateway.conversation.memory): bounded in tokens across a long
conversation, window + summary + fact cards + retrieval state, JSON round trip."""

from __future__ import annotations

import orjson

from gateway.conversation import MemoryLimits, SessionMemory, bound, estimate_tokens, memory_tokens


def _cite(i: int) -> dict:
    return {"path": f"docs/policy-{i % 7}.md", "section_path": ["Policies", f"Rule {i}"],
            "page": None, "quote": f"Rule {i} says the limit is {i * 10} days. " * 6,
            "chunk_id": f"c{i:04d}", "doc_id": f"d{i % 7}"}


def test_fifty_turns_stay_under_the_token_bound() -> None:
    limits = MemoryLimits(max_tokens=1200, window_turns=4, max_facts=8, max_state=10)
    mem = SessionMemory("s1", collection="docs")
    for i in range(50):
        answer = f"The limit for rule {i} is {i * 10} days, as the policy states. " * 8
        question = f"What is the limit of rule {i} in the travel and expenses policy?"
        mem.add_turn(question, None, answer, found=i % 5 != 0, citations=[_cite(i)],
                     limits=limits)
        assert memory_tokens(mem) <= limits.max_tokens, i
        # the newest turn is always remembered verbatim, the window never grows past its size
        assert mem.turns[-1].question == question
        assert len(mem.turns) <= limits.window_turns
    assert mem.turn_count == 50
    assert mem.summary and mem.summary[-1].startswith("Q: What is the limit of rule 45")
    assert len(mem.facts) <= 8 and mem.facts[0].citations[0]["chunk_id"] == "c0049"
    assert mem.state.chunks[0]["chunk_id"] == "c0049" and len(mem.state.chunks) <= 10
    assert mem.state.documents[0]["doc_id"] == "d0"  # 49 % 7
    # not-found turns give no fact card
    assert all(f.turn % 5 != 1 for f in mem.facts)


def test_a_single_huge_turn_is_clipped_to_the_bound() -> None:
    limits = MemoryLimits(max_tokens=200)
    mem = SessionMemory("s2")
    mem.add_turn("q " * 500, None, "answer " * 3000, True, [_cite(1)], limits)
    assert memory_tokens(mem) <= 200
    assert bound(mem, limits) <= 200


def test_round_trip_through_json() -> None:
    mem = SessionMemory("s3", collection="c")
    for i in range(7):
        mem.add_turn(f"question {i}?", f"standalone question {i}?", f"answer {i}.", True,
                     [_cite(i)])
    back = SessionMemory.from_dict(orjson.loads(orjson.dumps(mem.to_dict())))
    assert back == mem


def test_token_estimate() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("网络日志") == 4
    assert estimate_tokens("retention period") == 3 + 2  # ceil(9/4) + ceil(6/4)
