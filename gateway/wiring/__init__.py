"""The composition root: builds every component of a gateway process from settings, once, at
start-up, and is the only part of the gateway that names the concrete ``corpus``, ``rag`` and
``loop`` classes (everything else talks to protocols or takes what it is given).

- :mod:`gateway.wiring.components` – :class:`Components`, what one process holds;
- :mod:`gateway.wiring.build` – :func:`build_components` (store, tokenizer, embedder, then
  :func:`assemble`: engines, cache, route log, metrics, conversation, router, ingest jobs,
  migration dispatcher);
- :mod:`gateway.wiring.factories` – the single factories the CLI also uses (store, tokenizer,
  embedder, retriever, LLM configuration, directory builder);
- :mod:`gateway.wiring.model_check` – collections with dense vectors but no model loaded.
"""

from gateway.wiring.build import assemble, build_components
from gateway.wiring.components import Components
from gateway.wiring.factories import (
    build_retriever,
    catalogue_directory,
    directory_builder,
    get_embedder,
    get_tokenizer,
    llm_config,
    open_collection,
    open_store,
    retrieval_config,
)
from gateway.wiring.model_check import dense_without_model, no_model_message

__all__ = [
    "Components",
    "assemble",
    "build_components",
    "build_retriever",
    "catalogue_directory",
    "dense_without_model",
    "directory_builder",
    "get_embedder",
    "get_tokenizer",
    "llm_config",
    "no_model_message",
    "open_collection",
    "open_store",
    "retrieval_config",
]
