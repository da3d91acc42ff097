"""A generated document-fidelity set (issue 17 item 8): one small set of files per kind of fault,
each with the text a reader sees on every page, and the score of what the parser indexes.

Kinds (every file built here with PyMuPDF, deterministic, no network, nothing from ../shared):

- ``two_columns``: two-column pages whose content stream writes each row left → right (both
  columns' lines interleaved), one written paragraph by paragraph (blocks of both columns at the
  same heights), and a Chinese one; a full-width title and closing line around the columns.
- ``rotation``: landscape tables on pages with ``/Rotate 90`` and ``270`` whose text is drawn
  turned so the page shows it upright, and sideways tables (text running up / down) on
  portrait pages; each cell its own text object.
- ``fonts_no_tounicode``: CJK and Latin text in an embedded font whose ToUnicode map was removed
  or maps to private-use code points (MuPDF then returns glyph ids).
- ``page_labels``: front matter numbered i, ii, a table-of-contents page, body 1, 2, …
  (the TOC page's expected indexed text is empty; labels are scored separately).
- ``mixed_scan``: born-digital pages whose middle paragraph is a picture of text.
- ``wrapped_text``: ``.txt`` files hard-wrapped at 40 (Chinese) / 60 (English) characters.
- ``control``: what must not change: one-column prose and an unruled financial table
  (labels left, numbers in columns; not to be read as text columns).

Score per kind: character accuracy ``1 - Σ levenshtein(indexed, source) / Σ len(source)`` over
its pages (text normalised: NFKC, Markdown table pipes and rule rows removed, whitespace runs
→ one space; floor 0 per page), and *garbage pages*: pages whose indexed text is not what the
page shows (``garbled_reason`` flags it, or its accuracy is under 0.5).

Use: :func:`build` writes the files under a folder and returns the :class:`Sample` list;
:func:`score` parses them with ``corpus.parsers.parse_file`` and returns a :class:`KindScore`
per kind. ``benchmarks/parser_fidelity.py --generated`` prints the table.
"""

from __future__ import annotations

import random
import re
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf
from rapidfuzz.distance import Levenshtein

__all__ = ["KINDS", "KindScore", "Sample", "build", "normalise", "pymupdf4llm_pages", "score",
           "score_texts"]

KINDS = ("two_columns", "rotation", "fonts_no_tounicode", "page_labels", "mixed_scan",
         "wrapped_text", "control")

_WORDS = (
    "network gateway operator shall keep logs inverter rated power warranty period months "
    "install maintenance backup retention policy audit node index cluster replica storage "
    "disk usage alert threshold budget revenue quarter fiscal segment operating margin cash "
    "equivalents liability deferred income statement balance report annual review customer "
    "contract service level latency throughput document reader search answer citation page"
).split()
_ZH_SENTENCES = (
    "网络运营者应当按照网络安全等级保护制度的要求履行安全保护义务",
    "网络日志留存时间不少于六个月",
    "设备的额定功率为十二千瓦，保修期限为五年",
    "安装时应将逆变器垂直固定在墙面上，距离地面至少五十厘米",
    "显示屏显示当前输出功率和每日发电量",
    "备份数据保留三十天，过期后自动删除",
    "磁盘使用率超过百分之八十五时，系统停止接收新文档并发送告警邮件",
    "本年度预算为三百二十万元，比上年增长百分之八",
    "营业收入同比增长百分之十二，主要来自海外市场",
    "每季度末由财务部门编制季度报告并提交董事会审议",
    "维护人员应每六个月用干刷清洁一次进风口",
    "单个节点最多可以索引五十万个文本块",
    "默认监听端口为八四四三，可在配置文件中修改",
    "系统升级前必须完成全量备份，并在测试环境中验证",
    "客户服务热线每天八点至二十点提供咨询",
    "检修期间应断开直流开关，并悬挂警示标志",
    "所有访问记录应当保存在独立的审计服务器上",
    "如发现异常发热，应立即停机并联系售后服务中心",
)
_CJK_FONT = "china-s"  # PyMuPDF's built-in CJK font (Latin and Chinese, with a ToUnicode map)


