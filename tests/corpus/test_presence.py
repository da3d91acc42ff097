"""corpus.presence: the answer's document must hold the question's specific terms, asked of the
real embedded index (issue 15 item 4); the RAG pipeline answers "not found" when it does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus.ingest import Ingestor
from corpus.presence import (
    DocumentTermProbe,
    absent_terms,
    named_acronyms,
    specific_terms,
    subject_acronyms,
)
from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer
from tests._support.files import write_texts

TOK = Tokenizer()


def test_specific_terms_are_numbers_codes_and_years() -> None:
    terms = ["fy2018", "capit", "3m", "q2", "50-shot", "conll03", "2022", "5", "fy", "365", "3-5"]
    # 3m: one digit; 50-shot, 3-5: digit-first compounds; q2, fy: no year; 365: not a year
    assert specific_terms(terms) == ("2018", "conll03", "2022")
    # periods written as one token give their year; "top-3" is no code (dev loop run)
    assert specific_terms(["fy2023q1", "f2019", "top-3", "covid-19", "gpt-4o"]) == (
        "2023", "2019", "covid-19", "gpt-4o")
    # a term must be written in the question: "31,2003" read as a number 31200 is not
    assert specific_terms(["31200"], "year ended march 31,2003") == ()
    assert specific_terms(["warranti", "period"]) == ()


def test_absent_terms_match_whole_numbers_and_codes() -> None:
    text = "results on conll03 with 5-shot and 10-shot prompts in 2021"
    assert absent_terms(["50-shot", "conll03", "2021"], [text]) == ["50-shot"]
    assert absent_terms(["202"], [text]) == ["202"]  # never inside a longer number
    # a year ends a date written with dots or a comma (dev question mmlongbench:373)
    assert absent_terms(["2001", "2003"], ["as at 31.03.2001 and march 31,2003"]) == []
    assert absent_terms(["2001"], ["revenue 12001 and 20011"]) == ["2001"]


def test_a_numbered_figure_or_table_is_a_specific_term() -> None:
    # "What is the title of the Figure 7?" asked of a paper with six figures (mmlongbench:128)
    q = "what is the title of the of the figure 7?"
    assert specific_terms(TOK.key_terms(q), q) == ("figure 7",)
    q = "in table 2, which model scores best in 2021?"
    assert specific_terms(TOK.key_terms(q), q) == ("2021", "table 2")
    assert specific_terms([], "如图3所示，表1中的电压是多少？") == ("图 3", "表 1")
    # a count after the number, a thousands separator, a 0: no label
    assert specific_terms([], "代表3种类型的表2,000行 figure 0") == ()
    # how documents write them: abbreviated, upper case (normalised), Roman, numbered within
    text = "see fig. 7, table iii and figure 12.2; 如图 3 所示"
    assert absent_terms(["figure 7", "table 3", "figure 12", "图 3"], [text]) == []
    assert absent_terms(["figure 1", "table 33", "图 30"], [text]) == [
        "figure 1", "table 33", "图 30"]


def test_named_acronyms_are_the_capitalised_subjects() -> None:
    # the shapes of MMLongBench-Doc dev questions: acronyms their documents never write
    assert named_acronyms("How many people are there in total in the HAQ Executive "
                          "Leadership?") == ("haq",)
    assert named_acronyms("For the dataset that uses HOVER as the symbolic solver, how many "
                          "examples are used?") == ("hover",)
    # a run of capitals (a name written in capitals, an all-caps question), a currency,
    # an acronym the question defines, a Roman numeral: none
    assert named_acronyms("What is INF SERCRL LLP FAX No on page fourteen?") == ()
    assert named_acronyms("WHAT IS THE LAST YEAR PRESENT IN THE TABULUAR COLUMN?") == ()
    assert named_acronyms("What is the FY2016 COGS for Microsoft? State it in USD millions.") == (
        "cogs",)
    assert named_acronyms("What is Amazon's FY2017 days payable outstanding (DPO)? DPO is "
                          "defined as: 365 * payables / COGS") == ("cogs",)
    assert named_acronyms("What does Chapter III say?") == ()


def test_subject_acronyms_drop_stopwords_and_known_expansions() -> None:
    def phrases(text: str) -> list[str]:
        return ["property, plant and equipment"] if text == "ppne" else []

    q = "What is NOT in the FY2018 net PPNE of the HAQ?"
    assert subject_acronyms(q, TOK.key_terms, phrases) == ["haq"]
    assert subject_acronyms(q, TOK.key_terms) == ["ppne", "haq"]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> QdrantChunkStore:
    docs = write_texts(tmp_path_factory.mktemp("docs"), {
        "report.md": "# Annual report 2019\n\n## Results\n\n"
                     # no year in the sentence itself: a sentence stating another year than
                     # the one asked is refused before the document is probed
                     # (corpus.period_scope, other_period)
                     "Revenue grew 12% to 4,120 million in the fiscal year.\n\n"
                     "## Products\n\nThe FW-301 controller ships with a 3 year warranty.\n",
        "other.md": "# Other report\n\n## Outlook\n\n"
                    "In 2022 the FW-3010 replaced the older model.\n",
    })
    st = QdrantChunkStore.embedded(tmp_path_factory.mktemp("presence") / "qdrant")
    Ingestor(st, TOK, None, workers=1).ingest_paths([docs], "c", root=docs)
    return st


def _doc_id(store: QdrantChunkStore, name: str) -> str:
    from corpus.catalogue import Catalogue

    entry = Catalogue(store).find("c", name)
    assert entry is not None
    return entry.info.doc_id


def test_probe_asks_the_document_not_the_collection(store: QdrantChunkStore) -> None:
    probe = DocumentTermProbe(store, TOK.sparse_query, TOK.normalize)
    report = _doc_id(store, "report.md")
    # 2022 occurs in the collection, but not in this document; FW-3010 is not FW-301
    assert probe.absent("c", report, ["2019", "fw-301", "2022"]) == ["2022"]
    assert probe.absent("c", _doc_id(store, "other.md"), ["fw-301", "2022"]) == ["fw-301"]
    assert probe.holds("c", report, "2019")  # remembered per (doc_id, term)
    assert ("" + report, "2019") in probe._known


def test_rag_answers_not_found_when_the_document_lacks_the_year(store: QdrantChunkStore) -> None:
    from rag.pipeline import RagPipeline
    from rag.retriever import HybridRetriever

    rag = RagPipeline(HybridRetriever(store, TOK, None), answer_floor=0.0)
    ok = rag.run("How much did revenue grow in fiscal 2019?", "c")
    assert ok.found and "12%" in ok.answer
    asked = rag.run("How much did revenue grow in fiscal 2023?", "c")
    assert not asked.found
    assert "2023" in asked.missing
    assert any(f.startswith("absent_in_document:2023") for f in asked.flags)
    off = RagPipeline(HybridRetriever(store, TOK, None), answer_floor=0.0, presence_check=False)
    assert off.run("How much did revenue grow in fiscal 2023?", "c").found


def test_store_failure_keeps_the_answer_flagged(store: QdrantChunkStore, tmp_path: Path) -> None:
    from rag.pipeline import RagPipeline
    from rag.retriever import HybridRetriever

    rag = RagPipeline(HybridRetriever(store, TOK, None), answer_floor=0.0)
    assert rag.presence is not None

    def broken(*_a: object, **_k: object) -> list[str]:
        raise RuntimeError("index down")

    rag.presence.absent = broken  # type: ignore[method-assign]
    ans = rag.run("How much did revenue grow in fiscal 2023?", "c")
    assert ans.found and "presence_error" in ans.flags


def test_loop_answers_not_found_when_the_document_lacks_the_year(store: QdrantChunkStore) -> None:
    from loop.agent import LoopAgent
    from loop.tools import StoreKeywordSearch

    agent = LoopAgent(store, StoreKeywordSearch(store, TOK.sparse_query), key_terms=TOK)
    ok = agent.run("How much did revenue grow in fiscal 2019?", "c")
    assert ok.found and "12%" in ok.answer and not ok.absent_terms
    asked = agent.run("How much did revenue grow in fiscal 2023?", "c")
    assert not asked.found and not asked.citations
    assert asked.absent_terms == ["2023"]


def test_not_found_shows_the_closest_passages_apart(store: QdrantChunkStore) -> None:
    from rag.pipeline import RagPipeline
    from rag.retriever import HybridRetriever

    rag = RagPipeline(HybridRetriever(store, TOK, None), answer_floor=0.0)
    ans = rag.run("How much did revenue grow in fiscal 2023?", "c")
    assert not ans.found and not ans.citations
    assert ans.related and "12%" in ans.related[0].quote  # what was closest, not the answer


def test_real_report_asked_about_a_year_it_never_writes(
    eval_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Pew's 2014 'Older Adults and Technology Use' report (MMLongBench-Doc): asked about 2013
    (its survey year) RAG answers; asked about 2022 (dev question mmlongbench:224's trap) the
    report holds no '2022' anywhere and the answer is "not found" (measured on the dev run)."""
    import shutil

    from rag.pipeline import RagPipeline
    from rag.retriever import HybridRetriever

    pdf = eval_dir / "en/docs/mmlongbench/PIP_Seniors-and-Tech-Use_040314.pdf"
    docs = tmp_path_factory.mktemp("pew")
    shutil.copy(pdf, docs / pdf.name)
    st = QdrantChunkStore.embedded(tmp_path_factory.mktemp("pew-store") / "qdrant")
    Ingestor(st, TOK, None, workers=1).ingest_paths([docs], "p", root=docs)
    rag = RagPipeline(HybridRetriever(st, TOK, None))
    q = "Among higher-income seniors, what percentage go online, as of {}?"
    assert rag.run(q.format(2013), "p").found
    ans = rag.run(q.format(2022), "p")
    assert not ans.found and "2022" in ans.missing


