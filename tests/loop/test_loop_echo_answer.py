"""A LoopAgent answer whose cited units all only repeat the question's words is "not found"
(issue 15 item 4). MMLongBench-Doc dev: a survey report's page footer ("Pew Research Center's
Internet Project July 18-September 30, 2013 tracking survey.", on every page) was the whole
answer to questions that quote the survey by name, and a city map's street label ("Taylor St",
on three map pages) the answer to "What is the sight on Taylor St?": each unit covers the
question's key terms and says nothing else (``corpus.evidence.TermMatcher.echoes``)."""

from __future__ import annotations

from conftest import KB, run_agent, text_kb_fixture

_FOOTER = "Pew Research Center's Internet Project July 18-September 30, 2013 tracking survey."


def _page(title: str, body: str) -> str:
    return f"## {title}\n\n{body}\n\n{_FOOTER}\n"


_REPORT = "# Older adults and technology use\n\n" + "\n".join([
    _page("Internet adoption", "Six in ten seniors now go online, a rise of six points."),
    _page("Devices", "Seniors with more education adopt new devices at higher rates."),
    _page("Attitudes", "Many seniors say that they need help to learn a new device."),
])
_MAP = """# Downtown map

## Map page 12

Taylor St

## Map page 14

Taylor St

## Map page 16

Taylor St
"""

report = text_kb_fixture("survey", {"report.md": _REPORT, "map.md": _MAP})


def test_an_answer_that_only_quotes_the_question_is_not_found(report: KB) -> None:
    res = run_agent(report, None, "What is the gap of infants with a tablet computer in the "
                    f"{_FOOTER[:-1]}?")
    assert not res.found, res.answer
    assert res.related and _FOOTER in res.related[0].quote  # shown apart as the closest
    res = run_agent(report, None, "What is the sight on Taylor St?")
    assert not res.found, res.answer


def test_the_same_line_answers_a_question_it_adds_to(report: KB) -> None:
    res = run_agent(report, None, "When was the Pew Research Center's Internet Project "
                    "tracking survey conducted?")
    assert res.found, res.answer
    assert "July 18-September 30, 2013" in res.answer