@dataclass(slots=True)
class Sample:
    """One generated file: ``pages[i]`` is the text a reader sees on physical page ``i + 1`` and
    expects indexed (lines joined by newlines); ``labels`` the printed page labels, if any."""

    kind: str
    path: Path
    pages: list[str]
    labels: dict[int, str] = field(default_factory=dict)


@dataclass(slots=True)
class KindScore:
    """Scores of one kind: ``accuracy`` 0..1, ``garbage_pages`` count, ``pages`` scored,
    ``label_accuracy`` (share of pages whose indexed label is right; ``None`` without labels),
    ``errors`` (files that failed to parse: ``path: code``), ``seconds`` parse wall time."""

    kind: str
    accuracy: float = 0.0
    garbage_pages: int = 0
    pages: int = 0
    label_accuracy: float | None = None
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    worst: str = ""


# ---------------------------------------------------------------- text
def _sentences(rng: random.Random, n: int) -> list[str]:
    out = []
    for _ in range(n):
        words = rng.choices(_WORDS, k=rng.randint(8, 14))
        num = rng.choice(["", f" {rng.randint(2, 999)}", f" FW-{rng.randint(100, 999)}"])
        out.append((" ".join(words) + num + ".").capitalize())
    return out


def _hanzi(rng: random.Random, n: int) -> str:
    """Real Chinese sentences (OCR reads text, not character soup), about ``n`` characters."""
    out = ""
    while len(out) < n:
        out += rng.choice(_ZH_SENTENCES) + "。"
    return out


def _wrap(text: str, width: float, measure: Callable[[str], float]) -> list[str]:
    """Greedy line breaks at spaces (Latin) or anywhere (CJK) so each line fits ``width``."""
    lines: list[str] = []
    cur = ""
    cjk = not re.search(r"[a-z]", text)
    tokens = list(text) if cjk else text.split(" ")
    for tok in tokens:
        cand = (cur + tok) if cjk or not cur else f"{cur} {tok}"
        if cur and measure(cand) > width:
            lines.append(cur)
            cur = tok
        else:
            cur = cand
    if cur:
        lines.append(cur)
    return lines


def _helv(size: float) -> Callable[[str], float]:
    return lambda s: pymupdf.get_text_length(s, fontname="helv", fontsize=size)


def _cjk(size: float) -> Callable[[str], float]:
    font = pymupdf.Font(_CJK_FONT)
    return lambda s: font.text_length(s, fontsize=size)


# ---------------------------------------------------------------- two columns
def _two_columns(folder: Path, rng: random.Random) -> list[Sample]:
    out = []
    for variant in ("rows", "paragraphs", "zh"):
        doc = pymupdf.open()
        pages: list[str] = []
        for pno in range(2):
            page = doc.new_page(width=595, height=842)
            zh = variant == "zh"
            font = _CJK_FONT if zh else "helv"
            measure = _cjk(10) if zh else _helv(10)
            title = f"第{pno + 1}章 运行报告" if zh else f"Chapter {pno + 1} Operations report"
            page.insert_text((56, 70), title, fontsize=16, fontname=font)
            col_w = 230
            cols: list[list[list[str]]] = []  # column → paragraphs → lines
            for _c in range(2):
                paras = []
                for _p in range(3):
                    text = _hanzi(rng, 90) if zh else " ".join(_sentences(rng, 3))
                    paras.append(_wrap(text, col_w, measure))
                cols.append(paras)
            lh, y0 = 13.0, 110.0

            def col_lines(
                paras: list[list[str]], y0: float = y0, lh: float = lh, gap: float = 8.0
            ) -> list[tuple[float, str]]:
                y, res = y0, []
                for para in paras:
                    for ln in para:
                        res.append((y, ln))
                        y += lh
                    y += gap
                return res

            left, right = col_lines(cols[0]), col_lines(cols[1])
            if variant == "paragraphs":  # one text object per paragraph, row by row of paragraphs
                for pi in range(3):
                    for ci, x in ((0, 56), (1, 309)):
                        lines = col_lines(cols[ci])
                        start = sum(len(p) for p in cols[ci][:pi])
                        for y, ln in lines[start:start + len(cols[ci][pi])]:
                            page.insert_text((x, y), ln, fontsize=10, fontname=font)
            else:  # each row left → right, as some report generators write
                for k in range(max(len(left), len(right))):
                    if k < len(left):
                        page.insert_text((56, left[k][0]), left[k][1], fontsize=10, fontname=font)
                    if k < len(right):
                        page.insert_text((309, right[k][0]), right[k][1], fontsize=10,
                                         fontname=font)
            end_y = max(left[-1][0], right[-1][0]) + 40
            # a full-width closing line under both columns (its own text on every page: a
            # line repeated at the foot of each page is a running footer, rightly dropped)
            closing = _hanzi(rng, 20) if zh else _sentences(rng, 1)[0]
            page.insert_text((56, end_y), closing, fontsize=10, fontname=font)
            pages.append("\n".join([title] + [ln for p in cols[0] for ln in p]
                                   + [ln for p in cols[1] for ln in p] + [closing]))
        path = folder / f"two_columns_{variant}.pdf"
        doc.save(path)
        doc.close()
        out.append(Sample("two_columns", path, pages))
    return out


