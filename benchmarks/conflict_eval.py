"""Conflicting evidence (issue 16 item 4): generated document pairs — versions of a policy and
notices that override a rule (the value differs: a conflict) and pairs that agree (a restated
value, a version that changed another clause, a sister document about another thing) — asked
about through the gateway's router; prints how often a conflict is flagged, how often the newer
value is preferred, and how often a consistent pair is flagged anyway.

The documents are written by this script into ``--docs`` (Markdown, English and Chinese, one
fictional organisation per pair so pairs do not answer each other's questions) and ingested
into ``--collection`` of the data dir in ``LOOPGATE_DATA_DIR``:

    LOOPGATE_DATA_DIR=/tmp/conf LOOPGATE_EMBED_MODEL_PATH=../shared/models/multilingual-e5-small \\
      .venv/bin/python benchmarks/conflict_eval.py --docs /tmp/conf-docs [--mode auto] [--out F]

Scoring, per pair: *flagged* = the answer carries ``conflict``; *newer preferred* = the
preferred value is the newer document's and the first citation is in it; for a consistent
pair, *false flag* = a ``conflict`` on the answer. The answer cache is bypassed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ORGS_EN = ["Northwind", "Contoso", "Fabrikam", "Tailspin", "Litware", "Adatum", "Proseware",
           "Wingtip", "Woodgrove", "Lucerne", "Coho", "Alpine", "Margie", "Humongous",
           "Trey", "Blue Yonder", "Fourth Coffee", "Graphic Design", "VanArsdel", "Relecloud"]
ORGS_ZH = ["华岳", "青禾", "临川", "北辰", "云帆", "启明", "远山", "星河", "松涛", "澄江",
           "海棠", "明湖", "清源", "金穗", "玉衡", "鸿图", "嘉禾", "翠微", "长风", "锦程"]

# topic: (sentence with {v}, question with {org}, unit text, old value, new value)
TOPICS_EN = [
    ("The daily per diem for domestic travel is {v} EUR.",
     "What is the daily per diem for domestic travel at {org}?", 50, 60),
    ("Employees may work remotely for up to {v} days per week.",
     "How many days per week may {org} employees work remotely?", 2, 3),
    ("The monthly parking fee for the staff car park is {v} USD.",
     "What is the monthly parking fee for the {org} staff car park?", 40, 55),
    ("The resignation notice period is {v} days.",
     "How many days is the resignation notice period at {org}?", 30, 45),
    ("Customers may return unused products within {v} days of delivery.",
     "Within how many days of delivery can {org} customers return unused products?", 14, 30),
    ("The annual training budget per employee is {v} USD.",
     "What is the annual training budget per employee at {org}?", 1000, 1500),
    ("The mileage allowance for private cars is {v} cents per kilometre.",
     "What is the mileage allowance for private cars at {org}?", 30, 35),
    ("New employees serve a probation period of {v} months.",
     "How many months is the probation period for new employees at {org}?", 6, 3),
    ("The hotel rate cap for business trips is {v} EUR per night.",
     "What is the hotel rate cap per night for business trips at {org}?", 120, 150),
    ("Full-time staff receive {v} days of paid annual leave.",
     "How many days of paid annual leave do full-time staff get at {org}?", 25, 28),
]
ORGS3_EN = ["Kestrel", "Osprey", "Heron", "Falcon", "Plover", "Curlew", "Egret", "Gannet",
            "Petrel", "Tern"]
FILLER_EN = ["Expense claims must be filed within 60 days of the expense.",
             "Meal receipts above 25 EUR need the names of all guests.",
             "The office opens at 8:00 and closes at 18:00 on working days."]
TOPICS_ZH = [
    ("国内出差每日伙食补助标准为{v}元。", "{org}公司国内出差每日伙食补助标准是多少？", 100, 120),
    ("员工每周最多可远程办公{v}天。", "{org}公司员工每周最多可远程办公几天？", 2, 3),
    ("员工停车场月租费为{v}元。", "{org}公司员工停车场月租费是多少？", 200, 260),
    ("员工辞职须提前{v}天书面通知公司。", "{org}公司员工辞职须提前几天书面通知？", 30, 15),
    ("顾客可在签收后{v}天内退回未使用的商品。",
     "{org}公司顾客签收后几天内可以退回未使用的商品？", 7, 15),
    ("每名员工每年培训预算为{v}元。", "{org}公司每名员工每年培训预算是多少？", 3000, 5000),
    ("新员工试用期为{v}个月。", "{org}公司新员工试用期是几个月？", 6, 3),
    ("出差住宿标准上限为每晚{v}元。", "{org}公司出差住宿标准上限是每晚多少元？", 400, 500),
    ("全职员工每年享有带薪年假{v}天。", "{org}公司全职员工每年享有带薪年假几天？", 10, 12),
    ("加班餐费补贴为每次{v}元。", "{org}公司加班餐费补贴是每次多少元？", 20, 30),
]
ORGS3_ZH = ["白鹭", "苍鹰", "云雀", "黄鹂", "翠鸟", "鸿雁", "鹈鹕", "杜鹃", "画眉", "喜鹊"]
FILLER_ZH = ["报销申请须在费用发生后60天内提交。", "办公室工作日上午8点开门，下午6点关门。",
             "单笔招待费超过500元须事先审批。"]


@dataclass
class Pair:
    """One generated pair and its question: ``kind`` conflict_version | conflict_notice |
    same_value | other_clause | other_thing; ``newer`` the newer document's file name and
    ``value`` the value it gives (the expected answer)."""

    pid: str
    lang: str
    kind: str
    question: str
    files: dict[str, str]
    newer: str
    value: int


def _doc_en(org: str, title: str, date: str, lines: list[str], notice: bool = False) -> str:
    head = f"# {org} {title}\n\n" + (f"Issued {date}.\n\n" if notice else
                                     f"Version effective {date}.\n\n")
    body = "\n\n".join(lines)
    return head + "## Rules\n\n" + body + "\n"


def _doc_zh(org: str, title: str, date: str, lines: list[str], notice: bool = False) -> str:
    y, m, d = (int(x) for x in date.split("-"))
    head = f"# {org}公司{title}\n\n" + (f"发布日期：{y}年{m}月{d}日\n\n" if notice else
                                        f"本版自{y}年{m}月{d}日起施行。\n\n")
    return head + "## 规定\n\n" + "\n\n".join(lines) + "\n"


def build_pairs() -> list[Pair]:
    """Per language, deterministic: 10 conflict pairs (5 new versions, 5 notices), 10
    consistent pairs of other organisations (5 versions that changed another clause, 5 FAQs
    restating the value) and 8 sister-document pairs (a notice about another thing)."""
    pairs: list[Pair] = []
    for lang, topics, orgs, orgs3, filler, doc in (
            ("en", TOPICS_EN, ORGS_EN, ORGS3_EN, FILLER_EN, _doc_en),
            ("zh", TOPICS_ZH, ORGS_ZH, ORGS3_ZH, FILLER_ZH, _doc_zh)):
        policy = "Travel and Staff Policy" if lang == "en" else "员工管理制度"
        notice_t = "Notice on a rule change" if lang == "en" else "关于调整有关标准的通知"
        for i, (sentence, question, old, new) in enumerate(topics):
            org = orgs[i]
            other = topics[(i + 1) % len(topics)]
            other2 = topics[(i + 3) % len(topics)]
            q = question.format(org=org)
            base = [sentence.format(v=old), other[0].format(v=other[2]), *filler[:2]]
            stem = f"{lang}{i:02d}"
            # conflict pairs: even topics a new version, odd topics a notice
            if i % 2 == 0:
                newer = [sentence.format(v=new), other[0].format(v=other[2]), *filler[:2]]
                files = {f"{stem}-policy-v1.md": doc(org, policy, "2023-01-01", base),
                         f"{stem}-policy-v2.md": doc(org, policy, "2025-03-01", newer)}
                pairs.append(Pair(f"{stem}-c", lang, "conflict_version", q, files,
                                  f"{stem}-policy-v2.md", new))
            else:
                if lang == "en":
                    change = (f"With effect from 1 April 2025, {sentence[0].lower()}"
                              f"{sentence[1:].format(v=new)}")
                else:
                    change = f"自2025年4月1日起，{sentence.format(v=new)}"
                files = {f"{stem}-policy.md": doc(org, policy, "2022-07-01", base),
                         f"{stem}-notice.md": doc(org, notice_t, "2025-03-15", [change], True)}
                pairs.append(Pair(f"{stem}-c", lang, "conflict_notice", q, files,
                                  f"{stem}-notice.md", new))
            # consistent pairs, other organisations (orgs 10..19)
            org2 = orgs[10 + i]
            q2 = question.format(org=org2)
            if i % 2 == 0:
                # a version that changed another clause: the asked value is the same in both
                v1 = [sentence.format(v=old), other2[0].format(v=other2[2]), *filler[1:]]
                v2 = [sentence.format(v=old), other2[0].format(v=other2[3]), *filler[1:]]
                files = {f"{stem}-k-policy-v1.md": doc(org2, policy, "2023-01-01", v1),
                         f"{stem}-k-policy-v2.md": doc(org2, policy, "2025-03-01", v2)}
                pairs.append(Pair(f"{stem}-k", lang, "other_clause", q2, files,
                                  f"{stem}-k-policy-v2.md", old))
            else:
                # a FAQ that restates the policy's value
                faq_t = "Staff FAQ" if lang == "en" else "员工常见问题"
                faq = [sentence.format(v=old), filler[2]]
                files = {f"{stem}-k-policy.md": doc(org2, policy, "2022-07-01", base),
                         f"{stem}-k-faq.md": doc(org2, faq_t, "2025-02-01", faq)}
                pairs.append(Pair(f"{stem}-k", lang, "same_value", q2, files,
                                  f"{stem}-k-faq.md", old))
            # a sister document of the same organisation about another thing
            if i < 2:
                continue
            org3 = orgs3[i]
            rule_b = other[0].format(v=other[3])
            files = {f"{stem}-s-policy.md": doc(org3, policy + (" B" if lang == "en" else "（乙）"),
                                                "2024-01-01", [sentence.format(v=old), *filler]),
                     f"{stem}-s-other.md": doc(org3, notice_t, "2025-05-01", [rule_b], True)}
            pairs.append(Pair(f"{stem}-s", lang, "other_thing", question.format(org=org3), files,
                              f"{stem}-s-policy.md", old))
    return pairs


def write_docs(pairs: list[Pair], root: Path) -> None:
    """Write every pair's documents into ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    for p in pairs:
        for name, text in p.files.items():
            (root / name).write_text(text, encoding="utf-8")


