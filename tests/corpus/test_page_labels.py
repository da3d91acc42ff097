"""Printed page labels (issue 17 item 3), on a PDF generated here with PyMuPDF: front matter
numbered i, ii, body 1, 2, …; a table-of-contents page set in a heading font. Citations carry
the physical page and the label, the CLI / chat footnote form shows both, "page N" in a question
resolves to the label first, and TOC lines never become section paths."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from corpus.chunker import chunk_document
from corpus.citations import citation_location, location_text, make_citation
from corpus.page_labels import chunk_on_page, page_refs
from corpus.parsers import parse_file
from corpus.tokenizer import Tokenizer
from corpus.types import Chunk
from gateway.api.routes.chat import format_footnotes
from rag.extractive import extract_answer
from rag.types import Confidence, ConfidenceFeatures, Retrieval, RetrievedChunk

FONT = "china-s"  # PyMuPDF's built-in CJK font: Latin and Chinese in one


def _pdf(path: Path) -> Path:
    doc = pymupdf.open()
    pages = [
        ("Preface", "This manual describes the FW series inverters and how to install them."),
        ("Contents", None),
        ("1 Installation", "Mount the inverter on a vertical wall at least 50 cm above the floor."),
        ("2 Operation", "The display shows the output power in kW and the daily yield in kWh."),
        ("3 Maintenance", "Clean the air inlet every six months with a dry brush."),
        ("4 Warranty", "The warranty period is 24 months from the date of delivery."),
    ]
    for title, body in pages:
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 90), title, fontsize=18, fontname=FONT)
        if body is None:  # the TOC, in the same heading font as the section titles
            for i, (t, _) in enumerate(pages[2:]):
                page.insert_text((72, 130 + 28 * i), f"{t} ........ {i + 1}", fontsize=18,
                                 fontname=FONT)
            continue
        text = " ".join(f"{body} Note {k + 1} on this page." for k in range(4))
        page.insert_textbox(pymupdf.Rect(72, 120, 523, 760), text, fontsize=10, fontname=FONT)
    doc.set_page_labels([{"startpage": 0, "prefix": "", "style": "r", "firstpagenum": 1},
                         {"startpage": 2, "prefix": "", "style": "D", "firstpagenum": 1}])
    doc.save(path)
    doc.close()
    return path


@pytest.fixture(scope="module")
def chunks(tmp_path_factory: pytest.TempPathFactory) -> list[Chunk]:
    path = _pdf(tmp_path_factory.mktemp("labels") / "manual.pdf")
    doc = parse_file(path)
    assert doc.page_labels == {1: "i", 2: "ii", 3: "1", 4: "2", 5: "3", 6: "4"}
    assert any("table-of-contents" in w for w in doc.warnings)
    return chunk_document(doc, rel_path="manual.pdf", min_chars=40)


def test_toc_lines_never_become_section_paths(chunks: list[Chunk]) -> None:
    paths = {h for c in chunks for h in c.section_path}
    assert not any("...." in h for h in paths)
    assert not any("........" in c.text for c in chunks)
    assert "3 Maintenance" in paths


def test_citation_carries_physical_page_and_label(chunks: list[Chunk]) -> None:
    chunk = next(c for c in chunks if "air inlet" in c.text)
    cit = make_citation(chunk, "Clean the air inlet every six months with a dry brush.")
    assert cit is not None
    assert (cit.page, cit.page_label) == (5, "3")  # physical page 5 is printed "3"
    assert citation_location(cit).startswith("p. 3 (PDF page 5) | line")
    assert citation_location(cit.to_dict()) == citation_location(cit)
    foot = format_footnotes("Every six months.", [cit.to_dict()])
    assert "p. 3 (PDF page 5)" in foot
    # no label, or a label equal to the physical page: the short form as before
    assert location_text(4, 4, (2, 3)) == "p.4 | lines 2-3"
    assert location_text(4, 4, (2, 3), "4") == "p.4 | lines 2-3"
    assert location_text(8, 9, (30, 2), "6", "7") == (
        "p. 6 (PDF page 8) line 30 – p. 7 (PDF page 9) line 2")
    # the payload round trip keeps the labels
    assert Chunk.from_payload(chunk.to_payload()).page_labels == chunk.page_labels


def test_page_in_a_question_is_the_printed_label_first(chunks: list[Chunk]) -> None:
    assert page_refs("What does page 3 say about cleaning?") == ["3"]
    assert page_refs("第2页 的内容") == ["2"] and page_refs("see p. iv and pp. 10") == ["iv", "10"]
    on3 = [c for c in chunks if chunk_on_page(c, "3")]
    assert on3 and all(c.page_start == 5 for c in on3)  # printed 3 = physical 5
    assert any(chunk_on_page(c, "ii") or chunk_on_page(c, "i") for c in chunks)
    tok = Tokenizer()
    q = "What does page 3 say?"
    # every page holds "Note 3 on this page."; the chunk printed "3" comes third from search
    ranked = [c for c in chunks if c.page_start != 5]
    ranked.insert(2, next(c for c in chunks if c.page_start == 5))
    items = tuple(RetrievedChunk((c,), 1.0 / (i + 1)) for i, c in enumerate(ranked))
    r = Retrieval(q, "c", items, Confidence(0.5, ConfidenceFeatures()), "keyword")
    ev = extract_answer(r, tok.key_terms(q) + ["page"], make_citation, normalize=tok.normalize)
    assert ev and ev[0].citation.page == 5 and ev[0].citation.page_label == "3"
