"""``LOOPGATE_OCR_LANGUAGES`` written in the settings file reaches the PDF parser, which reads
it from the process environment (a new-user trial: the file's value was warned "not a setting,
ignored")."""

from __future__ import annotations

import os

import pytest

from corpus.parsers import _pdf_ocr
from gateway.settings import get_settings


@pytest.fixture
def settings_file(tmp_path, monkeypatch):
    def write(text: str):
        path = tmp_path / "loopgate.env"
        path.write_text(text, encoding="utf-8")
        monkeypatch.setenv("LOOPGATE_ENV_FILE", str(path))
        monkeypatch.setenv("LOOPGATE_OCR_LANGUAGES", "placeholder")  # restored after the test
        monkeypatch.delenv("LOOPGATE_OCR_LANGUAGES")
        get_settings.cache_clear()
        _pdf_ocr.ocr_languages.cache_clear()
        return path
    yield write
    get_settings.cache_clear()
    _pdf_ocr.ocr_languages.cache_clear()


def test_the_settings_file_sets_the_ocr_languages(settings_file) -> None:
    settings_file("LOOPGATE_OCR_LANGUAGES=eng\n")
    assert get_settings().ocr_languages == "eng"
    assert os.environ["LOOPGATE_OCR_LANGUAGES"] == "eng"
    assert _pdf_ocr.ocr_languages() in ("", "eng")  # "" where Tesseract is not installed


def test_an_empty_value_turns_ocr_off(settings_file) -> None:
    settings_file("LOOPGATE_OCR_LANGUAGES=\n")
    get_settings()
    assert _pdf_ocr.ocr_languages() == ""


def test_a_malformed_value_is_refused(settings_file) -> None:
    settings_file("LOOPGATE_OCR_LANGUAGES=eng chi_sim\n")
    with pytest.raises(ValueError, match="ocr_languages"):
        get_settings()


def test_the_setting_s_default_is_the_parser_s() -> None:
    from gateway.settings import Settings

    assert Settings.model_fields["ocr_languages"].default == _pdf_ocr.DEFAULT_LANGUAGES
