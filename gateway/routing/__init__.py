"""How one question is routed: cache → RAG path → (escalate) LoopAgent → (fallback) broad RAG.

- :mod:`gateway.routing.router` – :class:`Router`, the orchestration (``Router.ask``);
- :mod:`gateway.routing.stages` – its stages and the one place timeouts are enforced;
  :mod:`gateway.routing.cache_stages` (``cache_get`` / ``cache_put``) and
  :mod:`gateway.routing.escalation` (the decision, the LoopAgent path and its fallback);
- :mod:`gateway.routing.types` – its input / output types and the protocols of the paths it
  drives (implemented by ``gateway.engines``);
- :mod:`gateway.routing.rules` – the pure decision rules (threshold rule, question signals);
- :mod:`gateway.routing.decompose` – multi-part / comparison questions split into parts (pure);
- :mod:`gateway.routing.elliptic` – a second part that is elliptic ("…, and the minimum?",
  CH583呢) filled from the first (pure; decompose rule ``elliptic``);
- :mod:`gateway.routing.plan` – the parts run concurrently and merged (plan-and-execute);
- :mod:`gateway.routing.followup` – is a question a follow-up of an earlier turn (pure);
- :mod:`gateway.routing.slots` – the place of an earlier question (or part) an elliptic phrase
  fills (pure; follow-ups and elliptic parts of one question);
- :mod:`gateway.routing.reference` – does a question lean on an earlier turn so much that it
  cannot be answered without one ("下一条呢？" asked first: "not found", flag
  ``unresolved_reference``);
- :mod:`gateway.routing.focus` – exclusion / contrast clauses taken out of the question read
  ("While the Marketing team …, what is …", ", not part of Finance,");
- :mod:`gateway.routing.conflict` – cited passages of two documents that disagree (stage
  ``conflict``), over the value statements and document dates of
  :mod:`gateway.routing.statements`;
- :mod:`gateway.routing.fit` – the fitted escalation rule (``routing.json``, ``calibrate
  --router``);
- :mod:`gateway.routing.trace` – :class:`RouteTrace`, the typed record the stages fill while a
  request runs, serialised once into the route dict;
- :mod:`gateway.routing.record` – :class:`RouteRecord`, that dict as the route log stores it.
"""

from gateway.routing import types as _types
from gateway.routing.decompose import Plan, decompose
from gateway.routing.fit import (
    ROUTER_FEATURES,
    RoutingModel,
    decision_features,
    fit_router,
    fitted_decision,
    load_routing_model,
)
from gateway.routing.plan import merge_parts
from gateway.routing.record import RouteRecord, ToolCallRecord, timed_out_names
from gateway.routing.reference import DanglingReference, dangling_reference, unresolved_answer
from gateway.routing.router import ReadAs, Router
from gateway.routing.rules import (
    Decision,
    Mode,
    RuleConfig,
    Signal,
    dated_query,
    decide,
    detect_signals,
    retrieval_query,
    search_query,
)
from gateway.routing.trace import RouteTrace
from gateway.routing.types import *  # noqa: F403  (its __all__, re-exported below)

__all__ = [
    "ROUTER_FEATURES",
    "DanglingReference",
    "Decision",
    "Mode",
    "Plan",
    "ReadAs",
    "RouteRecord",
    "RouteTrace",
    "Router",
    "RoutingModel",
    "RuleConfig",
    "Signal",
    "ToolCallRecord",
    "dangling_reference",
    "dated_query",
    "decide",
    "decompose",
    "decision_features",
    "detect_signals",
    "fit_router",
    "fitted_decision",
    "load_routing_model",
    "merge_parts",
    "retrieval_query",
    "search_query",
    "timed_out_names",
    "unresolved_answer",
]
__all__ += _types.__all__
