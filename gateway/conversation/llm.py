"""The LLM's part in conversations, when one is configured: rewrite a follow-up into a
standalone question, write the rolling summary, and give a cross-language question's key terms
in the documents' language.

One chat call each, JSON-schema constrained (``{"question": str}`` / ``{"summary": str}``),
replies repaired with ``json-repair``. The rules' rewrite is given to the model as a draft;
a reply that is empty, longer than 400 characters, or drops every content word of the draft
and the follow-up is refused (the rules' rewrite stands).
"""

from __future__ import annotations

from json_repair import repair_json

from gateway.conversation.items import words
from gateway.conversation.memory import SessionMemory
from gateway.conversation.rewrite import Rewrite
from loop.llm_client import AsyncLLMClient

__all__ = ["LLMConversation"]

_REWRITE_SYSTEM = (
    "You rewrite the user's last question of a conversation into one standalone question that "
    "can be understood without the conversation: replace pronouns and phrases such as 'the "
    "next one' with what they refer to, keep the user's words and language otherwise, and do "
    'not answer it. Reply with one JSON object: {"question": "..."}.'
)
_SUMMARY_SYSTEM = (
    "Summarise the earlier turns of a conversation about documents in at most five short "
    "lines: what was asked and what was found (keep names, numbers and document names). "
    'Reply with one JSON object: {"summary": "..."}.'
)
_TERMS_SYSTEM = (
    "List the key terms of the user's question translated into {language}, as the documents "
    "would word them (names, codes and numbers as they are). Do not answer it. Reply with one "
    'JSON object: {{"terms": ["...", "..."]}}.'
)
_T_SCHEMA = {"type": "object", "properties": {"terms": {"type": "array",
                                                        "items": {"type": "string"}}},
             "required": ["terms"]}
_Q_SCHEMA = {"type": "object", "properties": {"question": {"type": "string"}},
             "required": ["question"]}
_S_SCHEMA = {"type": "object", "properties": {"summary": {"type": "string"}},
             "required": ["summary"]}


def _field(content: str, name: str) -> str:
    data = repair_json(content, return_objects=True)
    return str(data.get(name, "")).strip() if isinstance(data, dict) else ""


class LLMConversation:
    """Rewriter and summariser over ``loop.llm_client.AsyncLLMClient``.

    :param llm: the client (its circuit breaker and the request deadline apply).
    :param max_tokens: reply budget per call.
    """

    def __init__(self, llm: AsyncLLMClient, *, max_tokens: int = 160) -> None:
        self.llm = llm
        self.max_tokens = max_tokens

    async def rewrite(self, question: str, previous: str, memory: SessionMemory | None,
                      draft: Rewrite) -> str | None:
        """The model's standalone question, or ``None`` when its reply is unusable.

        :raises loop.errors.LLMError: the call failed (the caller keeps the rules' rewrite).
        """
        lines = [f"Summary of earlier turns: {' | '.join(memory.summary)}"] if (
            memory and memory.summary) else []
        for t in (memory.turns[-3:] if memory else []):
            lines.append(f"User: {t.rewritten}\nAssistant: {t.answer[:300]}")
        if not lines:
            lines.append(f"User: {previous}")
        lines.append(f"Last question: {question}\nDraft rewrite (may be wrong): {draft.question}")
        reply = await self.llm.chat(
            [{"role": "system", "content": _REWRITE_SYSTEM},
             {"role": "user", "content": "\n".join(lines)}],
            json_schema=_Q_SCHEMA, max_tokens=self.max_tokens)
        text = _field(reply.content, "question")
        known = set(words(draft.question)) | set(words(question)) | set(words(previous))
        if not text or len(text) > 400 or not (set(words(text)) & known):
            return None
        return text

    async def key_terms(self, question: str, language: str) -> list[str]:
        """The model's key terms of ``question`` in ``language`` (``zh`` / ``en``), at most 12.

        :raises loop.errors.LLMError: the call failed.
        """
        name = "Simplified Chinese" if language == "zh" else "English"
        reply = await self.llm.chat(
            [{"role": "system", "content": _TERMS_SYSTEM.format(language=name)},
             {"role": "user", "content": question}],
            json_schema=_T_SCHEMA, max_tokens=self.max_tokens)
        data = repair_json(reply.content, return_objects=True)
        terms = data.get("terms") if isinstance(data, dict) else None
        if not isinstance(terms, list):
            return []
        return [str(t)[:40] for t in terms if str(t).strip()][:12]

    async def summarise(self, memory: SessionMemory) -> str | None:
        """A model-written summary of ``memory.summary`` lines, or ``None``.

        :raises loop.errors.LLMError: the call failed.
        """
        if not memory.summary:
            return None
        reply = await self.llm.chat(
            [{"role": "system", "content": _SUMMARY_SYSTEM},
             {"role": "user", "content": "\n".join(memory.summary)}],
            json_schema=_S_SCHEMA, max_tokens=self.max_tokens * 2)
        text = _field(reply.content, "summary")
        return text[:1200] or None
