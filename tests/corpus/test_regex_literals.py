"""corpus._regex_literals: the literal gate never clears a text its pattern matches (the
injection check searches only the texts the gate lets through)."""

from __future__ import annotations

import random
import re

import pytest
from test_answer_checks import BENIGN, HOSTILE

from corpus import injection
from corpus._regex_literals import literal_gate


def _slow(text: str) -> bool:
    t = injection._norm(text)
    return injection._RX.search(t) is not None or injection._ROLE.search(t) is not None


def test_a_text_lacking_the_needed_literals_is_cleared() -> None:
    gate = literal_gate(re.compile(r"\bfoo(?:bar|baz)+[:：]\s*q?", re.I))
    assert gate is not None
    assert gate("x FOObaz: y") and gate("foobarbar：")
    assert not gate("fo bar baz:")  # "foo" is needed
    assert not gate("foo bax:")  # "bar" or "baz" is needed
    assert not gate("foobaz only")  # one of the colon class is needed
    assert gate("ıt's foobaz:") and gate("FOOBAZ:")


def test_a_pattern_needing_no_literal_has_no_gate() -> None:
    assert literal_gate(re.compile(r"\d+|[a-z]{3}")) is None
    assert literal_gate(re.compile(r"(?:abc)?x*")) is None


@pytest.mark.parametrize("text", [*HOSTILE, *BENIGN])
def test_injection_verdicts_are_those_of_the_full_search(text: str) -> None:
    assert injection._judge(text) == _slow(text)
    assert injection._judge(text.upper()) == _slow(text.upper())


def test_mixed_fragments_of_hostile_lines_judge_alike() -> None:
    # texts cut and joined from the hostile and ordinary lines, odd case forms (ı, İ, ſ, K)
    # and line breaks mixed in: the gate's verdict never differs from the full search
    rng = random.Random(7)
    words = " ".join([*HOSTILE, *BENIGN]).split() + ["\n", "ı", "İ", "ſ", "\u212a", "<<SYS>>"]
    for _ in range(3000):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(1, 12)))
        if rng.random() < 0.3:
            text = text.upper()
        assert injection._judge(text) == _slow(text), text
