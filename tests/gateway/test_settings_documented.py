"""Every setting is documented in README.md's Settings table (datasette test_settings_are_documented)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gateway.settings import Settings

README = Path(__file__).resolve().parents[2] / "README.md"


def _documented() -> set[str]:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Settings", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `LOOPGATE_([A-Z0-9_]+)` \|", section, flags=re.M))


@pytest.mark.parametrize("name", sorted(Settings.model_fields))
def test_setting_is_documented(name: str) -> None:
    assert name.upper() in _documented(), f"LOOPGATE_{name.upper()} missing from README Settings"


def test_no_stale_documentation() -> None:
    fields = {n.upper() for n in Settings.model_fields}
    stale = _documented() - fields
    assert not stale, f"README documents settings that do not exist: {sorted(stale)}"


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