def test_a_year_inside_a_date_token_is_found(tmp_path: Path) -> None:
    docs = write_texts(tmp_path / "docs", {
        "dividends.md": "# Directors' report\n\nProposed dividend as at 31.03.2001: Rs 1,200 "
                        "lacs; as at 31.03.2002: Rs 1,450 lacs.\n"})
    st = QdrantChunkStore.embedded(tmp_path / "qdrant")
    Ingestor(st, TOK, None, workers=1).ingest_paths([docs], "d", root=docs)
    assert TOK.terms("31.03.2001") == ["31.03.2001"]  # no index term "2001" of its own
    probe = DocumentTermProbe(st, TOK.sparse_query, TOK.normalize)
    doc = _doc_id_in(st, "d", "dividends.md")
    assert probe.absent("d", doc, ["2001", "2002", "2003"]) == ["2003"]


def _doc_id_in(store: QdrantChunkStore, collection: str, name: str) -> str:
    from corpus.catalogue import Catalogue

    entry = Catalogue(store).find(collection, name)
    assert entry is not None
    return entry.info.doc_id


def test_a_month_and_year_the_question_dates_by_is_a_specific_term() -> None:
    # a fact dated by month and year: the year alone is in the document, the date is not
    # (mmlongbench:384 'revised on May 2018' of a plan 'Revised May 2016' with 2018 targets)
    def terms(q: str) -> tuple[str, ...]:
        n = TOK.normalize(q)
        return specific_terms(TOK.key_terms(q), n)

    assert terms("Who produced the document that was revised on May 2018?") == (
        "2018", "may 2018")
    # with its day when the question gives one (mmlongbench:596 asks Oct. 24, 2016 of a
    # complaint dated October 21, 2016)
    assert terms("Who was interviewed by the agents on Oct. 24, 2016?") == (
        "2016", "october 24, 2016")
    assert terms("What share was held as of March 31, 2017?") == ("2017", "march 31, 2017")
    assert terms("the Internet Project July 18-September 30, 2013 tracking survey") == (
        "2013", "september 30, 2013")
    assert terms("What was proposed as at 31st March, 2007?") == ("2007", "march 31, 2007")
    # "may" the verb is no month
    assert terms("Which companies may 2019 rules affect?") == ("2019",)
    assert terms("What changed in May 2020?") == ("2020", "may 2020")


