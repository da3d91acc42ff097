"""corpus.question_scope: the page a question names and the visual attribute it asks.

The questions are the shapes of MMLongBench-Doc dev questions whose right output is "not
found" (a FAX number asked on page thirteen when it is on page fourteen; the colour of icons;
the italic text of a page) and of answerable ones that must stay answerable.
"""

from __future__ import annotations

import pytest

from corpus.question_scope import (
    VisualAsk,
    asked_dimension,
    asked_pages,
    asks_content,
    content_misses,
    on_asked_page,
    page_misses,
    states_dimension,
    visual_ask,
    visual_supported,
)
from corpus.types import Citation


@pytest.mark.parametrize(("question", "pages"), [
    ("What is INF SERCRL LLP FAX No on page thirteen?", (13,)),
    ("What is INF SERCRL LLP FAX No on page fourteen?", (14,)),
    ("How many people with sun glassess are there in  Page 5?", (5,)),
    ("How many lines are highlighted in yellow on the first page?", (1,)),
    ("What are the topics covered on pages 26 and 27?", (26, 27)),
    ("See pp. 3-5 for the table", (3, 4, 5)),
    ("第14页的表格标题是什么？", (14,)),
    ("What does the page layout look like?", ()),
    ("How are page numbers written?", ()),
    ("What is the title of the paper?", ()),
])
def test_asked_pages(question: str, pages: tuple[int, ...]) -> None:
    assert asked_pages(question) == pages


def test_a_quote_is_on_the_asked_page_by_physical_page_or_label() -> None:
    assert on_asked_page((14,), 14)
    assert on_asked_page((14,), 13, 14)  # a quote running onto the asked page
    assert on_asked_page((77,), 91, 91, "77")  # printed label 77 on physical page 91
    assert not on_asked_page((13,), 14, 14, "14")
    assert on_asked_page((), 3)


@pytest.mark.parametrize(("question", "kind"), [
    ("What is the color of the icons that the users touch to move the app down?", "colour"),
    ("What color indicates the temperature of very cold milk?", "colour"),
    ("指示灯是什么颜色？", "colour"),
    ("What temperature does the yellow color of the coffee machine represent?", "colour"),
    ("What is the yellow color italic texts in page 9?", "typography"),
    ("what is the texts of the underlined italic words in page 2?", "typography"),
    ("How many lines are highlighted in yellow on the first page?", "typography"),
    ("How many people with sun glassess are there in  Page 5?", "picture"),
    ("How can you customize the font and color of the displayed time?", None),
    ("What is the operating voltage of the ESP32?", None),
    # a drawn object asked about (dev: mmlongbench:392, 645, 698, all unanswerable)
    ("What is the title of the diagram on page 10?", "figure"),
    ("What types of charts are in the document?", "figure"),
    ("How many strategies are plotted for training-time generation?", "figure"),
    ("In the bar graph of sales, which year is highest?", "figure"),
    ("示意图中第三个模块是什么？", "figure"),
    # typical answerable phrasings that name no drawing: not asked
    ("What is the figure for total revenue in FY2019?", None),
    ("What is the title of Figure 7?", None),
    ("Which accounts are in the chart of accounts?", None),
    ("When can a sentence map to a list of sub-graph knowledge?", None),
    ("What command-line tool from ImageMagick is used to resize images?", None),
    ("What is the plot size limit in the zoning code?", None),
    ("What is the company's brand image strategy?", None),
])
def test_visual_ask(question: str, kind: str | None) -> None:
    ask = visual_ask(question)
    assert (ask.kind if ask else None) == kind


def test_a_colour_is_answerable_only_when_the_text_states_it() -> None:
    named = VisualAsk("colour", ("yellow",))
    assert visual_supported(named, "The yellow light means the milk is warm.")
    assert not visual_supported(named, "Color Milk temperature")
    any_colour = VisualAsk("colour")
    assert visual_supported(any_colour, "The indicator turns red while charging.")
    assert visual_supported(any_colour, "指示灯为红色。")
    assert not visual_supported(any_colour, "Touch and hold the icon to move the app down.")
    assert not visual_supported(VisualAsk("typography"), "Text in italics: explanations")
    assert not visual_supported(VisualAsk("picture"), "Five people stand in the photo.")


def _cited(page: int) -> Citation:
    return Citation(chunk_id=f"c-{page}", path="a.pdf", section_path=(), page=page,
                    lines=(1, 1), quote="FAX 514-555-0100")


