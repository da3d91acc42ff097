"""The offline LoopAgent answers with what follows a line that only repeats the question's
words, quoted from that line on (``corpus.evidence.TermMatcher.echoes``; zh-PDF dev, zhpdf:31:
"DB32/T 1580—2019" was the whole answer to "DB32/T 1580—2019是哪天发布、哪天实施的？"). Real
ingest into an embedded store, the offline policy, no LLM."""

from __future__ import annotations

from conftest import KB, run_agent, text_kb_fixture

standard_kb = text_kb_fixture("standard", {"standard.txt": (
    "江苏省地方标准\n\nDB32/T 1580—2019\n代替 DB32/T 1580—2010，2019年6月20日发布，"
    "2019年7月20日实施。\n\n本标准规定了地理标志产品的术语和定义、技术要求与检验方法。\n")})


def test_what_follows_a_code_repeating_the_question_is_quoted_with_it(standard_kb: KB) -> None:
    got = run_agent(standard_kb, None, "DB32/T 1580—2019是哪天发布的？")
    assert got.found, got.answer
    flat = "".join(got.citations[0].quote.split())
    assert flat.startswith("DB32/T1580—2019") and "2019年6月20日发布" in flat, flat
