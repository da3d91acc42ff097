"""A question naming a numbered clause (第二十一条, Clause 4) is answered by that clause, not
by another clause citing it, and a Chinese question whose best passage is Chinese is answered
by words even when English files follow it (a new-user trial on a mixed collection: 第二十一条
and 第二十二条 were answered by 第二十四条 "违反本办法第二十一条规定的…", 第二十条 by the unit
closest by the embedding). Real parsing, chunking and the extractive answer; the retrieval
order is written out, as the mixed collection ranked it."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus.chunker import chunk_document
from corpus.citations import make_citation
from corpus.evidence.terms import term_weight
from corpus.labels import cross_reference, find_label
from corpus.parsers import parse_file
from corpus.tokenizer import Tokenizer
from rag.cross_evidence import cross_language
from rag.extractive import extract_answer
from rag.types import Confidence, ConfidenceFeatures, Retrieval, RetrievedChunk

_REG = (
    "数据安全管理办法\n\n"
    "第二十条 网络运营者应当制定网络安全事件应急预案，及时处置系统漏洞、计算机病毒、网络攻击等安全风险。\n\n"
    "第二十一条 网络运营者应当采取监测、记录网络运行状态的技术措施，并按照规定留存相关的网络日志不少于六个月。\n\n"
    "第二十二条 网络运营者收集个人信息，应当遵循合法、正当、必要的原则，公开收集、使用规则，并经被收集者同意。\n\n"
    "第二十四条 违反本办法第二十一条规定的，由有关主管部门责令改正，给予警告；"
    "拒不改正的，处一万元以上十万元以下罚款。\n"
)
_POLICY = (
    "Acme Returns Policy\n\n"
    "Clause 4. Refund method. Refunds are paid to the original payment method within 5 "
    "business days.\n\n"
    "Clause 7. Disputes. A dispute about a refund under Clause 4 is settled by the store "
    "manager within 10 days.\n"
)
_PRODUCT = (
    "# K-200 Kettle\n\n## Overview\n\nThe K-200 is a stainless-steel electric kettle for home "
    "kitchens; it boils water quickly and switches itself off when the water boils.\n"
)


def _chunks(tmp_path: Path, name: str, text: str) -> list:
    doc = tmp_path / name
    doc.write_text(text, encoding="utf-8")
    return chunk_document(parse_file(doc), rel_path=name)


def _answer(tmp_path: Path, question: str, order: tuple[str, ...]) -> str:
    files = {"reg.txt": _REG, "policy.txt": _POLICY, "product.md": _PRODUCT}
    chunks = [c for name in order for c in _chunks(tmp_path, name, files[name])]
    items = tuple(RetrievedChunk((c,), 1.0 / (i + 1)) for i, c in enumerate(chunks))
    tok = Tokenizer()
    r = Retrieval(question, "c", items, Confidence(0.5, ConfidenceFeatures()), "hybrid",
                  key_terms=tuple(tok.key_terms(question)))
    assert not cross_language(question, items)  # the best passage is in the question's script
    ev = extract_answer(r, r.key_terms, make_citation, normalize=tok.normalize)
    assert ev, question
    return ev[0].text


@pytest.mark.parametrize(("question", "opens"), [
    ("第二十一条规定了什么？", "第二十一条"),
    ("第二十二条规定了什么？", "第二十二条"),
    ("第二十条的内容是什么？", "第二十条"),
])
def test_the_clause_named_answers_not_one_citing_it(tmp_path: Path, question: str,
                                                     opens: str) -> None:
    text = _answer(tmp_path, question, ("reg.txt", "policy.txt", "product.md"))
    assert text.startswith(opens), text


def test_an_english_clause_named_answers_not_one_citing_it(tmp_path: Path) -> None:
    text = _answer(tmp_path, "What does Clause 4 say about refunds?", ("policy.txt", "reg.txt"))
    assert text.startswith("Clause 4."), text


def test_cross_reference_is_another_item_naming_the_asked_one() -> None:
    asked = find_label("第二十一条规定了什么？")
    assert asked is not None
    assert cross_reference("第二十四条 违反本办法第二十一条规定的，由有关主管部门责令改正", asked)
    assert not cross_reference("第二十一条 网络运营者应当采取监测", asked)  # the clause itself
    assert not cross_reference("违反本办法第二十一条规定的", asked)  # no label of its own
    clause = find_label("What does Clause 4 say?")
    assert clause is not None
    assert cross_reference("Clause 7. Disputes. A dispute under Clause 4 is settled", clause)
    assert not cross_reference("Section 7. As in Clause 4", clause)  # another kind of label


def test_a_label_in_chinese_numerals_weighs_as_a_number() -> None:
    assert term_weight("第二十二条", "digits") == term_weight("第22条", "digits") == 2.0
    assert term_weight("规定", "digits") == 1.0
    assert term_weight("第二十二条规定", "digits") == 1.0  # not a label alone
