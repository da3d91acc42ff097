"""Native tool-calling reading policy: OpenAI ``tools`` / ``tool_calls`` (capable servers:
vLLM, cloud APIs, llama-cpp-python's ``chatml-function-calling``).

Tool results go back as ``role: tool`` messages, or as user turns when the server's chat
template needs that (``LLMConfig.tool_results_as_user``). A reply with text but no tool call is
parsed as a JSON action; failing that, the model is re-asked once in the same turn.
"""

from __future__ import annotations

import json
from typing import Any

from loop.controller import MAX_CALLS_PER_TURN, LoopState
from loop.errors import LLMProtocolError
from loop.llm_client import AsyncLLMClient
from loop.policies.base import LAST_STEP, SYSTEM_PROMPT, ChatPolicy, Turn
from loop.policies.llm_json import parse_action
from loop.tools import TOOLS
from loop.types import ToolCall, ToolResult

__all__ = ["LLMToolsPolicy", "OPENAI_TOOLS"]

OPENAI_TOOLS: list[dict[str, Any]] = [t.openai_schema() for t in TOOLS.values()]
REASK = "Call one of the tools now (answer ends the work)."


class LLMToolsPolicy(ChatPolicy):
    """Reads through an LLM with native tool calls.

    Usage example::

        policy = LLMToolsPolicy(client, first_user_message)
        result = await drive(policy, state)
    """

    def __init__(self, client: AsyncLLMClient, first_user: str) -> None:
        super().__init__(client, first_user, system=SYSTEM_PROMPT, protocol="tools")
        self.as_user = client.config.tool_results_as_user

    async def propose(self, state: LoopState) -> Turn:
        """The calls of one assistant reply (one LLM call; two when it called no tool)."""
        turn = Turn()
        text = ""
        for attempt in range(2):
            msgs = list(self.messages)
            if state.last_turn:
                msgs.append({"role": "user", "content": LAST_STEP})
            if attempt:
                msgs += [{"role": "assistant", "content": text}, {"role": "user", "content": REASK}]
            reply = await self.client.chat(msgs, tools=OPENAI_TOOLS)
            turn.count(reply)
            calls = reply.tool_calls
            if not calls and (parsed := parse_action(reply.content)) is not None:
                calls = [ToolCall(parsed.name, parsed.arguments, f"call_t{state.turn}")]
            if calls:
                calls = [c if c.call_id else ToolCall(c.name, c.arguments, f"call_{i}")
                         for i, c in enumerate(calls[:MAX_CALLS_PER_TURN])]
                self.messages.append({"role": "assistant", "content": reply.content or None,
                                      "tool_calls": [
                    {"id": c.call_id, "type": "function", "function": {
                        "name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)}}
                    for c in calls]})
                turn.calls = calls
                turn.note = "re-asked once" if attempt else ""
                return turn
            text = reply.content[:2000]
        raise LLMProtocolError(f"no tool call after a re-ask: {text[:200]!r}")

    def observe(self, call: ToolCall, result: ToolResult) -> None:
        """Send the result back (``role: tool`` with the call id, or a user turn)."""
        body = result.text() or "(empty)"
        if self.as_user:
            self.messages.append({"role": "user", "content": f"Result of {call.name}:\n{body}"})
        else:
            self.messages.append({"role": "tool", "tool_call_id": call.call_id, "content": body})
