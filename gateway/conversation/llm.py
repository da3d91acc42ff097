"""The LLM's part in conversations, when one is configured: rewrite a follow-up into a
standalone question, write the rolling summary, and give a cross-language question's key terms
in the documents' language.

One chat call each, JSON-schema constrained (``{"question": str}`` / ``{"summary": str}`` /
``{"text": str}``), replies repaired with ``json-repair``. The rules' rewrite is given to the
model as a draft; a reply that is empty, longer than 400 characters, or drops every content word
of the draft and the follow-up is refused (the rules' rewrite stands).

Cross-language key terms: the model translates the question (a short system prompt, a reply of
at most 80 characters); the terms are the translation's words (:func:`translation_terms`), and
the translation itself, an invented number taken out (:func:`translation_phrase`), is searched
with the question when the collection holds one of its terms.
Tried with Qwen2.5-Coder-1.5B (Q4_K_M) on the first 8 English zh-PDF dev questions: asked for
"the key terms translated" it kept the English words in 3 of 8 (``["SPI", "flash",
"ESP32-PICO-D4", "capacity"]``); asked to translate, it wrote 8 Chinese questions (存储温度,
擦写, 灵敏度) in about half the time, 2 with an invented answer ("…的默认GPIB地址是12。"),
whose numbers are dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import rjieba
from json_repair import repair_json

from corpus.zh_numerals import cn_to_int, number_values
from gateway.conversation.english_terms import STOP_WORDS
from gateway.conversation.items import words
from gateway.conversation.memory import SessionMemory
from gateway.conversation.rewrite import Rewrite
from loop.llm_client import AsyncLLMClient

__all__ = ["KeyTerms", "LLMConversation", "translation_phrase", "translation_terms"]

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
    "Translate the user's question into {language}, with the terms documents in {language} "
    'use. Do not answer it. Reply with JSON: {{"text": "..."}}'
)
#: the reply: one string of at most 80 characters (a translated question, never an essay)
_T_SCHEMA = {"type": "object", "properties": {"text": {"type": "string", "maxLength": 80}},
             "required": ["text"]}
_HAN = re.compile(r"[\u4e00-\u9fff]")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_NUMBER = re.compile(r"(?<![A-Za-z0-9])\d+(?:[.,]\d+)*(?![A-Za-z0-9])")
#: a quantity in Chinese numerals with its unit (六个月, 三十日, 两倍), not an ordinal (第三条)
_CN_QUANTITY = re.compile(r"(?<!第)([零〇一二两三四五六七八九十百千]+[万亿]?)"
                          r"(个?(?:年|月|日|天|周|星期|小时|分钟|秒|次|倍|岁|元|米|人|项|份|%|％))")
#: Chinese question and function words, no key term (多少 is not "number amount")
_ZH_FUNCTION = frozenset("多少 什么 哪些 哪个 哪里 如何 怎么 怎样 为何 为什么 是否 多久 多长 "
                         "多大 几个 几天 几次 可以 应该 应当 必须 需要 以及 或者 还是 这个 "
                         "那个 其中".split())
#: most terms taken from one translation
MAX_TERMS = 12


@dataclass(frozen=True, slots=True)
class KeyTerms:
    """A question's key terms in the documents' language: ``terms`` (at most
    :data:`MAX_TERMS`), the model's ``translation`` they were taken from, and ``phrase``: the
    translation searched with the question (:func:`translation_phrase`)."""

    terms: tuple[str, ...]
    translation: str
    phrase: str = ""
    #: the call's tokens (from the server's ``usage``; 0 when it sends none)
    prompt_tokens: int = 0
    completion_tokens: int = 0


def translation_phrase(translation: str, question: str) -> str:
    """``translation`` without the numbers ``question`` does not hold (an invented answer:
    "…的默认GPIB地址是12。" for a question with no number), spaces collapsed. A number in
    Chinese numerals (``六个月``) counts too, against the question's numbers in any script
    (``three years`` = 三年): a new-user trial's "how long may the probation period be for a
    contract of three years or more?" was searched with "…三年以上劳动合同的试用期不得超过
    六个月" — the model's answer — appended; an ordinal (``第三条``) stays."""
    kept = _NUMBER.sub(lambda m: m.group(0) if m.group(0) in question else "", translation)
    asked = number_values(question)
    kept = _CN_QUANTITY.sub(
        lambda m: m.group(0) if float(cn_to_int(m.group(1))) in asked else "", kept)
    return " ".join(kept.split())


def translation_terms(translation: str, question: str, language: str) -> tuple[str, ...]:
    """The key terms of a model's ``translation`` of ``question`` into ``language``
    (``zh`` / ``en``), in order, at most :data:`MAX_TERMS`: Chinese words of two characters or
    more (``rjieba``, question and function words left out), or English words of three letters
    or more that are no stop word and not already in ``question``. Numbers and codes are never
    terms: the question carries its own, and a model's extra ones are an invented answer."""
    if language == "zh":
        cut = [w.strip() for w in rjieba.cut(translation)]
        found = [w for w in cut if len(w) >= 2 and all(_HAN.match(ch) for ch in w)
                 and w not in _ZH_FUNCTION]
    else:
        own = {w.lower() for w in _LATIN_WORD.findall(question)}
        found = [w.lower() for w in _LATIN_WORD.findall(translation)
                 if len(w) >= 3 and w.lower() not in STOP_WORDS and w.lower() not in own]
    return tuple(dict.fromkeys(found))[:MAX_TERMS]


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

    async def key_terms(self, question: str, language: str) -> KeyTerms:
        """The model's translation of ``question`` into ``language`` (``zh`` / ``en``) and its
        key terms (:func:`translation_terms`; none when the reply holds no text). One call of
        at most 64 generated tokens.

        :raises loop.errors.LLMError: the call failed.
        """
        name = "Simplified Chinese" if language == "zh" else "English"
        reply = await self.llm.chat(
            [{"role": "system", "content": _TERMS_SYSTEM.format(language=name)},
             {"role": "user", "content": question}],
            json_schema=_T_SCHEMA, max_tokens=min(64, self.max_tokens))
        text = _field(reply.content, "text")[:200]
        return KeyTerms(translation_terms(text, question, language), text,
                        translation_phrase(text, question), reply.prompt_tokens,
                        reply.completion_tokens)

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