def test_a_document_writes_a_month_and_year_in_many_ways() -> None:
    text = TOK.normalize(
        "Three months ended March 31,\n \n2017 | December 31, | 2018 | as at 31st March, 2007 "
        "dated 08/30/2023, 31.01.2001 and 2019-06-30; Sept. 2015; for the years ended May 31, "
        "2019, 2018 and 2017; held October 24-26, 2016; 31-Dec-2020")
    asked = ["march 2017", "march 31, 2017", "december 31, 2018", "march 31, 2007",
             "august 30, 2023", "january 31, 2001", "june 30, 2019", "september 2015",
             "may 31, 2017", "october 25, 2016", "december 31, 2020"]
    assert absent_terms(asked, [text]) == []
    # a day of another month, another day, a month with no day beside another year: absent
    text = TOK.normalize("Revised May 2016. By December 31, 2018, reduce the time. On October "
                         "24, 2016, he was interviewed.")
    assert absent_terms(["may 2016", "december 31, 2018", "october 24, 2016"], [text]) == []
    assert absent_terms(["may 2018", "december 30, 2018", "october 21, 2016"], [text]) == [
        "may 2018", "december 30, 2018", "october 21, 2016"]


def test_a_dotted_identifier_is_a_specific_term() -> None:
    # a label or an API path (mmlongbench:191 'Contact.Meet', answered from another paper)
    q = TOK.normalize("Tell me the prompt template used for label 'Contact.Meet' in this work.")
    assert specific_terms(TOK.key_terms(q), q) == ("contact.meet",)
    q = TOK.normalize("Which class is in mmdet.models.dense_heads?")
    assert specific_terms(TOK.key_terms(q), q) == ("mmdet.models.dense_heads",)
    # initials, abbreviations, web domains and file names are none
    q = TOK.normalize("Did G.W.Bush, e.g. on GitLab.com, cite report.pdf or Amazon.com, Inc.?")
    assert specific_terms(TOK.key_terms(q), q) == ()
    assert absent_terms(["contact.meet"], ["labels: contact.meet, movement.transport"]) == []


