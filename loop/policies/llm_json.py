"""JSON-action reading policy: the model returns one JSON object per turn,
``{"tool": NAME, "arguments": {...}}``, constrained by a JSON schema through ``response_format``
(what small local models follow best; DESIGN.md "A small local LLM").

Replies are parsed leniently (code fences stripped, the first balanced object extracted,
trailing commas removed, ``name``/``action`` and ``args``/``parameters`` accepted); a reply
that still is not an action is re-asked once in the same turn.
"""

from __future__ import annotations

import json
import re
from typing import Any

from loop.controller import LoopState
from loop.llm_client import AsyncLLMClient, ChatReply
from loop.policies.base import LAST_STEP, SYSTEM_PROMPT, ChatPolicy
from loop.tools import TOOLS
from loop.types import ToolCall, ToolResult

__all__ = ["ACTION_SCHEMA", "JSON_SYSTEM_PROMPT", "LLMJsonPolicy", "parse_action"]

ACTION_SCHEMA: dict[str, Any] = {"anyOf": [
    {"type": "object", "properties": {"tool": {"const": t.name}, "arguments": t.parameters},
     "required": ["tool", "arguments"], "additionalProperties": False}
    for t in TOOLS.values()
]}
JSON_SYSTEM_PROMPT = (SYSTEM_PROMPT + "\nReply with exactly one JSON object per step: "
                      "{\"tool\": \"<name>\", \"arguments\": {...}}. No other text.")
REASK = ("Your reply was not a valid action. Reply with one JSON object only, e.g. "
         "{\"tool\": \"search\", \"arguments\": {\"query\": \"...\"}}.")
_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*|\s*```\s*$")


def _first_object(text: str) -> str | None:
    start = text.find("{")
    while start >= 0:
        depth, in_str, esc = 0, False, False
        for i in range(start, len(text)):
            ch = text[i]
            if in_str:
                esc = (ch == "\\") and not esc
                if ch == '"' and not esc:
                    in_str = False
                continue
            if ch == '"':
                in_str = True
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return text[start:i + 1]
        start = text.find("{", start + 1)
    return None


def parse_action(text: str) -> ToolCall | None:
    """A tool call from a model's JSON reply, or ``None`` when none can be recovered."""
    body = _FENCE.sub("", text.strip())
    candidates = [body]
    obj_text = _first_object(body)
    if obj_text:
        candidates += [obj_text, re.sub(r",\s*([}\]])", r"\1", obj_text)]
    for cand in candidates:
        try:
            data = json.loads(cand)
        except (json.JSONDecodeError, ValueError):
            continue
        if not isinstance(data, dict):
            continue
        name = data.get("tool") or data.get("name") or data.get("action")
        args = data.get("arguments", data.get("args", data.get("parameters")))
        if name is None and len(data) == 1:
            name, args = next(iter(data.items()))
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except json.JSONDecodeError:
                args = {"__raw__": args}
        if isinstance(name, str) and isinstance(args, dict):
            return ToolCall(name.strip(), args)
    return None


class LLMJsonPolicy(ChatPolicy):
    """Reads through an LLM in JSON-action mode (usage: :class:`~loop.policies.base.ChatPolicy`)."""

    reask = REASK
    no_call = "no valid JSON action"

    def __init__(self, client: AsyncLLMClient, first_user: str) -> None:
        super().__init__(client, first_user, system=JSON_SYSTEM_PROMPT, protocol="json")

    def _prompt(self, state: LoopState) -> list[dict[str, Any]]:
        """The conversation; on the last turn, its last message ends with the last-step note."""
        msgs = self.messages
        if state.last_turn:
            last = {**msgs[-1], "content": msgs[-1]["content"] + "\n\n" + LAST_STEP}
            msgs = [*msgs[:-1], last]
        return msgs

    async def _chat(self, msgs: list[dict[str, Any]]) -> ChatReply:
        """One call constrained by :data:`ACTION_SCHEMA`."""
        return await self.client.chat(msgs, json_schema=ACTION_SCHEMA)

    def _calls(self, reply: ChatReply, state: LoopState) -> list[ToolCall]:
        """The reply's JSON action (else its first native tool call), recorded as JSON."""
        call = parse_action(reply.content)
        if call is None and reply.tool_calls:
            call = reply.tool_calls[0]
        if call is None:
            return []
        self.messages.append({"role": "assistant", "content": json.dumps(
            {"tool": call.name, "arguments": call.arguments}, ensure_ascii=False)})
        return [call]

    def observe(self, call: ToolCall, result: ToolResult) -> None:
        """Send the result back as a user turn."""
        self.messages.append({"role": "user",
                              "content": f"Result of {call.name}:\n{result.text() or '(empty)'}"})
