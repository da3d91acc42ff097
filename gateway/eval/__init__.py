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
from gateway.eval.compare import compare_summaries, load_summary, render_comparison
from gateway.eval.harness import EvalRun, run_eval, write_outputs
from gateway.eval.questions import (
    GoldPage,
    Question,
    QuestionFormatError,
    load_questions,
    parse_question,
)
from gateway.eval.scoring import answer_contains, is_refusal, normalise_answer, score_question
from gateway.eval.summary import auroc, compare_with_baseline, load_baseline, summarise
from gateway.eval.types import AnswerRecord, Answerer, EvalMode, Location

__all__ = sorted(
    [
        "AnswerRecord",
        "Answerer",
        "EvalMode",
        "EvalRun",
        "GoldLevel",
        "Location",
        "answer_contains",
        "auroc",
        "compare_summaries",
        "compare_with_baseline",
        "is_refusal",
        "load_baseline",
        "load_summary",
        "normalise_answer",
        "render_comparison",
        "run_eval",
        "score_question",
        "summarise",
        "write_outputs",
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
