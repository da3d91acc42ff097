"""The directory builder an ingest uses, from settings (issue 14 item 1; ``corpus.directory``).

``LOOPGATE_DIRECTORY``: ``off`` (none stored; the LoopAgent builds extractive entries when it
first scans a document), ``extractive`` (default: heading path, lead sentence, key terms), or
``llm`` (written by the configured LLM in batches of ``LOOPGATE_DIRECTORY_LLM_BATCH`` chunks,
cached by chunk content hash in ``<data_dir>/directory-cache.sqlite3``, extractive fallback;
extractive when no LLM is configured).
"""

from __future__ import annotations

from typing import Any

__all__ = ["directory_builder"]

CACHE_FILE = "directory-cache.sqlite3"


def directory_builder(settings: Any, tokenizer: Any) -> Any:
    """A :class:`corpus.directory_build.DirectoryBuilder` for ``settings.directory``, or
    ``None`` when it is ``off``."""
    if settings.directory == "off":
        return None
    from corpus.directory_build import DirectoryBuilder, EntryCache
    from gateway.assembly import llm_config

    cfg = llm_config(settings) if settings.directory == "llm" else None
    if cfg is None:
        return DirectoryBuilder(tokenizer)
    from dataclasses import replace

    from loop.entry_writer import LLMEntryWriter

    # one batch may take minutes on a small local model: its own HTTP timeout, one attempt
    cfg = replace(cfg, timeout_s=settings.directory_llm_timeout_s, max_retries=0)
    return DirectoryBuilder(tokenizer, writer=LLMEntryWriter(cfg),
                            cache=EntryCache(settings.data_dir / CACHE_FILE),
                            batch=settings.directory_llm_batch,
                            timeout_s=settings.directory_llm_timeout_s + 5)