async def ask_all(pairs: list[Pair], collection: str, mode: str) -> list[dict]:
    """Ask every pair's question through the router; one record per pair."""
    from gateway.routing import QueryInput
    from gateway.settings import get_settings
    from gateway.wiring import build_components

    c = build_components(get_settings())
    out = []
    try:
        for p in pairs:
            t0 = time.perf_counter()
            r = await c.router.ask(QueryInput(p.question, collection, mode, use_cache=False))
            ms = (time.perf_counter() - t0) * 1000
            conflict = r.conflict
            first = r.citations[0].path if r.citations else ""
            preferred = None
            if conflict and conflict.get("preferred") is not None:
                preferred = conflict["values"][conflict["preferred"]]
            rec = {"id": p.pid, "kind": p.kind, "lang": p.lang, "question": p.question,
                   "found": r.found, "flagged": conflict is not None,
                   "first_citation": first, "newer": p.newer, "value": p.value,
                   "preferred": preferred, "latency_ms": round(ms, 1),
                   "answer": r.answer[:300]}
            rec["newer_preferred"] = bool(
                preferred and preferred["value"].replace(",", "") == str(p.value)
                and first.endswith(p.newer))
            rec["value_in_answer"] = str(p.value) in r.answer.split("\n")[0]
            out.append(rec)
    finally:
        await c.aclose()
    return out


