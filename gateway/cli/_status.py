"""Say what a command is doing while it does slow start-up work (found by a new-user trial: the
first ``loopgate ask`` loaded the embedding model for ~13 s and said nothing meanwhile).

:func:`slow_step` wraps one step: on a terminal a rich spinner with its text (``console.status``,
gone when the step ends); off a terminal (piped, CI, ``nohup``, ``TERM=dumb``) the text as a
line once the step has run :data:`SLOW_AFTER_S`, and ``… done in 12.9 s`` when it ends — a
step that is quick says nothing there. The CLI passes it to
``gateway.wiring.build_components(step=…)``; the server builds its components once at
start-up without it (its log says what failed), so no request ever shows one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

from rich.console import Console

__all__ = ["DICTIONARY", "SLOW_AFTER_S", "slow_step", "slow_steps"]

#: off a terminal, a step says what it does once it has run this long (seconds)
SLOW_AFTER_S = 1.0
#: what the question commands say while the CC-CEDICT index loads (1-4 s;
#: ``gateway.conversation.cedict.ready_before_first_question``)
DICTIONARY = "loading the cross-language dictionary …"


@contextmanager
def slow_step(console: Console, what: str, *, after_s: float | None = None) -> Iterator[None]:
    """Show ``what`` (``"loading the embedding model …"``) on ``console`` (stderr) while the
    block runs: a spinner on a terminal; elsewhere a line after ``after_s`` (default
    :data:`SLOW_AFTER_S`; 0: at once) and ``"<what> done in N.N s"`` at the end, nothing for
    a quicker block. Exceptions of the block pass through unchanged."""
    if console.is_terminal and not console.is_dumb_terminal:
        with console.status(what):
            yield
        return
    t0 = time.monotonic()
    said = threading.Event()

    def say() -> None:
        console.print(what, markup=False, highlight=False, soft_wrap=True)
        said.set()

    wait = SLOW_AFTER_S if after_s is None else after_s
    timer = threading.Timer(wait, say)
    timer.daemon = True
    if wait <= 0:
        say()  # at once
    else:
        timer.start()
    try:
        yield
    finally:
        timer.cancel()
        if timer.is_alive():
            timer.join()  # saying it right now: let the line end before the next
        if said.is_set():
            console.print(f"{what} done in {time.monotonic() - t0:.1f} s", markup=False,
                          highlight=False, soft_wrap=True)


def slow_steps(console: Console) -> Callable[[str], AbstractContextManager[None]]:
    """:func:`slow_step` on ``console`` for each step named: the ``step=`` argument of
    ``gateway.wiring.build_components``."""
    return lambda what: slow_step(console, what)