def test_probe_finds_a_date_the_document_lacks(tmp_path: Path) -> None:
    docs = write_texts(tmp_path / "docs", {
        "plan.md": "# Agency Strategic Plan 2016-2018\n\nRevised May 2016\n\n"
                   "## Goals\n\nBy December 31, 2018, increase the number of licensed "
                   "facilities inspected each year.\n\nProduced by the Division of Planning.\n"})
    st = QdrantChunkStore.embedded(tmp_path / "qdrant")
    Ingestor(st, TOK, None, workers=1).ingest_paths([docs], "d", root=docs)
    probe = DocumentTermProbe(st, TOK.sparse_query, TOK.normalize)
    doc = _doc_id_in(st, "d", "plan.md")
    assert probe.absent("d", doc, ["may 2016", "december 2018", "may 2018"]) == ["may 2018"]

    from rag.pipeline import RagPipeline
    from rag.retriever import HybridRetriever

    rag = RagPipeline(HybridRetriever(st, TOK, None), answer_floor=0.0)
    ok = rag.run("Which goal was set in the plan revised in May 2016?", "d")
    assert ok.found
    ans = rag.run("Which goal was set in the plan revised in May 2018?", "d")
    assert not ans.found and "may 2018" in ans.missing
    assert ans.related  # the closest passages are still shown

    from loop.agent import LoopAgent
    from loop.tools import StoreKeywordSearch

    agent = LoopAgent(st, StoreKeywordSearch(st, TOK.sparse_query), key_terms=TOK)
    looped = agent.run("Which goal was set in the plan revised in May 2018?", "d")
    assert not looped.found and looped.absent_terms == ["may 2018"]
    assert looped.related and not looped.citations  # the closest passages, shown apart