# ---------------------------------------------------------------- rotation
def _table_rows(rng: random.Random, n: int) -> list[list[str]]:
    rows = [["Model", "Rated power", "Voltage", "Warranty"]]
    for _ in range(n):
        rows.append([f"FW-{rng.randint(100, 999)}", f"{rng.randint(2, 40)} kW",
                     f"{rng.choice([220, 380, 400])} V", f"{rng.randint(1, 10)} years"])
    return rows


def _rotation(folder: Path, rng: random.Random) -> list[Sample]:
    """Tables drawn with their text turned by ``angle`` (PyMuPDF ``rotate``: counter-clockwise
    degrees) on a page with ``/Rotate`` ``page_rot``: ``angle == page_rot`` shows upright."""
    out = []
    for name, page_rot, angle in (("landscape90", 90, 90), ("landscape270", 270, 270),
                                  ("sideways_up", 0, 90), ("sideways_down", 0, 270)):
        doc = pymupdf.open()
        page = doc.new_page(width=595, height=842)
        rows = _table_rows(rng, 10)
        title = f"Table {rng.randint(2, 9)}-1 Inverter models ({name})"
        # layout in the reading frame: u along the text, v down the lines (origin: top left)
        # frame → unrotated page: angle 90 (text runs up): x = v, y = H - u
        #                         angle 270 (text runs down): x = W - v, y = u
        w, h = 595.0, 842.0
        cells: list[tuple[float, float, str]] = [(60, 60, title)]
        for r, row in enumerate(rows):
            for c, cell in enumerate(row):
                cells.append((60 + 150 * c, 100 + 18 * r, cell))
        for u, v, text in cells:
            x, y = (v, h - u) if angle == 90 else (w - v, u)
            page.insert_text((x, y), text, fontsize=10, fontname="helv", rotate=angle)
        page.set_rotation(page_rot)
        path = folder / f"rotation_{name}.pdf"
        doc.save(path)
        doc.close()
        out.append(Sample("rotation", path,
                          ["\n".join([title] + [" ".join(r) for r in rows])]))
    return out


# ---------------------------------------------------------------- fonts without ToUnicode
_PUA_CMAP = """/CIDInit /ProcSet findresource begin 12 dict begin begincmap
/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def
/CMapName /Garbled def /CMapType 2 def
1 begincodespacerange <0000> <FFFF> endcodespacerange
1 beginbfrange <0000> <FFFF> <E000> endbfrange
endcmap CMapName currentdict /CMap defineresource pop end end"""


def break_font(doc: pymupdf.Document, page: pymupdf.Page, how: str) -> None:
    """Give ``page`` its own copy of its first font with no ToUnicode map (``how`` =
    ``"no_tounicode"``) or one mapping every glyph to private use (``"pua"``)."""
    name = page.get_fonts()[0][4]
    xref = page.get_fonts()[0][0]
    copy = doc.get_new_xref()
    doc.update_object(copy, doc.xref_object(xref))
    if how == "no_tounicode":
        doc.xref_set_key(copy, "ToUnicode", "null")
    else:
        cmap = doc.get_new_xref()
        doc.update_object(cmap, "<<>>")
        doc.update_stream(cmap, _PUA_CMAP.encode())
        doc.xref_set_key(copy, "ToUnicode", f"{cmap} 0 R")
    res = doc.xref_get_key(page.xref, "Resources")
    if res[0] == "xref":
        doc.xref_set_key(int(res[1].split()[0]), f"Font/{name}", f"{copy} 0 R")
    else:
        doc.xref_set_key(page.xref, f"Resources/Font/{name}", f"{copy} 0 R")


