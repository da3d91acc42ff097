"""The offline LoopAgent answers with what follows a line that only repeats the question's
words, quoted from that line on (``corpus.evidence.TermMatcher.echoes``; MMLongBench dev,
mmlongbench:87: a table's caption "Button functions during a workout" was the whole answer).
Real ingest into an embedded store, the offline policy, no LLM."""

from __future__ import annotations

from conftest import KB, run_agent, text_kb_fixture

watch_kb = text_kb_fixture("watch", {"sleep.md": (
    "# Sleep guide\n\nAlarm settings during sleep mode\n\n"
    "| Name | Behaviour |\n|---|---|\n| Smart wake | rings within 30 minutes before the set time |\n"
    "| Snooze | repeats every 10 minutes, 3 times |\n")})


def test_what_follows_a_caption_repeating_the_question_is_quoted_with_it(watch_kb: KB) -> None:
    got = run_agent(watch_kb, None, "Which alarm settings are there during sleep mode?")
    assert got.found, got.answer
    flat = " ".join(got.citations[0].quote.split())
    assert flat.startswith("Alarm settings during sleep mode") and "|" in flat, flat
