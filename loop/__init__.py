"""Deep-read path (LoopAgent): LLM client, tool set, loop controller, budgets, citation
checking, reading policies (LLM native tools, LLM line reading, LLM JSON actions, offline)."""

from loop.agent import LoopAgent, SimpleKeyTerms
from loop.citations import CitationCheck, check_citations
from loop.config import LLMConfig, LoopConfig
from loop.controller import LoopState, budget_stop, canonical_call, drive, next_step
from loop.errors import (
    LLMError,
    LLMHTTPError,
    LLMProtocolError,
    LLMTimeoutError,
    LoopError,
    StepLimitExceeded,
    ToolError,
)
from loop.llm_client import AsyncLLMClient, ChatReply
from loop.policies.llm_json import LLMJsonPolicy, parse_action
from loop.policies.llm_read import LLMReadPolicy
from loop.policies.llm_tools import LLMToolsPolicy
from loop.policies.offline import OfflinePolicy
from loop.results import LoopResult, StepEvent
from loop.tools import TOOLS, StoreKeywordSearch, Tool, ToolContext
from loop.types import (
    NOT_FOUND,
    DocumentDirectory,
    KeyTermExtractor,
    SearchBackend,
    ToolCall,
    ToolResult,
)

__all__ = [
    "AsyncLLMClient",
    "ChatReply",
    "CitationCheck",
    "DocumentDirectory",
    "KeyTermExtractor",
    "LLMConfig",
    "LLMError",
    "LLMHTTPError",
    "LLMJsonPolicy",
    "LLMProtocolError",
    "LLMReadPolicy",
    "LLMTimeoutError",
    "LLMToolsPolicy",
    "LoopAgent",
    "LoopConfig",
    "LoopError",
    "LoopResult",
    "LoopState",
    "NOT_FOUND",
    "OfflinePolicy",
    "SearchBackend",
    "SimpleKeyTerms",
    "StepEvent",
    "StepLimitExceeded",
    "StoreKeywordSearch",
    "TOOLS",
    "Tool",
    "ToolCall",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "budget_stop",
    "canonical_call",
    "check_citations",
    "drive",
    "next_step",
    "parse_action",
]
