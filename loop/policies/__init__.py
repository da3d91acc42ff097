"""Reading policies: LLM native tools, LLM JSON actions, LLM line reading, offline."""

from loop.policies.llm_json import LLMJsonPolicy
from loop.policies.llm_read import LLMReadPolicy
from loop.policies.llm_tools import LLMToolsPolicy
from loop.policies.offline import OfflinePolicy

__all__ = ["LLMJsonPolicy", "LLMReadPolicy", "LLMToolsPolicy", "OfflinePolicy"]