def main() -> None:
    """Generate, ingest, ask, print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=Path, required=True, help="where the documents are written")
    ap.add_argument("--collection", default="conflict")
    ap.add_argument("--mode", default="auto", choices=["auto", "rag", "loop"])
    ap.add_argument("--no-ingest", action="store_true")
    ap.add_argument("--out", type=Path, default=None, help="per-pair records (JSON Lines)")
    args = ap.parse_args()
    pairs = build_pairs()
    if not args.no_ingest:
        write_docs(pairs, args.docs)
        subprocess.run([sys.executable, "-c", "from gateway.cli import main; main()", "ingest",
                        str(args.docs), "--collection", args.collection, "--json"],
                       check=True, stdout=subprocess.DEVNULL)
    recs = asyncio.run(ask_all(pairs, args.collection, args.mode))
    if args.out:
        args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs),
                            encoding="utf-8")
    conf = [r for r in recs if r["kind"].startswith("conflict")]
    cons = [r for r in recs if not r["kind"].startswith("conflict")]
    flagged = sum(r["flagged"] for r in conf)
    newer = sum(r["newer_preferred"] for r in conf)
    false = sum(r["flagged"] for r in cons)
    right = sum(r["value_in_answer"] for r in cons)
    print(f"conflict pairs {len(conf)}: flagged {flagged}/{len(conf)} ({flagged / len(conf):.0%}), "
          f"newer value preferred {newer}/{len(conf)} ({newer / len(conf):.0%})")
    print(f"consistent pairs {len(cons)}: conflict flagged {false}/{len(cons)} "
          f"({false / len(cons):.0%}); their value in the answer's first line {right}/{len(cons)}")
    for kind in sorted({r["kind"] for r in recs}):
        rs = [r for r in recs if r["kind"] == kind]
        print(f"  {kind:17s} n={len(rs):2d} flagged {sum(r['flagged'] for r in rs):2d} "
              f"newer preferred {sum(r['newer_preferred'] for r in rs):2d}")
    for r in recs:
        bad = (r["kind"].startswith("conflict") and not (r["flagged"] and r["newer_preferred"])) \
            or (not r["kind"].startswith("conflict") and r["flagged"])
        if bad:
            print("  MISS", r["id"], r["kind"], r["first_citation"], r["preferred"],
                  r["answer"][:120].replace("\n", " | "))


if __name__ == "__main__":
    main()
