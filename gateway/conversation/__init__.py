"""Conversations (issue 16): session memory in Redis, and follow-ups rewritten into standalone
questions (rules without an LLM, the LLM when configured)."""

from gateway.conversation.items import ItemList, find_anchor, item_lists
from gateway.conversation.memory import (
    FactCard,
    MemoryLimits,
    RetrievalState,
    SessionMemory,
    TurnRecord,
    bound,
    estimate_tokens,
    memory_tokens,
)
from gateway.conversation.rewrite import Rewrite, is_followup, resolve_dates, rewrite_rules
from gateway.conversation.service import ConversationService, TurnContext
from gateway.conversation.store import Loaded, SessionStore, session_key

__all__ = [
    "ConversationService",
    "FactCard",
    "ItemList",
    "Loaded",
    "MemoryLimits",
    "RetrievalState",
    "Rewrite",
    "SessionMemory",
    "SessionStore",
    "TurnContext",
    "TurnRecord",
    "bound",
    "estimate_tokens",
    "find_anchor",
    "is_followup",
    "item_lists",
    "memory_tokens",
    "resolve_dates",
    "rewrite_rules",
    "session_key",
]
