"""Evaluation harness (issue 4): question loading, gold-location matching, scoring, runs,
reports. ``from gateway.eval import chunk_hits_gold, doc_matches, load_questions``."""

from gateway.eval.gold import (
    GoldLevel,
    chunk_hits_gold,
    doc_matches,
    gold_level,
    heading_key,
    location_hits_gold,
    path_key,
    section_hits_gold,
)
from gateway.eval.questions import (
    GoldPage,
    Question,
    QuestionFormatError,
    load_questions,
    parse_question,
)

__all__ = sorted(
    [
        "GoldLevel",
        "GoldPage",
        "Question",
        "QuestionFormatError",
        "chunk_hits_gold",
        "doc_matches",
        "gold_level",
        "heading_key",
        "load_questions",
        "location_hits_gold",
        "parse_question",
        "path_key",
        "section_hits_gold",
    ]
)