def _text_page(
    doc: pymupdf.Document, lines: list[str], font: str, size: float = 12
) -> pymupdf.Page:
    page = doc.new_page(width=595, height=842)
    page.insert_font(fontname=font, fontbuffer=pymupdf.Font("cjk").buffer)
    for i, ln in enumerate(lines):
        page.insert_text((60, 80 + i * (size * 1.6)), ln, fontsize=size, fontname=font)
    return page


def _fonts(folder: Path, rng: random.Random) -> list[Sample]:
    doc = pymupdf.open()
    pages = []
    for i, how in enumerate(("ok", "no_tounicode", "pua", "no_tounicode")):
        zh = i % 2 == 1 or how == "pua"
        text = _hanzi(rng, 200) if zh else " ".join(_sentences(rng, 6))
        lines = _wrap(text, 470, _cjk(12))
        page = _text_page(doc, lines, f"F{i}")
        if how != "ok":
            break_font(doc, page, how)
        pages.append("\n".join(lines))
    path = folder / "fonts_no_tounicode.pdf"
    doc.save(path)
    doc.close()
    return [Sample("fonts_no_tounicode", path, pages)]


# ---------------------------------------------------------------- page labels
def _labels(folder: Path, rng: random.Random) -> list[Sample]:
    doc = pymupdf.open()
    titles = ["Preface", "Contents", "1 Installation", "2 Operation", "3 Maintenance"]
    pages: list[str] = []
    for t in titles:
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 90), t, fontsize=18, fontname="helv")
        if t == "Contents":
            for i, s in enumerate(titles[2:]):
                page.insert_text((72, 130 + 24 * i), f"{s} ........ {i + 1}", fontsize=12,
                                 fontname="helv")
            pages.append("")  # a TOC page is kept out of the index
            continue
        lines = _wrap(" ".join(_sentences(rng, 5)), 450, _helv(10))
        for i, ln in enumerate(lines):
            page.insert_text((72, 130 + 14 * i), ln, fontsize=10, fontname="helv")
        pages.append("\n".join([t] + lines))
    doc.set_page_labels([{"startpage": 0, "prefix": "", "style": "r", "firstpagenum": 1},
                         {"startpage": 2, "prefix": "", "style": "D", "firstpagenum": 1}])
    path = folder / "page_labels.pdf"
    doc.save(path)
    doc.close()
    return [Sample("page_labels", path, pages, {1: "i", 2: "ii", 3: "1", 4: "2", 5: "3"})]


# ---------------------------------------------------------------- mixed scan
def _picture_of(lines: list[str], size: float, width: float, font: str) -> tuple[bytes, float]:
    """A 300 dpi PNG of ``lines`` set in ``font``; returns it and its height in points."""
    h = len(lines) * size * 1.5 + 8
    tmp = pymupdf.open()
    p = tmp.new_page(width=width, height=h)
    for i, ln in enumerate(lines):
        p.insert_text((4, 4 + size + i * size * 1.5), ln, fontsize=size, fontname=font)
    png = p.get_pixmap(dpi=300).tobytes("png")
    tmp.close()
    return png, h


