"""README.md is the entry point of the documentation: it links every page of docs/, and every
relative link in README.md and docs/*.md leads to a file that exists and, with a #fragment, to a
heading of that file (GitHub's heading anchors)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = sorted((REPO / "docs").glob("*.md"))
PAGES = [README, *DOCS]

_FENCE = re.compile(r"^\s*```")
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _prose(path: Path) -> list[str]:
    """The file's lines outside fenced code blocks."""
    lines, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def _anchors(path: Path) -> set[str]:
    """GitHub's anchors of the file's headings (lower case, punctuation dropped, spaces to -)."""
    seen: dict[str, int] = {}
    out = set()
    for line in _prose(path):
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def _links(path: Path) -> list[str]:
    """Relative link targets outside code (a code span may quote a document's own link)."""
    return [u for line in _prose(path) for u in _LINK.findall(re.sub(r"`[^`]*`", "", line))
            if not re.match(r"[a-z][a-z0-9+.-]*:", u)]


def test_docs_exist() -> None:
    assert DOCS, "docs/ holds no page"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_resolve(page: Path) -> None:
    broken = []
    for url in _links(page):
        target, _, fragment = url.partition("#")
        file = (page.parent / target).resolve() if target else page
        if not file.exists():
            broken.append(f"{url}: no file {file}")
        elif fragment and file.suffix == ".md" and fragment not in _anchors(file):
            broken.append(f"{url}: no heading #{fragment} in {file.name}")
    assert not broken, broken


def test_readme_links_every_docs_page() -> None:
    linked = {(REPO / u.partition("#")[0]).resolve() for u in _links(README)}
    assert not [p.name for p in DOCS if p.resolve() not in linked]
