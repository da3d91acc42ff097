"""LoopGate settings (pydantic-settings): environment variables ``LOOPGATE_*`` and an optional
``.env``-style file named by ``LOOPGATE_ENV_FILE``.

Every field is documented in docs/settings.md; ``tests/gateway/test_settings_documented.py``
checks that. Library packages (corpus, rag, loop) never read the environment: the gateway builds
their explicit config objects from these settings.

``model``: the :class:`Settings` fields and their validators; ``load``: :func:`get_settings`
(the process-wide settings, the settings file read), :func:`resolve_paths`,
:func:`unknown_settings` and :class:`SettingsFileError`.
"""

from gateway.settings.load import SettingsFileError, get_settings, resolve_paths, unknown_settings
from gateway.settings.model import Settings

__all__ = ["Settings", "SettingsFileError", "get_settings", "resolve_paths", "unknown_settings"]
