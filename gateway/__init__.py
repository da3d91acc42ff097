"""Gateway: composition root — settings, HTTP API, router, answer cache, route log, metrics, CLI."""
