"""The composition root: builds every component of a gateway process from settings, once, at
start-up, and is the only part of the gateway that names the concrete ``corpus``, ``rag`` and
``loop`` classes (everything else talks to protocols or takes what it is given).

- :mod:`gateway.wiring.components` – :class:`Components`, what one process holds;
- :mod:`gateway.wiring.build` – :func:`build_components` (store, tokenizer, embedder, then
  :func:`assemble`: engines, cache, route log, metrics, conversation, router, ingest jobs,
  migration dispatcher);
- :mod:`gateway.wiring.factories` – the single factories the CLI also uses (store, tokenizer,
  embedder, retriever, LLM configuration, directory builder);
- :mod:`gateway.wiring.llm_budgets` – :func:`fit_llm_budgets`: the LLM's speed probed at
  start-up sizes the call timeout, loop deadline and request deadline;
- :mod:`gateway.wiring.model_check` – collections with dense vectors but no model loaded.
"""

from gateway.wiring import factories as _factories
from gateway.wiring.build import assemble, build_components
from gateway.wiring.components import Components
from gateway.wiring.factories import *  # noqa: F403  (its __all__, re-exported below)
from gateway.wiring.llm_budgets import describe as describe_budgets
from gateway.wiring.model_check import dense_without_model, no_model_message

__all__ = [
    "Components",
    "assemble",
    "build_components",
    "dense_without_model",
    "describe_budgets",
    "no_model_message",
]
__all__ += _factories.__all__
