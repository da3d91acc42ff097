"""Every setting is documented in the Settings table of docs/settings.md, which README.md links
(datasette test_settings_are_documented)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gateway.settings import Settings

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
SETTINGS_DOC = REPO / "docs" / "settings.md"


def _documented() -> set[str]:
    text = SETTINGS_DOC.read_text(encoding="utf-8")
    return set(re.findall(r"^\| `LOOPGATE_([A-Z0-9_]+)` \|", text, flags=re.M))


@pytest.mark.parametrize("name", sorted(Settings.model_fields))
def test_setting_is_documented(name: str) -> None:
    assert name.upper() in _documented(), f"LOOPGATE_{name.upper()} missing from docs/settings.md"


def test_no_stale_documentation() -> None:
    fields = {n.upper() for n in Settings.model_fields}
    stale = _documented() - fields
    assert not stale, f"docs/settings.md documents settings that do not exist: {sorted(stale)}"


def test_settings_page_is_linked_from_readme() -> None:
    """The table is reachable from the entry point: README.md links docs/settings.md."""
    assert "](docs/settings.md)" in README.read_text(encoding="utf-8")


def test_every_setting_has_a_description() -> None:
    missing = [n for n, f in Settings.model_fields.items() if not f.description]
    assert not missing


def test_api_keys_validation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOOPGATE_API_KEYS", '{"changeme-key": ["*"]}')
    monkeypatch.setenv("LOOPGATE_ENVIRONMENT", "prod")
    with pytest.raises(ValueError, match="placeholder"):
        Settings()
    monkeypatch.setenv("LOOPGATE_API_KEYS", '{"short": ["*"]}')
    with pytest.raises(ValueError, match="8 characters"):
        Settings()
