"""The two answer paths behind the router's protocols (``gateway.routing.types``), over the
real ``rag`` and ``loop`` components the wiring passes in.

- :class:`HybridRagEngine` (``RagBackend``): hybrid retrieval, extractive or grounded LLM answer;
- :class:`LoopAgentEngine` (``LoopBackend``): the LoopAgent, its steps as progress events;
- :class:`CacheAdapter` (``AnswerCache``) and :class:`RetrieverSearch` (the LoopAgent's search);
- :class:`SharedUnitEmbedder`: the offline LoopAgent's evidence vectors shared across requests.
"""

from gateway.engines.adapters import CacheAdapter, RetrieverSearch
from gateway.engines.loop_engine import LoopAgentEngine, describe_step
from gateway.engines.rag_engine import HybridRagEngine
from gateway.engines.unit_embedder import SharedUnitEmbedder

__all__ = ["CacheAdapter", "HybridRagEngine", "LoopAgentEngine", "RetrieverSearch",
           "SharedUnitEmbedder", "describe_step"]
