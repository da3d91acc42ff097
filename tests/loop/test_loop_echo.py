"""The offline LoopAgent answers with the line under a caption that only repeats the question's
words, quoted from the caption through that line (``corpus.evidence.TermMatcher.echoes``; MMLongBench
dev, mmlongbench:87: "Button functions during a workout" was the whole answer). Real ingest
into an embedded store, the offline policy, no LLM."""

from __future__ import annotations

from conftest import KB, run_agent, text_kb_fixture

MANUAL = (
    "# Watch guide\n\n## Buttons\n\n"
    "The watch has two buttons on its right side.\n\n"
    "Button functions during a workout\n\n"
    "| Button | Operation | Function |\n|---|---|---|\n"
    "| Up | Press | Pause or resume the workout |\n"
    "| Down | Press | Switch screens |\n"
)

kb = text_kb_fixture("watch", {"watch.md": MANUAL})


def test_a_caption_repeating_the_question_is_quoted_with_the_line_under_it(kb: KB) -> None:
    res = run_agent(kb, None, "Which button functions are there during a workout?")
    assert res.found, res.answer
    quote = " ".join(res.citations[0].quote.split())
    assert quote != "Button functions during a workout", quote
    assert "|" in quote and "workout" in quote, quote