def test_page_and_content_misses_name_each_reason() -> None:
    q = "What is the FAX No on page thirteen?"
    assert page_misses(q, [_cited(14)], lambda c: c) == ([], ["not_on_asked_page:13"])
    assert page_misses(q, [_cited(14), _cited(13)], lambda c: c) == ([_cited(13)], [])
    assert not asks_content(q) and content_misses(q, "FAX 514-555-0100") == []
    typo = "What is the yellow color italic texts in page 9?"
    assert page_misses(typo, [_cited(9)], lambda c: c) == ([_cited(9)], [])
    assert asks_content(typo) and content_misses(typo, "x") == ["asks_visual:typography"]


@pytest.mark.parametrize(("question", "dimension"), [
    ("ESP32-PICO-D4在Deep-sleep模式下的典型电流是多少微安？", "current"),
    ("What is the supply voltage in V?", "voltage"),
    ("How many milliamps does it draw?", "current"),
    ("工作频率是多少MHz？", "frequency"),
    ("How many days of annual leave?", None),
    ("TH2817B的RS232C串行接口最大传输距离是多少米？", None),
    ("What is 3M's FY2018 capital expenditure in USD millions?", None),
])
def test_asked_dimension(question: str, dimension: str | None) -> None:
    assert asked_dimension(question) == dimension


def test_a_value_is_stated_in_any_unit_of_the_dimension() -> None:
    assert states_dimension("current", "Deep-sleep 典型值 10 µA")
    assert states_dimension("current", "0.15 mA")
    assert states_dimension("current", "工作电流 80 毫安")
    assert not states_dimension("current", "RTC 慢速存储器，为 8 KB 的 SRAM")
    assert states_dimension("voltage", "3.0 V ~ 3.6 V")
    assert not states_dimension("voltage", "Version 2 of the datasheet")


@pytest.mark.parametrize(("question", "pages"), [
    # no page is numbered 0 or past MAX_PAGE: such a question names none and is answered
    # (before: "page 0" refused every question, "page one hundred billion" was read as page 100)
    ("网络运营者应当留存相关的网络日志不少于多久？ page 0", ()),
    ("网络运营者应当留存相关的网络日志不少于多久？第0页", ()),
    ("What is on p. 0?", ()),
    ("What is on the 0th page?", ()),
    ("What is on page one hundred billion?", ()),
    ("What is on page 99999?", ()),
    ("What is on page minus one?", ()),
    ("page nine thousand nine hundred ninety nine", (9999,)),
    ("What is on page one hundred and five?", (105,)),
    ("What is on the twenty-first page?", (21,)),
    ("What is on the last page?", ()),
    # a reversed range is the same pages; "and" names two pages, not the range between them;
    # a range too wide to restrict an answer names none (before: its first page alone)
    ("What do pages 5-2 say?", (2, 3, 4, 5)),
    ("What do pages 3 and 7 say?", (3, 7)),
    ("What do pages three and four say?", (3, 4)),
    ("What do pages 1-9999 say?", ()),
    ("What is on page fourteen and the table?", (14,)),
])
def test_asked_pages_hostile(question: str, pages: tuple[int, ...]) -> None:
    assert asked_pages(question) == pages


def test_page_zero_restricts_nothing() -> None:
    q = "How long are logs kept? page 0"
    assert page_misses(q, [_cited(4)], lambda c: c) == ([_cited(4)], [])
    assert content_misses(q, "不少于六个月") == []


