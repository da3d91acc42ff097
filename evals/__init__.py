"""Evaluation harness (issue 4): question loading, gold-location matching, scoring, runs,
reports. ``from evals import chunk_hits_gold, doc_matches, load_questions``."""

from evals.compare import compare_summaries, load_summary, render_comparison
from evals.gold import (
    GoldLevel,
    chunk_hits_gold,
    doc_matches,
    gold_level,
    heading_key,
    location_hits_gold,
    path_key,
    section_hits_gold,
)
from evals.harness import EvalRun, run_eval, write_outputs
from evals.questions import (
    GoldPage,
    Question,
    QuestionFormatError,
    load_questions,
    parse_question,
)
from evals.scoring import answer_contains, is_refusal, normalise_answer, score_question
from evals.summary import auroc, compare_with_baseline, load_baseline, summarise
from evals.types import Answerer, AnswerRecord, EvalMode, Location

__all__ = [
    "AnswerRecord",
    "Answerer",
    "EvalMode",
    "EvalRun",
    "GoldLevel",
    "GoldPage",
    "Location",
    "Question",
    "QuestionFormatError",
    "answer_contains",
    "auroc",
    "chunk_hits_gold",
    "compare_summaries",
    "compare_with_baseline",
    "doc_matches",
    "gold_level",
    "heading_key",
    "is_refusal",
    "load_baseline",
    "load_questions",
    "load_summary",
    "location_hits_gold",
    "normalise_answer",
    "parse_question",
    "path_key",
    "render_comparison",
    "run_eval",
    "score_question",
    "section_hits_gold",
    "summarise",
    "write_outputs",
]
