"""The numbers of clients/causes.md, counted from the data they speak of.

``causes.md`` is a template: its prose is written by hand, its numbers are ``{{client family release
field}}`` placeholders that :func:`fill` writes from the report's data (``docs/clients.json``):

- a golden cell of the tables: ``{{ali-ons FAULT_STRATEGY 4.9.8 differ}}``, the field one of
  ``cases``, ``run``, ``passed``, ``differ``, ``notRun`` or a divergence class (``wrong-queues``,
  ``counter-drift``, ``error-behaviour``);
- the rebalance sort's golden lists: ``{{ali-ons sort 4.9.8 lists}}``;
- a trace family's diverging traces by the cause of their first divergence (:func:`trace_causes`):
  ``{{ali-ons FAULT_STRATEGY 4.9.8 cause:null-fallback}}``;
- a selector's golden calls one by one (:func:`selector_calls`): ``{{ali-ons SELECTOR_HASH 4.9.8 calls:agree}}``.

A placeholder with no data, or data that no longer fits the prose (a diverging trace of no cause
the prose names), stops the report with its name.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.engine.golden.data import read_cases

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: the one counter rule of the remoting clients' harnesses (its RULE is printed on the report page)
COUNTER = HERE / "node" / "counter.js"
#: the trace family whose diverging traces the prose splits by cause
TRACES = "FAULT_STRATEGY"
#: the selector family whose calls the prose counts
SELECTOR = "SELECTOR_HASH"

#: each cause of a diverging trace, as its first divergence shows it, in the order they are tried
#: (the first that holds is the trace's cause); the prose of causes.md explains each
TRACE_CAUSES: tuple[tuple[str, Callable[[str, str], bool]], ...] = (
    ("empty-route", lambda text, category: "Java threw ArithmeticException" in text),
    ("null-fallback", lambda text, category: text.startswith("queue null, Java's")),
    ("counter-wrap", lambda text, category: category == "counter-wrap"),
    ("counter-step", lambda text, category: text.startswith("stored counter ")),
)


def counter_rule() -> str:
    """The RULE text of clients/node/counter.js, as Node reads it."""
    done = subprocess.run(
        ["node", "-e", f"process.stdout.write(require({json.dumps(str(COUNTER))}).RULE)"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0 or not done.stdout.strip():
        raise SystemExit(f"clients/causes.py: no RULE from {COUNTER}: {done.stderr.strip()}")
    return done.stdout


def _records(harness: str, release: str, family: str) -> list[dict[str, Any]]:
    """The suite's --rmq-results records of ``family``'s golden cases, run through ``harness``."""
    with tempfile.TemporaryDirectory() as folder:
        results = Path(folder) / "results.jsonl"
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                   f"--rmq-strategy={harness}", f"--rmq-reference-version={release}", "--rmq-checks=golden",
                   "--rmq-timeout=60", f"--rmq-results={results}", "-k", family]  # fmt: skip
        subprocess.run(command, cwd=ROOT, capture_output=True, check=False)
        if not results.exists():
            raise SystemExit(f"clients/causes.py: {harness} at {release} wrote no results for {family}")
        return [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]


def cause_of(record: dict[str, Any]) -> str | None:
    """The cause of a diverging trace, from its first divergence (``None``: none of ``TRACE_CAUSES``)."""
    text = record["divergence"] or record["cause"] or ""
    category = re.sub(r"^pub-[A-Z_]+-\d+-", "", record["case"])
    return next((name for name, holds in TRACE_CAUSES if holds(text, category)), None)


def trace_causes(harness: str, release: str) -> dict[str, int]:
    """How many of the family's diverging golden traces have each cause; a trace of no known cause
    stops the report (the prose would not explain it)."""
    counts = dict.fromkeys((name for name, _ in TRACE_CAUSES), 0)
    for record in _records(harness, release, TRACES):
        if record["verdict"] not in ("failed", "error"):
            continue
        cause = cause_of(record)
        if cause is None:
            raise SystemExit(
                f"clients/causes.py: {record['case']} at {release} ({harness}) differs by no cause causes.md names: "
                f"{record['divergence']!r}; name it in clients/causes.py's TRACE_CAUSES and explain it in causes.md"
            )
        counts[cause] += 1
    return counts


def _exchange(harness: str, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A harness's answers to ``requests`` (after its hello), by the suite's exec protocol."""
    lines = [{"cmd": "hello", "protocol": 1}, *requests, {"cmd": "bye"}]
    done = subprocess.run(
        shlex.split(harness.removeprefix("exec:")),
        input="".join(json.dumps(line) + "\n" for line in lines),
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    if done.returncode != 0 or len(answers) != len(lines) - 1:
        raise SystemExit(f"clients/causes.py: {harness} answered {len(answers)} of {len(lines) - 1}: {done.stderr}")
    return answers[1:]


def _expected(case: dict[str, Any], release: str) -> list[Any]:
    return next(entry["results"] for entry in case["expect"] if release in entry["runs"])


def selector_calls(harness: str, release: str, golden: Path = ROOT / "golden" / "producer") -> dict[str, int]:
    """The selector's golden cases call by call: how many cases the harness runs and why it leaves
    the others, how many calls it answers, how many of those agree with Java, on a list of one
    queue or longer, the largest list it answers and how many calls it leaves for their length."""
    cases = list(read_cases(golden / f"{SELECTOR}.jsonl"))
    cases = [case for case in cases if any(release in entry["runs"] for entry in case["expect"])]
    requests = [
        {"cmd": "select", "id": at, "strategy": SELECTOR, "params": case["params"], "release": release,
         "arg": case["arg"], "queueCounts": case["queueCounts"]}
        for at, case in enumerate(cases)
    ]  # fmt: skip
    counts = dict.fromkeys(
        ("cases", "non-string", "empty-key", "run", "calls", "agree", "agree-one", "largest", "too-long"), 0
    )
    for case, answer in zip(cases, _exchange(harness, requests), strict=True):
        counts["cases"] += 1
        arg = case["arg"]
        if arg is None or arg.get("type") != "string":
            counts["non-string"] += 1
            continue
        if arg["value"] == "":
            counts["empty-key"] += 1
            continue
        counts["run"] += 1
        for count, got, java in zip(case["queueCounts"], answer["answers"], _expected(case, release), strict=True):
            if "notRun" in got:
                counts["too-long"] += 1
                continue
            counts["calls"] += 1
            counts["largest"] = max(counts["largest"], count)
            if "index" in got and got["index"] == java:
                counts["agree"] += 1
                counts["agree-one"] += count == 1
    return counts


def cited(template: str, group: str) -> set[str]:
    """The clients whose ``group`` counts (``cause`` or ``calls``) the template's placeholders name."""
    return {
        parts[0]
        for found in PLACEHOLDER.finditer(template)
        if len(parts := found[1].rsplit(None, 3)) == 4 and parts[3].startswith(group + ":")
    }


def evidence(
    clients: dict[str, dict[str, Any]], tables: list[dict[str, Any]], template: Path = HERE / "causes.md"
) -> dict[str, Any]:
    """What causes.md counts beyond the tables, for every producer client the tables run on
    ``TRACES`` or ``SELECTOR`` and whose counts of that family causes.md cites, at each of its releases
    (``selector_calls`` reads the calls as the ali-ons prose splits them)."""
    text = template.read_text(encoding="utf-8")
    causes, calls = cited(text, "cause"), cited(text, "calls")
    served = {
        (row["name"], cell["family"], cell["release"])
        for table in tables
        for row in table["implementations"]
        for cell in row["cells"]
        if cell["status"] not in ("absent", "not-implemented")
    }
    found: dict[str, Any] = {"traceCauses": [], "selectorCalls": []}
    for name, entry in clients.items():
        for release in entry["releases"]:
            if (name, TRACES, release) in served and name in causes:
                counts = trace_causes(entry["harness"], release)
                found["traceCauses"].append({"client": name, "release": release, "causes": counts})
            if (name, SELECTOR, release) in served and name in calls:
                counts = selector_calls(entry["harness"], release)
                found["selectorCalls"].append({"client": name, "release": release, "calls": counts})
    return found


# -- the template ----------------------------------------------------------------------------------

PLACEHOLDER = re.compile(r"\{\{\s*(.+?)\s*\}\}")
#: a golden cell's fields a placeholder may name, beside the divergence classes
CELL_FIELDS = ("cases", "passed", "differ", "notRun", "notImplemented")


def _cells(tables: Iterable[dict[str, Any]]) -> dict[tuple[str, str, str], dict[str, Any]]:
    return {
        (row["name"], cell["family"], cell["release"]): cell["golden"]
        for table in tables
        for row in table["implementations"]
        for cell in row["cells"]
    }


def value(key: str, data: dict[str, Any]) -> int:
    """The number a placeholder names, from ``data`` (the committed report's JSON: ``tables``,
    ``sort`` and ``evidence``); an unknown one stops the report, naming it."""
    parts = key.rsplit(None, 3)  # a client's name may hold a space: "rocketmq (PyPI)"
    if len(parts) != 4:
        raise SystemExit(f"clients/causes.md: {{{{{key}}}}} is not 'client family release field'")
    client, family, release, field = parts
    if family == "sort":
        rows = [row for row in data["sort"] if (row["client"], row["release"]) == (client, release)]
        if rows and field in ("lists", "differ"):
            return int(rows[0]["golden"][field])
    elif field.startswith(("cause:", "calls:")):
        group, name = field.split(":", 1)
        listed = "traceCauses" if group == "cause" else "selectorCalls"
        inner = "causes" if group == "cause" else "calls"
        rows = [
            row
            for row in data.get("evidence", {}).get(listed, [])
            if (row["client"], row["release"]) == (client, release) and family == (TRACES if group == "cause" else SELECTOR)
        ]
        if rows and name in rows[0][inner]:
            return int(rows[0][inner][name])
    else:
        cell = _cells(data["tables"]).get((client, family, release))
        if cell is not None:
            if field == "run":
                return int(cell["cases"] - cell["notRun"] - cell["notImplemented"])
            if field in CELL_FIELDS:
                return int(cell[field])
            if field in cell["classes"]:
                return int(cell["classes"][field])
    raise SystemExit(f"clients/causes.md: {{{{{key}}}}} names nothing the report counted")


def fill(template: str, data: dict[str, Any]) -> str:
    """causes.md with every placeholder written from ``data``, thousands separated by commas."""
    return PLACEHOLDER.sub(lambda found: f"{value(found[1], data):,}", template)
