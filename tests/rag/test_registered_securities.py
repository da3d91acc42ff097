"""Which debt securities a filer has registered on an exchange, read off the Section 12(b) table
of its cover page (``corpus.registered_securities``; the RAG decision's step 0, ``rag.dated``,
flag ``registered_securities``). FinanceBench dev: "Which debt securities are registered to
trade on a national securities exchange under American Express' name as of 2022?" (gold "There
are none") was answered with the cover-page line of its common shares. The right values below
are read off the eval filings' cover pages; the decision runs over a real embedded store and
keyword index, the real tokenizer, no embedding model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from corpus.chunker import chunk_document
from corpus.citations import make_citation
from corpus.parsers import parse_file
from corpus.qdrant_store import QdrantChunkStore
from corpus.registered_securities import asks_registered_debt, registered_debt_answer
from gateway.wiring import get_tokenizer
from rag.decision import AnswerDecider
from rag.steps import drive_inline
from rag.types import Confidence, ConfidenceFeatures, Retrieval, RetrievedChunk
from tests._support.files import write_texts
from tests._support.ingest import ingest_keyword_only

ASK = ("Which debt securities are registered to trade on a national securities exchange under "
       "{}'s name as of 2022?")


@pytest.mark.parametrize(("question", "asks"), [
    (ASK.format("3M"), True),
    ("What notes are registered under Section 12(b) of the Act?", True),
    ("Which bonds has Verizon registered on the NYSE?", True),
    # a helper's trial: these wordings were answered from other pages
    ("Which Microsoft debt securities are listed on an exchange as of fiscal 2023?", True),
    ("What notes does Nike have listed on an exchange?", True),
    ("Which notes to the financial statements describe leases?", False),
    ("Which securities are registered under the Act?", False),
    ("What was 3M's interest expense on notes in 2022?", False),
    ("Who is the registered agent of the company?", False),
])
def test_what_is_asked(question: str, asks: bool) -> None:
    assert asks_registered_debt(question) is asks


def _cover(name: str, rows: list[str]) -> str:
    return "\n".join([
        f"# {name}", "", "FORM 10-K", "",
        "Securities registered pursuant to Section 12(b) of the Act:", "",
        "Title of each class Trading Symbol(s) Name of each exchange on which registered",
        *rows, "", "Securities registered pursuant to section 12(g) of the Act: None", "",
        "Indicate by check mark if the registrant is a well-known seasoned issuer. Yes No", "",
        "## Item 1. Business", "", f"{name} makes widgets and sells them in many countries.", ""])


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[QdrantChunkStore]:
    root = tmp_path_factory.mktemp("covers")
    docs = write_texts(root / "docs", {
        "acme_10k.md": _cover("Acme Corporation", [
            "Common Shares (par value $0.20 per Share) ACM New York Stock Exchange"]),
        "zenith_10k.md": _cover("Zenith Industries", [
            "Common Stock, Par Value $.01 Per Share ZEN New York Stock Exchange",
            "0.950% Notes due 2023 ZEN23 New York Stock Exchange",
            "Floating Rate Notes due 2025 ZEN25 New York Stock Exchange"]),
    })
    ingest_keyword_only(root / "data", docs, "filings")
    st = QdrantChunkStore.embedded(root / "data" / "qdrant")
    yield st
    st.close()


def _decide(store: QdrantChunkStore, question: str):  # noqa: ANN202 - AnswerDecision
    tok = get_tokenizer()
    hits = store.keyword_search("filings", tok.sparse_query(question), 5)
    items = tuple(RetrievedChunk((h.chunk,), h.score) for h in hits)
    r = Retrieval(question, "filings", items, Confidence(0.5, ConfidenceFeatures()), "hybrid",
                  key_terms=tuple(tok.key_terms(question)))
    return drive_inline(AnswerDecider(tok, store, make_citation=make_citation).flow(r))


def test_a_cover_listing_no_debt_answers_there_are_none(store: QdrantChunkStore) -> None:
    d = _decide(store, ASK.format("Acme Corporation"))
    assert d.found and "registered_securities" in d.flags, (d.answer, d.flags)
    assert d.answer.startswith("There are none"), d.answer
    assert d.citations[0].path == "acme_10k.md"
    assert "Common Shares (par value $0.20 per Share)" in d.citations[0].quote


def test_the_debt_classes_are_listed_and_cited(store: QdrantChunkStore) -> None:
    d = _decide(store, ASK.format("Zenith Industries"))
    assert d.found and "registered_securities" in d.flags, (d.answer, d.flags)
    assert d.answer.endswith("0.950% Notes due 2023 ZEN23 New York Stock Exchange; "
                             "Floating Rate Notes due 2025 ZEN25 New York Stock Exchange"), d.answer
    assert d.citations[0].path == "zenith_10k.md" and "Common Stock" not in d.citations[0].quote


def _filing(eval_dir: Path, name: str) -> list:  # noqa: ANN401 - list of Chunk
    path = eval_dir / "en" / "docs" / "financebench" / name
    if not path.exists():
        pytest.skip(f"{path} not found")
    return chunk_document(parse_file(path), rel_path=name)


def test_a_cover_table_running_into_the_next_chunks(eval_dir: Path) -> None:
    """Verizon's 2022 10-K lists 31 classes of notes; the table runs over three chunks, each
    cited."""
    chunks = _filing(eval_dir, "VERIZON_2022_10K.pdf")
    got = registered_debt_answer(ASK.format("Verizon"), chunks, lambda doc: chunks)
    assert got is not None
    answer, cits = got
    rows = answer.split(": ", 1)[1].split("; ")
    assert len(rows) == 31 and rows[0] == "1.625% Notes due 2024 VZ 24B New York Stock Exchange"
    assert len(cits) > 1 and all(c.page == 1 for c in cits)


def test_exchange_traded_notes_and_guaranteed_notes_are_debt(eval_dir: Path) -> None:
    """JPMorgan's 2021 Q1 10-Q lists depositary shares, ETNs and a guarantee of notes whose
    title runs on to the next line, where its symbol and exchange stand."""
    chunks = _filing(eval_dir, "JPMORGAN_2021Q1_10Q.pdf")
    got = registered_debt_answer(ASK.format("JPMorgan").replace(" as of 2022", ""), chunks,
                                 lambda doc: chunks)
    assert got is not None
    assert "Alerian MLP Index ETNs due May 24, 2024" in got[0]
    assert ("Callable Step-Up Fixed Rate Notes due April 26, 2028 of JPMorgan Chase JPM/28 The "
            "New York Stock Exchange") in got[0], got[0]
    assert "Depositary Shares" not in got[0]


COVER_2022 = """# Zenith Industries

