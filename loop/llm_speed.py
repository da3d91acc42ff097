"""How fast the configured LLM is, measured once, and the loop budgets that follow (issue 14
item 4): on a 2-core machine a small local model takes seconds to minutes per call, so fixed
defaults either cut every LLM answer off (the 20 s deadline was shorter than one turn of the
local 1.5B model) or let a hung call hold a request for minutes.

:func:`probe_speed` sends two short calls through the real client: a prompt of about
``PROBE_PROMPT_TOKENS`` tokens with ``max_tokens=1`` (prompt speed), then a prompt of a few
tokens asking for ``PROBE_COMPLETION_TOKENS`` tokens (generation speed: its completion tokens
over the whole call's time, a lower bound). Token counts are the server's ``usage``; times are
wall clock, so a loaded machine measures slow — which is what the budgets must fit.
:func:`fit_budgets` turns a speed into the per-call timeout and the loop deadline of the
line-reading protocol's pick step.

Usage example::

    speed = await probe_speed(client)            # LLMSpeed(prompt_tps=9.8, gen_tps=4.1, ...)
    budgets = fit_budgets(speed)                 # Budgets(call_timeout_s=..., deadline_s=...)
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from loop.errors import LLMProtocolError
from loop.llm_client import AsyncLLMClient

__all__ = ["Budgets", "LLMSpeed", "fit_budgets", "probe_speed"]

PROBE_PROMPT_TOKENS = 120  # roughly: the filler below is ~120 tokens with Qwen2.5's tokenizer
PROBE_COMPLETION_TOKENS = 16
_FILLER = " ".join(f"item {i} is ready;" for i in range(1, 31))
# the pick step as measured (benchmarks/loop_eval.py --protocol pick, 33 zh-PDF questions,
# Qwen2.5-Coder-1.5B Q4_K_M): 266-449 prompt tokens (about 110 of them the cached system
# prompt) and 21-30 completion tokens per call
PICK_PROMPT_TOKENS = 450
PICK_COMPLETION_TOKENS = 30
# a server that sends no usage: 1 token per call was assumed, and a reply taking 1 s measured
# 1 tok/s, which sized every budget to the 600 s cap (request deadline 610 s)
_NO_USAGE = "the LLM server reports no token counts ({}): its speed cannot be measured"
SAFETY = 2.0  # a call may take twice the estimate (load varies minute to minute)
OFFLINE_S = 5.0  # the offline pass before the model (search, read, rank): < 1 s measured


@dataclass(frozen=True, slots=True)
class LLMSpeed:
    """Measured speed: prompt and generation tokens per second (> 0; a request's fixed cost
    is inside the prompt speed), and when it was measured (``time.time()``)."""

    prompt_tps: float
    gen_tps: float
    measured_at: float

    def call_s(self, prompt_tokens: int, completion_tokens: int) -> float:
        """Estimated seconds of one call (no prompt cache assumed)."""
        return prompt_tokens / self.prompt_tps + completion_tokens / self.gen_tps


@dataclass(frozen=True, slots=True)
class Budgets:
    """``call_timeout_s`` for ``LLMConfig.timeout_s`` and ``deadline_s`` for
    ``LoopConfig.deadline_s``, both seconds."""

    call_timeout_s: float
    deadline_s: float


async def probe_speed(client: AsyncLLMClient) -> LLMSpeed:
    """Two calls through ``client`` (see the module docstring).

    :raises loop.errors.LLMError: a call failed, or the server reports no token counts
        (``usage`` missing or 0: no speed can be measured; the caller keeps its configured
        budgets).
    """
    # a fresh number first: a server's prompt cache must not serve the filler from an earlier
    # probe (measured: 675 tok/s on a repeat, ~16 uncached)
    nonce = f"{time.time_ns() % 10**9}"
    t0 = time.perf_counter()
    a = await client.chat([{"role": "user", "content": f"Probe {nonce}: {_FILLER}\nReply OK."}],
                          max_tokens=1)
    ta = time.perf_counter() - t0
    if a.prompt_tokens <= 0:
        raise LLMProtocolError(_NO_USAGE.format("usage.prompt_tokens"))
    t1 = time.perf_counter()
    b = await client.chat([{"role": "user", "content": f"Probe {nonce}: count from 1 to 40, "
                                                       "one number per line, nothing else."}],
                          max_tokens=PROBE_COMPLETION_TOKENS)
    tb = time.perf_counter() - t1
    if b.completion_tokens <= 0:
        raise LLMProtocolError(_NO_USAGE.format("usage.completion_tokens"))
    prompt_tps = max(a.prompt_tokens, 1) / max(ta, 1e-3)
    # the whole second call counts as generation: its prompt shares the chat template's prefix
    # with the first (a server's prompt cache skips it), so subtracting its prompt at the first
    # call's speed overstated generation (measured: 56.6 tok/s, where the server's own timings
    # give ~16): a lower bound, larger budgets
    gen_tps = max(b.completion_tokens, 1) / max(tb, 1e-3)
    return LLMSpeed(round(prompt_tps, 2), round(gen_tps, 2), time.time())


def fit_budgets(speed: LLMSpeed, *, prompt_tokens: int = PICK_PROMPT_TOKENS,
                completion_tokens: int = PICK_COMPLETION_TOKENS, calls: int = 2,
                floor_s: float = 10.0, cap_s: float = 600.0) -> Budgets:
    """Budgets for ``calls`` calls (the pick step and its one re-ask) of ``prompt_tokens`` /
    ``completion_tokens`` at ``speed``: per call ``SAFETY`` × the estimate, the deadline the
    offline pass plus ``calls`` such calls; both within ``[floor_s, cap_s]``."""
    call = min(cap_s, max(floor_s, SAFETY * speed.call_s(prompt_tokens, completion_tokens)))
    return Budgets(round(call, 1), round(min(cap_s, max(floor_s, OFFLINE_S + calls * call)), 1))
