"""Typed models of an OpenAI-compatible chat-completions reply, and the one parser every reply
goes through (:func:`parse_completion`).

The shape follows the OpenAI chat-completions response (``choices[].message`` with ``content``
and ``tool_calls[].function.{name, arguments}``, ``usage.{prompt,completion}_tokens``) as served
by OpenAI, vLLM, Ollama and llama.cpp. Unknown fields are ignored; anything that does not fit
(``"choices": "notalist"``, no choice, a message that is not an object, negative token counts)
raises :class:`loop.errors.LLMProtocolError`, an LLM fault like a timeout or an HTTP 500.

Usage example::

    data = parse_completion(b'{"choices": [{"message": {"content": "hi"}}]}')
    data.choices[0].message.text(), data.usage.prompt_tokens
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from loop.errors import LLMProtocolError
from loop.types import ToolCall

__all__ = ["ChatCompletion", "Choice", "FunctionCall", "Message", "RawToolCall", "Usage",
           "parse_completion"]


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class FunctionCall(_Lenient):
    """``tool_calls[].function``: ``name`` and ``arguments`` (a JSON text, or already an object)."""

    name: str = ""
    arguments: str | dict[str, Any] | list[Any] | int | float | bool | None = None


class RawToolCall(_Lenient):
    """One native tool call as the server sent it."""

    id: str | None = None
    type: str | None = None
    function: FunctionCall


class Message(_Lenient):
    """``choices[].message``: ``content`` is a string, ``null`` or a list of content parts
    (``{"type": "text", "text": …}``); ``tool_calls`` a list or ``null``."""

    role: str | None = None
    content: str | list[dict[str, Any]] | None = None
    tool_calls: list[RawToolCall] | None = None

    def text(self) -> str:
        """The assistant text (content parts joined; ``""`` when none)."""
        if self.content is None:
            return ""
        if isinstance(self.content, str):
            return self.content
        return "".join(str(p.get("text") or "") for p in self.content)

    def calls(self) -> list[ToolCall]:
        """Tool calls with object arguments; arguments that are not a JSON object are kept as
        ``{"__raw__": text}`` so the caller can tell the model its call was malformed."""
        out: list[ToolCall] = []
        for i, raw in enumerate(self.tool_calls or []):
            args_raw = raw.function.arguments
            args: Any = args_raw
            if args_raw is None:
                args = {}
            elif isinstance(args_raw, str):
                try:
                    args = json.loads(args_raw) if args_raw.strip() else {}
                except json.JSONDecodeError:
                    args = {"__raw__": args_raw}
            if not isinstance(args, dict):
                args = {"__raw__": args_raw if isinstance(args_raw, str) else json.dumps(args)}
            out.append(ToolCall(raw.function.name, args, raw.id or f"call_{i}"))
        return out


class Choice(_Lenient):
    """``choices[]``: the ``message`` and why generation stopped (``stop``, ``length`` …)."""

    message: Message = Field(default_factory=Message)
    finish_reason: str | None = None


class Usage(_Lenient):
    """Token counts (``0`` when the server sends ``null``)."""

    prompt_tokens: int = Field(0, ge=0)
    completion_tokens: int = Field(0, ge=0)

    @field_validator("prompt_tokens", "completion_tokens", mode="before")
    @classmethod
    def _none_is_zero(cls, v: Any) -> Any:
        return 0 if v is None else v


class ChatCompletion(_Lenient):
    """A chat-completions reply: at least one choice, optional usage."""

    choices: list[Choice] = Field(min_length=1)
    usage: Usage | None = None


def parse_completion(body: bytes | str) -> ChatCompletion:
    """Parse and validate one reply body.

    :param body: the HTTP response body (UTF-8 JSON).
    :returns: the validated :class:`ChatCompletion`.
    :raises LLMProtocolError: the body is not JSON, or not the chat-completions shape (the
        message names the first offending field and quotes the body's first 200 characters).
    """
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise LLMProtocolError(f"reply is not JSON ({exc}): {text[:200]!r}") from exc
    try:
        return ChatCompletion.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err.get("loc", ())) or "reply"
        raise LLMProtocolError(
            f"reply is not a chat completion ({where}: {err.get('msg')}): {text[:200]!r}"
        ) from exc