FORM 10-K

For the fiscal year ended December 31, 2022

Securities registered pursuant to Section 12(b) of the Act:

| Title of each class | Trading Symbol(s) | Name of each exchange on which registered |
{merged}

Securities registered pursuant to section 12(g) of the Act: None
""".format(merged="| Ordinary Shares, par value $0.01 per share 1.125% Guaranteed Senior Notes "
                  "Due 2027 | ZEN ZEN/27 | New York Stock Exchange |")


def test_a_merged_row_lists_only_the_debt_and_another_year_is_not_answered(
        tmp_path: Path) -> None:
    """A helper's trial: Amcor's 10-K cover table, read as one merged row, gave its ordinary
    shares inside the debt list; "as of 2020" of a 2022 10-K was answered with its 2022 list."""
    path = tmp_path / "zenith_10k.md"
    path.write_text(COVER_2022, encoding="utf-8")
    chunks = chunk_document(parse_file(path), rel_path=path.name)
    got = registered_debt_answer(ASK.format("Zenith"), chunks, lambda doc: chunks)
    assert got is not None
    assert got[0].endswith(": 1.125% Guaranteed Senior Notes Due 2027 ZEN ZEN/27 New York Stock "
                           "Exchange"), got[0]
    assert registered_debt_answer(ASK.format("Zenith").replace("2022", "2020"), chunks,
                                  lambda doc: chunks) is None