def test_typical_dated_questions_are_answered(tmp_path: Path) -> None:
    """Guard: answerable questions dated the ways filings and reports write dates (a year list
    after the date, a table header split over lines, the day first, an abbreviated month) are
    not refused by the date check, on either path."""
    docs = write_texts(tmp_path / "docs", {
        "filing.md": "# Annual report\n\n## Results\n\n"
                     "Revenues for the fiscal years ended May 31, 2019, 2018 and 2017 were "
                     "$39.1 billion, $36.4 billion and $34.4 billion.\n\n"
                     "## Balance sheet\n\n| | December 31, | December 31, |\n|---|---|---|\n"
                     "| | 2018 | 2017 |\n| Total assets | 36,500 | 37,987 |\n\n"
                     "## Board\n\nAs at 31st March, 2007 the Board approved a dividend of 40%.\n"})
    st = QdrantChunkStore.embedded(tmp_path / "qdrant")
    Ingestor(st, TOK, None, workers=1).ingest_paths([docs], "g", root=docs)
    from loop.agent import LoopAgent
    from loop.tools import StoreKeywordSearch
    from rag.pipeline import RagPipeline
    from rag.retriever import HybridRetriever

    rag = RagPipeline(HybridRetriever(st, TOK, None), answer_floor=0.0)
    agent = LoopAgent(st, StoreKeywordSearch(st, TOK.sparse_query), key_terms=TOK)
    for q in ("What were revenues for the fiscal year ended May 31, 2018?",
              "What were total assets as of Dec. 31, 2017?",
              "What dividend did the Board approve as at March 31, 2007?"):
        ans = rag.run(q, "g")
        assert ans.found and not ans.missing, (q, ans.flags)
        looped = agent.run(q, "g")
        assert not looped.absent_terms, (q, looped.absent_terms)


def test_a_drawing_the_text_never_names_is_not_found_with_the_closest_passages(
    tmp_path: Path,
) -> None:
    """'What is the title of the diagram …' asked of a text that names no figure, chart or
    diagram (dev mmlongbench:392, 698): both paths say "not found" (RAG: asks_visual:figure) and
    still show the passages they found closest; a text with a captioned figure is answered."""
    docs = write_texts(tmp_path / "docs", {
        "board.md": "# Advisory board\n\n## Members\n\nKay Fergason, American Medical "
                    "Technologists, Florida Chapter. Leslie Dughi, Director of Government Law "
                    "and Policy. The board reviews the licensing process every year.\n",
        "flow.md": "# Licensing process\n\n## Overview\n\nFigure 3: Licensing process diagram. "
                   "An application is screened, reviewed and approved by the division.\n"})
    st = QdrantChunkStore.embedded(tmp_path / "qdrant")
    Ingestor(st, TOK, None, workers=1).ingest_paths([docs], "v", root=docs)
    from loop.agent import LoopAgent
    from loop.tools import StoreKeywordSearch
    from rag.pipeline import RagPipeline
    from rag.retriever import HybridRetriever

    rag = RagPipeline(HybridRetriever(st, TOK, None), answer_floor=0.0)
    agent = LoopAgent(st, StoreKeywordSearch(st, TOK.sparse_query), key_terms=TOK)
    q = "What does the diagram of the advisory board members show?"
    ans = rag.run(q, "v")
    assert not ans.found and "asks_visual:figure" in ans.answer_flags
    assert ans.related  # what was closest, shown apart
    looped = agent.run(q, "v")
    # the LoopAgent's best unit is the board page's heading run "Advisory board / Members",
    # which only repeats the question's words: not found before the scope check names the
    # drawing (loop.policies.offline_rank.answer_call), the heading shown as the closest
    assert not looped.found and looped.out_of_scope in ([], ["asks_visual:figure"])
    assert looped.related and not looped.citations
    ok = rag.run("What does the diagram of the licensing process show?", "v")
    assert ok.found and "Figure 3" in ok.answer