def _mixed_scan(folder: Path, rng: random.Random) -> list[Sample]:
    out = []
    for variant in ("en", "zh"):
        doc = pymupdf.open()
        page = doc.new_page(width=595, height=842)
        zh = variant == "zh"
        font = _CJK_FONT if zh else "helv"
        measure = _cjk(11) if zh else _helv(11)
        paras = [_wrap(_hanzi(rng, 120) if zh else " ".join(_sentences(rng, 4)), 460,
                       measure) for _ in range(3)]
        y = 80.0
        for k, para in enumerate(paras):
            if k == 1:  # the key paragraph is a picture
                png, h = _picture_of(para, 11, 470, font)
                page.insert_image(pymupdf.Rect(60, y - 11, 530, y - 11 + h), stream=png)
                y += h + 12
                continue
            for ln in para:
                page.insert_text((64, y), ln, fontsize=11, fontname=font)
                y += 16.5
            y += 12
        path = folder / f"mixed_scan_{variant}.pdf"
        doc.save(path)
        doc.close()
        out.append(Sample("mixed_scan", path, ["\n".join(ln for p in paras for ln in p)]))
    return out


# ---------------------------------------------------------------- wrapped text
def _wrapped(folder: Path, rng: random.Random) -> list[Sample]:
    out = []
    for variant, width in (("zh", 40), ("en", 60)):
        if variant == "zh":
            paras = [_hanzi(rng, rng.randint(120, 200)) for _ in range(5)]
            wrapped = ["\n".join(p[i:i + width] for i in range(0, len(p), width)) for p in paras]
        else:
            import textwrap

            paras = [" ".join(_sentences(rng, 4)) for _ in range(5)]
            wrapped = [textwrap.fill(p, width) for p in paras]
        path = folder / f"wrapped_{variant}.txt"
        path.write_text("\n\n".join(wrapped) + "\n", encoding="utf-8")
        out.append(Sample("wrapped_text", path, ["\n".join(paras)]))
    return out


# ---------------------------------------------------------------- control
def _control(folder: Path, rng: random.Random) -> list[Sample]:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    lines = _wrap(" ".join(_sentences(rng, 8)), 470, _helv(10))
    page.insert_text((60, 70), "Management discussion", fontsize=16, fontname="helv")
    for i, ln in enumerate(lines):
        page.insert_text((60, 100 + 13 * i), ln, fontsize=10, fontname="helv")
    y = 100 + 13 * len(lines) + 30
    labels = ["Cash and cash equivalents", "Short-term investments", "Accounts receivable, net",
              "Inventories", "Prepaid expenses and other", "Total current assets",
              "Property and equipment, net", "Goodwill", "Total assets"]
    table = ["Consolidated balance sheet 2023 2022"]
    page.insert_text((60, y), "Consolidated balance sheet", fontsize=10, fontname="helv")
    page.insert_text((400, y), "2023", fontsize=10, fontname="helv")
    page.insert_text((480, y), "2022", fontsize=10, fontname="helv")
    for i, lab in enumerate(labels):
        a, b = f"{rng.randint(100, 9999):,}", f"{rng.randint(100, 9999):,}"
        yy = y + 16 * (i + 1)
        page.insert_text((60, yy), lab, fontsize=10, fontname="helv")
        page.insert_text((400, yy), f"$ {a}", fontsize=10, fontname="helv")
        page.insert_text((480, yy), f"$ {b}", fontsize=10, fontname="helv")
        table.append(f"{lab} $ {a} $ {b}")
    path = folder / "control.pdf"
    doc.save(path)
    doc.close()
    return [Sample("control", path, ["\n".join(["Management discussion"] + lines + table)])]


_BUILDERS: dict[str, Callable[[Path, random.Random], list[Sample]]] = {
    "two_columns": _two_columns,
    "rotation": _rotation,
    "fonts_no_tounicode": _fonts,
    "page_labels": _labels,
    "mixed_scan": _mixed_scan,
    "wrapped_text": _wrapped,
    "control": _control,
}


def build(folder: Path, kinds: tuple[str, ...] = KINDS, seed: int = 17) -> list[Sample]:
    """Write the generated files of ``kinds`` under ``folder`` (created) and return them.

    :raises KeyError: an unknown kind.
    """
    folder.mkdir(parents=True, exist_ok=True)
    out: list[Sample] = []
    for kind in kinds:
        out.extend(_BUILDERS[kind](folder, random.Random(f"{seed}:{kind}")))
    return out


# ---------------------------------------------------------------- scoring
_RULE_ROW = re.compile(r"^\s*\|?(\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*$", re.M)


