"""The offline policy's answer turn skips the dense re-rank (``dense_units`` embeddings, most
of a LoopAgent part's CPU) only when the key-term ranking settles the answer whatever the
dense similarities are (``loop.policies.offline_rank.dense_settled``; issue 16 latency)."""

from __future__ import annotations

import random

from corpus.tuning import TUNING
from corpus.types import Chunk
from loop.evidence import Evidence
from loop.policies.offline_rank import answer_call, dense_settled, ranked_evidence


def _chunk(i: int) -> Chunk:
    return Chunk(chunk_id=f"d-{i:05d}", doc_id="d", path="a.pdf", title="t", section_path=(),
                 page_start=1, page_end=1, line_start=1, line_end=1, char_start=0,
                 char_end=10, text="x" * 10, ordinal=i)


def _ev(chunk: int, text: str, coverage: float, score: float, rank: int | None = None
        ) -> Evidence:
    return Evidence(_chunk(chunk), text, coverage, (), chunk if rank is None else rank, score)


def _answer(lexical: list[Evidence], sims: dict[tuple[str, str], float] | None,
            floor: float = 0.4) -> dict:
    t = TUNING.offline
    return answer_call(ranked_evidence(t, floor, sims, lexical), t, floor).arguments


def test_a_clear_leader_is_settled_and_a_close_race_is_not() -> None:
    lead = [_ev(0, "| 存储温度 | –40 | 150 | °C |", 1.0, 1.5), _ev(1, "存储条件", 0.5, 0.9),
            _ev(1, "温度范围", 0.45, 0.5)]
    assert dense_settled(TUNING.offline, 0.4, lead)
    # within dense_weight of the chunk's cited unit, the other unit of chunk 1 (below the
    # citing cut, best - close) could become that chunk's best and drop its citation
    assert not dense_settled(TUNING.offline, 0.4, [*lead[:2], _ev(1, "温度范围", 0.45, 0.8)])
    race = [_ev(0, "A", 1.0, 1.0), _ev(1, "B", 1.0, 0.95)]
    assert not dense_settled(TUNING.offline, 0.4, race)
    # and the race is one the dense term does decide: B first when it is the closer unit
    flipped = _answer(race, {("d-00000", "A"): 0.80, ("d-00001", "B"): 0.85})
    assert [c["quote"] for c in flipped["citations"]][0] == "B"
    assert [c["quote"] for c in _answer(race, None)["citations"]][0] == "A"


def test_nothing_covering_the_floor_is_not_found_whatever_the_dense_term() -> None:
    weak = [_ev(0, "A", 0.3, 0.6), _ev(1, "B", 0.2, 0.5)]
    assert dense_settled(TUNING.offline, 0.4, weak)
    assert _answer(weak, None)["found"] is False


def test_when_settled_every_dense_similarity_gives_the_same_answer() -> None:
    """Random rankings (scores, coverages, chunks, the real tuning): wherever the check says
    settled, the answer with random similarities of the first ``dense_units`` units is the
    answer without them."""
    rng = random.Random(16)
    t = TUNING.offline
    settled = 0
    for _ in range(3000):
        n = rng.randint(1, 12)
        units = []
        for i in range(n):
            cov = round(rng.choice([rng.uniform(0, 1), 1.0, 0.5]), 4)
            score = cov + rng.choice([0.0, 0.2, rng.uniform(0, 0.6)]) + rng.choice(
                [0.0, rng.uniform(0, 1.5)])
            units.append(_ev(rng.randint(0, 4), f"u{i}", cov, score, rank=i))
        units.sort(key=lambda e: (-e.score, e.rank, len(e.text)))
        if not dense_settled(t, 0.4, units):
            continue
        settled += 1
        base = _answer(units, None)
        for _ in range(5):
            sims = {(e.chunk.chunk_id, e.text): rng.uniform(0.6, 0.9)
                    for e in units[:t.dense_units]}
            assert _answer(units, sims) == base
    assert settled > 300
