"""corpus.page_view on real case files: the quote's boxes sit on its words (checked against
PyMuPDF's own word boxes), a quote across a page break is found on both pages, pages render."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus.page_view import quote_boxes, render_page, source_lines

PDF = "09-cite-page-numbers/four_pages.pdf"


def _words(pdf: Path, page: int, text: str) -> tuple[float, float, float, float]:
    import pymupdf

    with pymupdf.open(pdf) as doc:
        rects = doc[page - 1].search_for(text)
    assert rects, text
    r = rects[0]
    return r.x0, r.y0, r.x1, r.y1


def _overlap(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """Share of ``b``'s area inside ``a``."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(w, 0) * max(h, 0) / ((b[2] - b[0]) * (b[3] - b[1]))


def test_quote_boxes_cover_the_quoted_words_only(cases_dir: Path) -> None:
    pdf = cases_dir / PDF
    english = "Fact B: one node indexes at most 500,000 chunks."
    qb = quote_boxes(pdf, 3, (2, 2), english)
    assert qb.exact and qb.lines == [2] and len(qb.boxes) == 1
    truth = _words(pdf, 3, english)
    assert _overlap(qb.boxes[0], truth) >= 0.95 and _overlap(truth, qb.boxes[0]) >= 0.9
    chinese = quote_boxes(pdf, 3, (2, 2), "事实B：单节点最多索引 50 万个分块。")
    assert chinese.exact and chinese.boxes[0][2] <= qb.boxes[0][0] + 1  # left of the English
    assert (qb.page_width, qb.page_height) == (595.0, 842.0)


def test_quote_across_a_page_break_is_found_on_both_pages(cases_dir: Path) -> None:
    pdf = cases_dir / PDF
    quote = "事实C：当磁盘使用率超过 85% 时，网关停止接收新文档，并向管理员发送告警邮件。"
    first = quote_boxes(pdf, 3, (35, 1), quote, page_end=4)
    second = quote_boxes(pdf, 4, (35, 1), quote, cited_page=3, page_end=4)
    assert first.exact and first.lines == [35]
    assert second.exact and second.lines == [1]
    assert quote_boxes(pdf, 2, (35, 1), quote, cited_page=3, page_end=4).boxes == []


def test_unmatched_quote_falls_back_to_the_cited_lines(cases_dir: Path) -> None:
    qb = quote_boxes(cases_dir / PDF, 3, (3, 4), "words that are not on the page")
    assert not qb.exact and qb.lines == [3, 4] and len(qb.boxes) == 2


def test_a_quote_cited_on_other_line_numbers_is_found_on_its_page(cases_dir: Path) -> None:
    """Citations of a collection ingested before the page's reading order changed carry other
    line numbers (seen: CH583 p.1, a two-column page, line 64 now the other column's): the quote
    is looked for on the whole page, the occurrence nearest to the cited lines."""
    quote = "Fact B: one node indexes at most 500,000 chunks."
    qb = quote_boxes(cases_dir / PDF, 3, (10, 10), quote)
    assert qb.exact and qb.lines == [2] and len(qb.boxes) == 1


def test_render_page_and_source_lines(cases_dir: Path) -> None:
    img = render_page(cases_dir / PDF, 1, dpi=72)
    assert img.png.startswith(b"\x89PNG") and (img.width, img.height) == (595, 842)
    assert img.page_count == 4
    with pytest.raises(ValueError, match="outside 1..4"):
        render_page(cases_dir / PDF, 5)
    lines = source_lines(cases_dir / "06-zh-keyword-segmentation/faq_en.md")
    assert lines[3] == "The warranty period is three years from acceptance."


def _line_of(pdf: Path, page: int, text: str) -> int:
    """The number of the visual line holding ``text`` (as ``corpus.page_view`` reads lines)."""
    import pymupdf

    from corpus._page_quote import line_chars, quote_key
    from corpus.parsers._pdf_page import page_lines

    with pymupdf.open(pdf) as doc:
        pg = doc[page - 1]
        return next(v.number for v in page_lines(pg)
                    if quote_key(text) in "".join(k for k, _ in line_chars(pg, v.bbox)))


@pytest.mark.parametrize(("name", "page", "quote", "first", "not_shown"), [
    # a cell centred between two table rows ('碎米' beside '总量' and '其中：小碎米含量')
    ("db32t1580_sheyang_rice.pdf", 5, "| 碎米 | 总量/% ≤ | 2.5 | 5.0 | 7.5 |", "总量/%",
     ["0.5", "1.0"]),
    # a cell wrapped onto a second line, each cell a line of its own in reading order
    ("wch_ch583_datasheet_cn.pdf", 110, "| NEPCE | Flash-ROM 的擦写次数 erase/program cycle "
     "endurance | | 5～45℃ | 100K | 1000K（抽测） | | times |", "NEPCE",
     ["200K", "单次字编程"]),
])
def test_a_table_row_over_several_visual_lines_is_boxed_cell_by_cell(
    eval_dir: Path, name: str, page: int, quote: str, first: str, not_shown: list[str]
) -> None:
    """The chunker writes a table row as one ``| a | b |`` line; the page may lay it out over
    several visual lines, so its characters are no single run: each cell is found (before, the
    whole cited line was shown: only 'NEPCE', or the row without '碎米')."""
    import pymupdf

    pdf = eval_dir / "zh" / "docs" / "pdf" / name
    line = _line_of(pdf, page, first)
    qb = quote_boxes(pdf, page, (line, line), quote)
    assert qb.exact, qb
    with pymupdf.open(pdf) as doc:
        pg = doc[page - 1]
        for cell in (c.strip() for c in quote.split("|")):
            for word in cell.split():
                hits = [tuple(r) for r in pg.search_for(word)]
                assert any(_overlap(b, h) >= 0.8 for b in qb.boxes for h in hits), (word, qb)
        for word in not_shown:  # the neighbouring rows stay unmarked
            for h in pg.search_for(word):
                assert all(_overlap(b, tuple(h)) < 0.2 for b in qb.boxes), (word, qb)


def test_a_page_larger_than_paper_renders_scaled(tmp_path: Path) -> None:
    # a break-it trial: a 14,400 x 14,400 pt page was a 500 in the viewer ("Overly large image")
    import pymupdf

    from corpus.page_view import MAX_SIDE_PX

    pdf = tmp_path / "poster.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page(width=14400, height=7200)
        page.insert_text((72, 144), "A poster page.", fontsize=96)
        doc.save(pdf)
    img = render_page(pdf, 1, dpi=200)
    assert (img.width, img.height) == (MAX_SIDE_PX, MAX_SIDE_PX // 2)
    assert img.png.startswith(b"\x89PNG") and img.page_width == 14400
    # a paper page keeps its resolution: A4 at 110 dpi
    with pymupdf.open() as doc:
        doc.new_page(width=595, height=842)
        doc.save(tmp_path / "a4.pdf")
    a4 = render_page(tmp_path / "a4.pdf", 1)
    assert abs(a4.width - 595 * 110 / 72) <= 1 and abs(a4.height - 842 * 110 / 72) <= 1