_CJK_GAP = re.compile(r"(?<=[\u3000-\u9fff\uff00-\uffef]) (?=[\u3000-\u9fff\uff00-\uffef])")


def normalise(text: str) -> str:
    """NFKC, Markdown table pipes and rule rows removed, whitespace runs → one space, none
    between two CJK characters or punctuation (a line break inside Chinese is no space)."""
    text = unicodedata.normalize("NFKC", text)
    text = _RULE_ROW.sub(" ", text).replace("|", " ")
    text = " ".join(text.split())
    return _CJK_GAP.sub("", text)


def score_texts(indexed: str, source: str) -> tuple[int, int]:
    """``(edit distance, source length)`` of the normalised texts (distance capped at the
    source length, so one page scores at worst 0)."""
    a, b = normalise(indexed), normalise(source)
    return min(Levenshtein.distance(a, b), max(len(b), 1)), len(b)


def pymupdf4llm_pages(path: Path) -> list[tuple[str, str]] | None:
    """A reference reader for the comparison (issue 17 item 2: "compare before choosing"):
    ``pymupdf4llm.to_text(page_chunks=True)`` (its layout model when ``pymupdf_layout`` is
    installed) → per page ``(text, "")``; ``None`` for a non-PDF file."""
    import pymupdf4llm  # optional: only the comparison needs it

    if path.suffix != ".pdf":
        return None
    return [(p["text"], "") for p in pymupdf4llm.to_text(str(path), page_chunks=True)]


def score(
    samples: list[Sample],
    reader: Callable[[Path], list[tuple[str, str]] | None] | None = None,
) -> dict[str, KindScore]:
    """Parse every sample with ``corpus.parsers.parse_file`` (or ``reader``: per page its text
    and label; ``None`` skips the file) and score it per kind (see the module docstring); a
    file that fails to parse scores 0 on all its pages."""
    from corpus.errors import ParseError
    from corpus.parsers import parse_file
    from corpus.parsers._pdf_quality import garbled_reason

    def ours(path: Path) -> list[tuple[str, str]]:
        doc = parse_file(path)
        pages: dict[int, list[str]] = {}
        labels: dict[int, str] = {}
        for b in doc.blocks:
            pages.setdefault(b.page, []).append(b.text)
            labels[b.page] = b.page_label
        return [("\n".join(pages.get(p, [])), labels.get(p, ""))
                for p in range(1, doc.page_count + 1)]

    read = reader or ours
    dist: dict[str, int] = {}
    total: dict[str, int] = {}
    res: dict[str, KindScore] = {}
    labels_ok: dict[str, list[bool]] = {}
    for s in samples:
        t0 = time.perf_counter()
        try:
            got = read(s.path)
        except ParseError as exc:
            res.setdefault(s.kind, KindScore(s.kind)).errors.append(f"{s.path.name}: {exc.code}")
            got = []
        if got is None:
            continue
        ks = res.setdefault(s.kind, KindScore(s.kind))
        ks.seconds += time.perf_counter() - t0
        for pno, src in enumerate(s.pages, start=1):
            text, label = got[pno - 1] if pno <= len(got) else ("", "")
            d, n = score_texts(text, src)
            if not src:  # a page expected out of the index (a TOC page): any text is wrong
                d, n = (len(normalise(text)), 0)
            dist[s.kind] = dist.get(s.kind, 0) + d
            total[s.kind] = total.get(s.kind, 0) + n
            ks.pages += 1
            page_acc = 1 - d / n if n else (1.0 if not d else 0.0)
            if text.strip() and (garbled_reason(text) is not None or page_acc < 0.5):
                ks.garbage_pages += 1
            if not ks.worst or page_acc < float(ks.worst.split()[0]):
                ks.worst = f"{page_acc:.3f} {s.path.name} p{pno}"
            if s.labels and text.strip():
                labels_ok.setdefault(s.kind, []).append(label == s.labels.get(pno, ""))
    for kind, ks in res.items():
        ks.accuracy = max(0.0, 1 - dist.get(kind, 0) / max(total.get(kind, 0), 1))
        if kind in labels_ok:
            ok = labels_ok[kind]
            ks.label_accuracy = sum(ok) / len(ok) if ok else 0.0
    return res
