"""Answerability (rag.answerability): a code the question names must be in the evidence."""

from __future__ import annotations

from rag.answerability import codes_of, missing_codes


def test_codes_are_names_not_periods_quantities_or_versions() -> None:
    terms = ["esp32-pico-d4", "oper", "fy2018", "8kw", "q2", "2023", "fw-301", "v1.2", "2022-05"]
    assert codes_of(terms) == ["esp32-pico-d4", "fw-301"]


def test_compound_periods_and_ranked_counts_are_no_codes() -> None:
    """The question's "FY2023Q1" (financebench_id_01476), "F2019" (a typo of FY2019,
    mmlongbench:1002) and "top-3" (mmlongbench:943) were required word for word in the answer
    unit, so three answers the LoopAgent found were "not found" on the RAG path; these are the
    terms corpus.presence already reads as periods and words."""
    terms = ["fy2023q1", "q1fy2023", "f2019", "2023h1", "top-3", "5-hop", "prover9", "50-shot",
             "covid-19", "gpt-4o", "3m-8000"]
    assert codes_of(terms) == ["prover9", "50-shot", "covid-19", "gpt-4o", "3m-8000"]
    assert missing_codes(terms, ["9 percent core constant currency EPS growth"]) == [
        "prover9", "50-shot", "covid-19", "gpt-4o", "3m-8000"]


def test_one_letter_joined_to_a_number_is_a_code() -> None:
    """A break-it trial asked "What is the capacity of the Thingamajig T-2?" of a collection
    holding only the T-1 and T-3 manuals: "t-2" was read as a word like "top-3", so the answer
    was T-1's capacity at confidence 0.97. A letter joined to a number names a model or a form
    (T-2, W-2, S-1); a word joined to a number still does not."""
    terms = ["t-2", "w-2", "capac", "top-3", "5-hop", "x"]
    assert codes_of(terms) == ["t-2", "w-2"]
    assert missing_codes(["t-2", "capac"], ["The Thingamajig T-1 has a capacity of 100 liters."]
                         ) == ["t-2"]
    assert missing_codes(["t-2"], ["The Thingamajig T-2 has a capacity of 200 liters."]) == []
    assert missing_codes(["t-2"], ["The Thingamajig T-20 holds 2,000 liters."]) == ["t-2"]


def test_a_code_matches_whole_across_separators_never_inside_a_longer_code() -> None:
    assert missing_codes(["fw-301"], ["FW-3010 保修 3 年"]) == ["fw-301"]
    assert missing_codes(["fw-301"], ["型号 FW-301。"]) == []
    assert missing_codes(["fw-301"], ["FW_301 warranty"]) == []
    # the ESP32 datasheet's title writes the name with soft hyphens (U+00AD)
    title = "ESP32\u00adPICO\u00adD4 技术规格书"
    assert missing_codes(["esp32-pico-d4"], ["工作电压 3.0 V", title]) == []
    assert missing_codes(["oper", "voltag"], ["anything"]) == []  # no code, nothing to check
    # a file name holds the code before a word (the table row itself names no product)
    row, path = "| 存储温度 | –40 | 150 |", "esp32_pico_d4_datasheet.pdf"
    assert missing_codes(["esp32-pico-d4"], [row, path]) == []


def test_the_first_unit_whose_document_holds_the_year_answers() -> None:
    from corpus.types import Citation
    from rag.answerability import present_evidence
    from rag.types import Evidence

    def ev(doc: str, text: str) -> Evidence:
        cit = Citation(chunk_id=f"{doc}-00001", path=f"{doc}.pdf", section_path=(), page=1,
                       lines=(1, 1), quote=text, doc_id=doc)
        return Evidence(text, 1.0, cit)

    units = [ev("bestbuy", "Dividends rose in fiscal 2016."), ev("godfrey", "Dividend: 1,450")]
    years = {"bestbuy": {"2016"}, "godfrey": {"2001", "2002"}}

    def absent(doc: str, terms: list[str]) -> list[str]:
        return [t for t in terms if t not in years[doc]]

    got, missing = present_evidence(units, [], ["dividend", "2002", "2001"], None, absent)
    assert not missing and [e.citation.doc_id for e in got] == ["godfrey", "bestbuy"]
    got, missing = present_evidence(units[:1], [], ["dividend", "2001"], None, absent)
    assert missing == ["2001"] and got == units[:1]  # not found; the units stay as related


def test_scoped_evidence_keeps_units_of_the_asked_page_and_stated_values() -> None:
    """rag.answerability.scoped_evidence (corpus.question_scope): MMLongBench-Doc dev shapes
    whose right output is "not found" (FAX asked on page thirteen, quoted from fourteen; a
    colour asked, a table header quoted) and zhpdf:62 (a current asked, "8 KB" quoted)."""
    from corpus.types import Citation
    from rag.answerability import scoped_evidence
    from rag.types import Evidence

    def ev(page: int, text: str, label: str = "") -> Evidence:
        cit = Citation(chunk_id=f"c-{page}", path="a.pdf", section_path=(), page=page,
                       lines=(1, 1), quote=text, doc_id="a", page_label=label)
        return Evidence(text, 1.0, cit)

    fax14, fax13 = ev(14, "FAX 514-555-0100"), ev(13, "Montreal office FAX 514-555-0199")
    got, flags = scoped_evidence([fax14], [], "What is the FAX No on page thirteen?")
    assert got == [] and flags == ["not_on_asked_page:13"]
    got, flags = scoped_evidence([fax14, fax13], [], "What is the FAX No on page thirteen?")
    assert got == [fax13] and flags == []  # the unit on the asked page answers
    got, _ = scoped_evidence([ev(91, "Descale", "77")], [], "What is done on page 77?")
    assert len(got) == 1  # the printed label counts
    got, flags = scoped_evidence([ev(3, "Color Milk temperature")], [],
                                 "What temperature does the yellow color represent?")
    assert got == [] and flags == ["asks_visual:colour"]
    got, flags = scoped_evidence([ev(3, "RTC 慢速存储器，为 8 KB 的 SRAM")], [],
                                 "ESP32-PICO-D4在Deep-sleep模式下的典型电流是多少微安？")
    assert got == [] and flags == ["no_value_in:current"]
    got, flags = scoped_evidence([ev(3, "Deep-sleep | 典型值 | 10 | µA")], [],
                                 "ESP32-PICO-D4在Deep-sleep模式下的典型电流是多少微安？")
    assert len(got) == 1 and flags == []
    units = [fax14]
    assert scoped_evidence(units, [], "What is the FAX number?") == (units, [])
