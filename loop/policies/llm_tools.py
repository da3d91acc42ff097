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
from loop.llm_client import AsyncLLMClient, ChatReply
from loop.policies.base import LAST_STEP, SYSTEM_PROMPT, ChatPolicy
from loop.policies.llm_json import parse_action
from loop.tools import TOOLS
from loop.types import ToolCall, ToolResult

__all__ = ["LLMToolsPolicy", "OPENAI_TOOLS"]

OPENAI_TOOLS: list[dict[str, Any]] = [t.openai_schema() for t in TOOLS.values()]
REASK = "Call one of the tools now (answer ends the work)."


class LLMToolsPolicy(ChatPolicy):
    """Reads through an LLM with native tool calls (usage:
    :class:`~loop.policies.base.ChatPolicy`)."""

    reask = REASK
    no_call = "no tool call"

    def __init__(self, client: AsyncLLMClient, first_user: str) -> None:
        super().__init__(client, first_user, system=SYSTEM_PROMPT, protocol="tools")
        self.as_user = client.config.tool_results_as_user

    def _prompt(self, state: LoopState) -> list[dict[str, Any]]:
        """The conversation; on the last turn, the last-step note as a user message after it."""
        msgs = list(self.messages)
        if state.last_turn:
            msgs.append({"role": "user", "content": LAST_STEP})
        return msgs

    async def _chat(self, msgs: list[dict[str, Any]]) -> ChatReply:
        """One call offering :data:`OPENAI_TOOLS`."""
        return await self.client.chat(msgs, tools=OPENAI_TOOLS)

    def _calls(self, reply: ChatReply, state: LoopState) -> list[ToolCall]:
        """The reply's tool calls (else its text parsed as a JSON action), at most
        ``MAX_CALLS_PER_TURN``, each with a call id, recorded as the assistant's tool calls."""
        calls = reply.tool_calls
        if not calls and (parsed := parse_action(reply.content)) is not None:
            calls = [ToolCall(parsed.name, parsed.arguments, f"call_t{state.turn}")]
        if not calls:
            return []
        calls = [c if c.call_id else ToolCall(c.name, c.arguments, f"call_{i}")
                 for i, c in enumerate(calls[:MAX_CALLS_PER_TURN])]
        self.messages.append({"role": "assistant", "content": reply.content or None,
                              "tool_calls": [
            {"id": c.call_id, "type": "function", "function": {
                "name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)}}
            for c in calls]})
        return calls

    def observe(self, call: ToolCall, result: ToolResult) -> None:
        """Send the result back (``role: tool`` with the call id, or a user turn)."""
        body = result.text() or "(empty)"
        if self.as_user:
            self.messages.append({"role": "user", "content": f"Result of {call.name}:\n{body}"})
        else:
            self.messages.append({"role": "tool", "tool_call_id": call.call_id, "content": body})
