"""A follow-up asked with a history is never served from, nor stored in, the answer cache:
the cache key carries the question, not the history, so "and the year before?" in one
conversation got another conversation's cached answer (new-user trial, session 19). A
standalone question asked with a history, or a follow-up the conversation stage rewrote into a
standalone question, keeps the cache."""

from __future__ import annotations

from gateway.routing import QueryInput

_HISTORY = ({"role": "user", "content": "What was Nike's net income in FY2019?"},
            {"role": "assistant", "content": "NET INCOME, 2019: $ 4,029"})


def test_a_follow_up_with_history_is_not_cacheable() -> None:
    assert not QueryInput("and the year before?", "c", history=_HISTORY).cacheable()
    assert not QueryInput("What about its revenue?", "c", history=_HISTORY).cacheable()


def test_standalone_questions_keep_the_cache() -> None:
    assert QueryInput("and the year before?", "c").cacheable()  # no history: as asked
    assert QueryInput("What was Costco's net income in FY2021?", "c",
                      history=_HISTORY).cacheable()
    assert not QueryInput("What was Costco's net income in FY2021?", "c",
                          use_cache=False).cacheable()
