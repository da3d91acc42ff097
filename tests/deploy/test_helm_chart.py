"""The Helm chart rendered by Helm's own Go engine (helm-python-sdk binds the official Helm v4
SDK; no cluster, no helm binary), linted, every manifest validated against the Kubernetes 1.30
OpenAPI schemas (kubernetes-validate, strict), and its settings parsed by LoopGate's Settings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

helm = pytest.importorskip("helm_python", reason="helm-python-sdk (dev extra) is not installed")
kv = pytest.importorskip(
    "kubernetes_validate", reason="kubernetes-validate (dev extra) is not installed"
)

REPO = Path(__file__).resolve().parents[2]
CHART = REPO / "deploy/helm/loopgate"
K8S = "1.30.0"


def render(values: dict[str, Any] | None = None) -> dict[str, list[dict[str, Any]]]:
    """Rendered manifests grouped by kind (each validated against the Kubernetes schema)."""
    out = helm.Chart.load(str(CHART)).render(values or {}, name="lg", namespace="qa")
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for path, text in out.items():
        if path.endswith(".txt"):
            continue
        for doc in yaml.safe_load_all(text):
            if doc:
                kv.validate(doc, K8S, strict=True)
                by_kind.setdefault(doc["kind"], []).append(doc)
    return by_kind


def only(docs: dict[str, list[dict[str, Any]]], kind: str) -> dict[str, Any]:
    assert len(docs.get(kind, [])) == 1, f"expected one {kind}, got {len(docs.get(kind, []))}"
    return docs[kind][0]


def container(obj: dict[str, Any]) -> dict[str, Any]:
    return obj["spec"]["template"]["spec"]["containers"][0]


def test_lint_is_clean() -> None:
    report = helm.lint(str(CHART), strict=True, kube_version="v1.30.0")
    assert report["errors"] == []
    assert [m for m in report["messages"] if m["severity"] >= 2] == []


def test_default_render() -> None:
    docs = render()
    assert set(docs) == {
        "ConfigMap",
        "Deployment",
        "HorizontalPodAutoscaler",
        "PodDisruptionBudget",
        "Secret",
        "Service",
        "ServiceAccount",
    }
    dep = only(docs, "Deployment")
    assert "replicas" not in dep["spec"], "with autoscaling the HPA owns the replica count"
    hpa = only(docs, "HorizontalPodAutoscaler")
    assert hpa["spec"]["minReplicas"] == 2 and hpa["spec"]["maxReplicas"] == 10
    assert hpa["spec"]["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "lg-loopgate",
    }
    assert hpa["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"] == 70

    c = container(dep)
    assert c["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert c["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert c["startupProbe"]["httpGet"]["path"] == "/healthz"
    refs = {k: v["name"] for e in c["envFrom"] for k, v in e.items()}
    assert refs == {
        "configMapRef": only(docs, "ConfigMap")["metadata"]["name"],
        "secretRef": only(docs, "Secret")["metadata"]["name"],
    }
    pod = dep["spec"]["template"]["spec"]
    assert (
        pod["securityContext"]["runAsNonRoot"] is True
        and pod["securityContext"]["runAsUser"] == 10001
    )
    assert c["securityContext"]["readOnlyRootFilesystem"] is True
    assert {m["mountPath"] for m in c["volumeMounts"]} == {"/tmp", "/data"}
    svc = only(docs, "Service")
    assert svc["spec"]["ports"][0]["targetPort"] == "http"
    assert svc["spec"]["selector"] == dep["spec"]["selector"]["matchLabels"]

    env = only(docs, "ConfigMap")["data"]
    assert env["LOOPGATE_QDRANT_URL"].startswith("http://qdrant.")
    assert env["LOOPGATE_REDIS_URL"].startswith("redis://")


def test_fixed_replicas_without_autoscaling() -> None:
    docs = render({"replicaCount": 3, "autoscaling": {"enabled": False}})
    assert only(docs, "Deployment")["spec"]["replicas"] == 3
    assert "HorizontalPodAutoscaler" not in docs
    single = render({"replicaCount": 1, "autoscaling": {"enabled": False}, "qdrant": {"url": ""}})
    assert "PodDisruptionBudget" not in single  # one replica: nothing to keep available


def test_container_matches_the_dockerfile() -> None:
    import dockerfile

    cmds = dockerfile.parse_file(str(REPO / "deploy/Dockerfile"))
    entry = [c for c in cmds if c.cmd.upper() == "ENTRYPOINT"][-1].value
    cmd = [c for c in cmds if c.cmd.upper() == "CMD"][-1].value
    c = container(only(render(), "Deployment"))
    assert c["args"] == list(cmd)
    assert c["command"][:2] == list(entry[:2]) and c["command"][-1] == "--"


def test_settings_reach_loopgate_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    from gateway.migration import build_dispatcher
    from gateway.settings import Settings

    values = {
        "models": {"existingClaim": "models-pvc"},
        "llm": {"baseUrl": "http://vllm:8000/v1", "model": "qwen", "apiKey": "llm-key"},
        "migration": {
            "modes": {"manuals": "shadow", "hr": "canary:25"},
            "legacy": {
                "url": "http://rag.internal/ask",
                "body": {"q": "{question}", "k": 5},
                "sourceFields": '{"path": "meta.source"}',
                "answerPath": "data.answer",
                "sourcesPath": "data.docs",
                "apiKey": "legacy-token",
            },
            "existingCollections": {
                "old": {"qdrant_collection": "docs_v3", "text": "page_content"}
            },
        },
        "secrets": {"apiKeys": {"team-key-123456": ["manuals"]}},
        "settings": {"LOOPGATE_RAG_TOP_K": 7, "LOOPGATE_CACHE_TTL_S": "600"},
    }
    docs = render(values)
    env = dict(only(docs, "ConfigMap")["data"])
    env.update(only(docs, "Secret")["stringData"])
    fields = {f"LOOPGATE_{n.upper()}" for n in Settings.model_fields}
    assert set(env) <= fields, f"unknown settings in the chart: {sorted(set(env) - fields)}"
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    s = Settings()
    assert s.rag_top_k == 7 and s.cache_ttl_s == 600 and s.environment == "prod"
    assert s.embed_model_path == Path("/models/multilingual-e5-small")
    assert s.llm_api_key is not None and s.llm_api_key.get_secret_value() == "llm-key"
    assert s.api_keys == {"team-key-123456": ["manuals"]}
    assert s.existing_collections["old"]["text"] == "page_content"
    dispatcher = build_dispatcher(s)
    assert dispatcher is not None and dispatcher.legacy is not None
    assert dispatcher.legacy.config.body == {"q": "{question}", "k": 5}  # replaced, not merged
    assert dispatcher.legacy.config.source_fields == {"path": "meta.source"}
    assert dispatcher.legacy.config.headers["Authorization"] == "Bearer legacy-token"
    assert dispatcher.policy.for_collection("hr").canary_percent == 25
    dep = only(docs, "Deployment")
    assert any(
        v.get("persistentVolumeClaim", {}).get("claimName") == "models-pvc"
        for v in dep["spec"]["template"]["spec"]["volumes"]
    )
    # the secret is not in the ConfigMap
    assert "legacy-token" not in json.dumps(only(docs, "ConfigMap"))


def test_existing_secret_replaces_the_chart_secret() -> None:
    docs = render({"secrets": {"existingSecret": "team-loopgate"}})
    assert "Secret" not in docs
    refs = [
        e["secretRef"]["name"]
        for e in container(only(docs, "Deployment"))["envFrom"]
        if "secretRef" in e
    ]
    assert refs == ["team-loopgate"]


def test_ingest_job() -> None:
    docs = render({"ingest": {"enabled": True, "docsClaim": "handbooks", "collection": "hr"}})
    job = only(docs, "Job")
    c = container(job)
    assert c["args"] == ["loopgate", "ingest", "/docs", "--collection", "hr"]
    assert c["command"][:2] == ["python", "/app/prestart.py"]  # waits for Qdrant first
    assert job["metadata"]["annotations"]["helm.sh/hook"] == "post-install,post-upgrade"
    assert job["spec"]["template"]["spec"]["restartPolicy"] == "Never"
    claims = [
        v["persistentVolumeClaim"]["claimName"]
        for v in job["spec"]["template"]["spec"]["volumes"]
        if "persistentVolumeClaim" in v
    ]
    assert claims == ["handbooks"]
    assert {e["configMapRef"]["name"] for e in c["envFrom"] if "configMapRef" in e} == {
        "lg-loopgate-settings"
    }


@pytest.mark.parametrize(
    ("values", "needle"),
    [
        ({"qdrant": {"url": ""}}, "qdrant.url is required"),
        (
            {"replicaCount": 5, "autoscaling": {"maxReplicas": 3}},
            "maxReplicas must be >= replicaCount",
        ),
        ({"ingest": {"enabled": True}}, "ingest.docsClaim"),
        ({"settings": {"RAG_TOP_K": "5"}}, "RAG_TOP_K"),
        ({"migration": {"modes": {"manuals": "mirror"}}}, "mirror"),
        ({"migration": {"canaryPercent": 150}}, "canaryPercent"),
        ({"qdrant": {"url": "qdrant:6333"}}, "qdrant"),
        ({"ingest": {"collection": "bad name!"}}, "collection"),
    ],
)
def test_bad_values_fail_with_a_clear_message(values: dict[str, Any], needle: str) -> None:
    with pytest.raises(helm.HelmError, match=needle):
        helm.Chart.load(str(CHART)).render(values, name="lg", namespace="qa")