def test_a_long_question_of_page_words_reads_few_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 4,000-character question of page mentions asked number-parser of every word after
    "page" (1.0 s of CPU per request); only number words, at most 16 mentions per form, are."""
    import random

    import corpus.page_scope as qs

    calls = []

    def counting(word: str) -> int | None:
        calls.append(word)
        return None

    monkeypatch.setattr(qs, "parse_number", counting)
    monkeypatch.setattr(qs, "parse_ordinal", counting)
    rng = random.Random(1)
    words = ["one", "two", "nine", "twenty", "hundred", "first", "third", "abc", "layout"]
    question = " ".join(f"page {rng.choice(words)} {rng.choice(words)} the "
                        f"{rng.choice(words)} page" for _ in range(200))[:4000]
    qs.asked_pages(question)
    assert len(calls) <= 2 * 2 * 16


@pytest.mark.parametrize(("question", "kind"), [
    # a capitalised colour word before a capitalised word is a name, not a colour asked
    ("What does Red Hat say about support?", None),
    ("What is the Blue Cross deductible in 2019?", None),
    ("Who lives in the White House?", None),
    ("Is the Red Hat logo red?", "colour"),
    ("What colour is the Red Hat logo?", "colour"),
    ("Red and green lights: what do they mean?", "colour"),
])
def test_colour_words_in_names(question: str, kind: str | None) -> None:
    ask = visual_ask(question)
    assert (ask.kind if ask else None) == kind
    if kind is None:
        assert content_misses(question, "The deductible is $500.") == []
        assert page_misses(question, [_cited(3)], lambda c: c) == ([_cited(3)], [])


@pytest.mark.parametrize(("question", "dimension"), [
    # a unit symbol after "in" asks a unit only where the clause ends; mid-clause it is a name
    # or a letter (before: voltage, data, power — and the answer refused as no_value_in:…)
    ("Explain the phases in V-Model.", None),
    ("How many stores does Tesco have in GB and Ireland?", None),
    ("What happened in W. Virginia?", None),
    ("What does the letter in V stand for?", None),
    ("What is the supply voltage in V?", "voltage"),
    ("What is the frequency in MHz, typically?", "frequency"),
    ("What is the offset in millivolts for the ADC?", "voltage"),
])
def test_a_unit_symbol_mid_clause_asks_no_dimension(question: str,
                                                    dimension: str | None) -> None:
    assert asked_dimension(question) == dimension


def test_a_colour_is_stated_by_the_word_not_by_a_word_it_begins() -> None:
    """'red' was found in 'Reduce the power draw.' and 'green' in 'greenhouse', so a colour
    question was answered from a quote that names no colour."""
    red = VisualAsk("colour", ("red",))
    assert not visual_supported(red, "Reduce the power draw. Redeem points.")
    assert not visual_supported(VisualAsk("colour", ("green",)), "greenhouse gas emissions")
    assert visual_supported(red, "The indicator turns red.")
    assert visual_supported(red, "a reddish glow")


def test_a_drawn_object_is_answerable_only_from_text_naming_one() -> None:
    # the text layer keeps a drawing's caption, nothing else of it: evidence that names no
    # figure, chart or diagram is not about the drawing asked
    q = "What is the title of the diagram on page 10?"
    names = "Kay Fergason, American Medical Technologists, Florida Chapter. Leslie Dughi"
    assert content_misses(q, names) == ["asks_visual:figure"]
    assert content_misses(q, "Figure 3: Organisational structure of the division") == []
    assert content_misses("What types of charts are in the document?",
                          "The chart below shows revenue by segment.") == []
    assert content_misses("示意图中第三个模块是什么？", "图 3 系统框图：电源、主控、射频") == []


@pytest.mark.parametrize(("question", "unit", "flag"), [
    # MMLongBench-Doc dev mmlongbench:596 (unanswerable): the complaint's Oct. 21 proof of loss
    # quoted for an interview "on Oct. 24, 2016"
    ("According to the complaint, who was interviewed by Traveler's Insurance Companay agents "
     "on Oct. 24, 2016?",
     "| NTC submitted a proof of loss to Traveler’s Insurance Company dated a October 21, 2016.",
     "other_date:october 24, 2016"),
    ("What happened on 24 October 2016?", "The claim was filed on 10/21/2016.",
     "other_date:october 24, 2016"),
    # the asked day written (any spelling), no day of that month, or another month: no flag
    ("Who was interviewed on Oct. 24, 2016?", "On October 24, 2016, agents interviewed the "
     "owner (the loss was reported on October 21, 2016).", None),
    ("Who was interviewed on Oct. 24, 2016?", "Agents interviewed the owner in 2016.", None),
    ("Who was interviewed on Oct. 24, 2016?", "The policy ran to November 30, 2016.", None),
    # a month without a day pins no day
    ("Who produced the document revised in May 2018?", "Balance sheets at May 31, 2018.", None),
])
def test_a_unit_of_another_day_does_not_answer_a_dated_question(
        question: str, unit: str, flag: str | None) -> None:
    if flag is not None:
        assert asks_content(question)
    misses = content_misses(question, unit, unit)
    assert [m for m in misses if m.startswith("other_date:")] == ([flag] if flag else [])
