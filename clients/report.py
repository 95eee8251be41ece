"""The report of the real clients: docs/clients.md, docs/clients.html and docs/clients.json, from
the suite's golden replay of each client behind its harness, one table per kind.

    python clients/report.py [--out docs]

Run from the repository's root, with the clients installed (``tox -e clients`` does both).
``versions.toml`` is the one list: each client's harness, its pinned version, the kinds it is
judged on and the RocketMQ releases it is judged at. The report refuses a client whose harness
says another version than the pinned one, and carries no clock time, so it changes only when a
version, the suite or the golden data does.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import tomllib

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.matrix.cells import _verdict, build_matrix, golden_runs
from pytest_rmq_conformance.matrix.render import first_divergences, to_html, to_markdown, validate

HERE = Path(__file__).resolve().parent


def _sibling(name: str) -> Any:
    """``clients/<name>.py``, however this file was loaded (as a script, or by path in the tests)."""
    spec = importlib.util.spec_from_file_location(f"clients_{name}", HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


mixing = _sibling("mixing")
survey = _sibling("survey")
TITLE = "The real clients"
#: each kind's table's heading, in the report's order
KIND_TITLES = {
    "grpc": "The 5.x gRPC clients' balancers",
    "allocation": "Consumer queue allocation",
    "producer": "Producer queue selection",
}
#: seconds per call, unless a client's ``timeout`` says otherwise: the report runs beside the whole
#: test run in CI, and a 5 s limit on a loaded machine turned a slow answer into a hang (and the
#: hang budget, the rest of the cases into not run)
TIMEOUT = 60.0
NO_CLOCK = " at 1970-01-01T00:00:00+00:00"
#: the mixing sweep's summary (``python clients/mixing.py`` writes it)
MIX_SUMMARY = HERE.parent / "docs" / "mixing" / "summary.json"


def load_clients(path: Path = HERE / "versions.toml") -> dict[str, dict[str, Any]]:
    """The clients of ``versions.toml``, each checked for the keys the report needs."""
    clients = tomllib.loads(path.read_text(encoding="utf-8"))
    for name, entry in clients.items():
        for key, kind in (("harness", str), ("pinned", str), ("kinds", list), ("releases", list)):
            if not isinstance(entry.get(key), kind) or not entry[key]:
                raise SystemExit(f"{path}: [{name}] needs {key} ({kind.__name__}, not empty)")
        unknown = [kind for kind in entry["kinds"] if kind not in KIND_TITLES]
        if unknown:
            raise SystemExit(f"{path}: [{name}] kinds {unknown}: the report knows {list(KIND_TITLES)}")
    return clients


def _run(clients: dict[str, dict[str, Any]]) -> list[dict[str, Any]] | None:
    """One matrix per set of releases (and time limit), its rows checked against the pins (``None``: refused)."""
    groups: dict[tuple[tuple[str, ...], float], list[str]] = {}
    for name, entry in clients.items():
        groups.setdefault((tuple(entry["releases"]), float(entry.get("timeout", TIMEOUT))), []).append(name)
    docs = []
    for (releases, timeout), names in groups.items():
        doc = build_matrix(
            [clients[name]["harness"] for name in names],
            list(releases),
            checks=["golden"],
            timeout=timeout,
            progress=lambda line: print(line, file=sys.stderr),
        )
        for row, name in zip(doc["implementations"], names, strict=True):
            pinned = clients[name]["pinned"]
            if row["name"] != name or row["version"] != pinned:
                print(
                    f"clients/report.py: {row['spec']} says {row['name']} {row['version']}, not {name} {pinned} as "
                    "clients/versions.toml pins: install the pinned clients (tox -e clients)",
                    file=sys.stderr,
                )
                return None
            row["kinds"] = clients[name]["kinds"]
        docs.append(doc)
    return docs


def _tables(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One matrix document per kind: its families' cells of the clients judged on it."""
    tables = []
    for kind in KIND_TITLES:
        for doc in docs:
            rows = [row for row in doc["implementations"] if kind in row["kinds"]]
            if not rows:
                continue
            families = [family for family in doc["families"] if kinds.get(family).kind == kind]
            table = {**doc, "kind": kind, "families": families, "goldenRuns": golden_runs(doc["releases"], families)}
            table["implementations"] = []
            for row in rows:
                cells = [cell for cell in row["cells"] if cell["family"] in families]
                kept = {key: value for key, value in row.items() if key not in ("kinds", "cells", "verdict")}
                table["implementations"].append({**kept, "verdict": _verdict(cells), "cells": cells})
            table["generatedAt"] = NO_CLOCK.removeprefix(
                " at "
            )  # no clock time: the report changes only with what it reports
            validate({key: value for key, value in table.items() if key != "kind"})
            tables.append(table)
    return tables


def _anchored(text: str, kind: str, first: bool) -> str:
    """The first table keeps its anchors (#d1, ...: the README links them); the others' get the kind."""
    if first:
        return text
    text = re.sub(r'id="d(\d+)"', rf'id="{kind}-d\1"', text)
    return re.sub(
        r'href="#d(\d+)"|\(#d(\d+)\)', lambda m: f'href="#{kind}-d{m[1]}"' if m[1] else f"(#{kind}-d{m[2]})", text
    )


#: the showcase's columns: each kind's cell, in this order
SHOWCASE_KINDS = ("allocation", "producer", "grpc")
MIXING = "mixing-with-java"


def _first_divergences(tables: list[dict[str, Any]]) -> dict[tuple[str, str, str, str], str]:
    """``(kind, client, family, release)`` to the anchor of its first divergence in docs/clients.md:
    the renderer's number, with the kind before it after the first table (``_anchored``)."""
    anchors = {}
    for at, table in enumerate(tables):
        prefix = "" if at == 0 else f"{table['kind']}-"
        for number, (row, cell, _) in enumerate(first_divergences(table), 1):
            anchors[(table["kind"], row["name"], cell["family"], cell["release"])] = f"{prefix}d{number}"
    return anchors


SORT = "rebalance-sort"


def sort_checks(clients: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The rebalance sort (``--rmq-checks=sort``, seed 0) of each allocation client whose harness
    serves it, at its newest release: the golden cases' lists, then the generated ones (first the
    three fixed lists of queue ids at both ends of Java's int, which decide it whatever the seed)."""
    rows = []
    for name, entry in clients.items():
        if "allocation" not in entry["kinds"]:
            continue
        release = entry["releases"][-1]
        with tempfile.TemporaryDirectory() as folder:
            results = Path(folder) / "results.jsonl"
            command = [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "-p",
                "no:randomly",
                f"--rmq-strategy={entry['harness']}",
                f"--rmq-reference-version={release}",
                "--rmq-checks=sort",
                "--rmq-seed=0",
                f"--rmq-timeout={TIMEOUT:g}",
                f"--rmq-results={results}",
            ]
            subprocess.run(command, cwd=HERE.parent, capture_output=True, check=False)
            lines = (
                [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
                if results.exists()
                else []
            )
        if not lines or all(line["verdict"] == "skipped" for line in lines):
            continue  # its hello says it does not sort
        golden = [line for line in lines if line["case"] is not None]
        generated = [line for line in lines if line["case"] is None]
        failed = [line for line in golden + generated if line["verdict"] not in ("passed", "skipped")]
        rows.append(
            {
                "client": name,
                "version": entry["pinned"],
                "release": release,
                "golden": {"lists": len(golden), "differ": sum(line["verdict"] != "passed" for line in golden)},
                "generated": {"passed": all(line["verdict"] == "passed" for line in generated)},
                "first": None
                if not failed
                else {"divergence": failed[0]["divergence"] or failed[0]["cause"], "rerun": failed[0]["rerun"]},
            }
        )
    return rows


def _sort_text(row: dict[str, Any]) -> str:
    golden = row["golden"]
    listed = (
        f"✓ {golden['lists']} golden" if not golden["differ"] else f"✗ {golden['differ']} of {golden['lists']} golden"
    )
    return f"sort {listed}, {'✓' if row['generated']['passed'] else '✗'} generated"


def sort_markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        f'<a id="{SORT}"></a>\n## The rebalance sort\n',
        "Before it allocates, a client sorts the topic's queues and the group's client ids; the order decides every "
        "share. Each allocation client's sort at its newest release (`--rmq-checks=sort`, seed 0): the golden "
        "cases' lists, then generated lists, the first three with queue ids at both ends of Java's int, where "
        "`MessageQueue.compareTo` overflows.\n",
        "| client | version | release | golden lists | generated lists | first difference |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        golden = row["golden"]
        first = row["first"]
        shown = "—" if first is None else f"{first['divergence']}<br>`{first['rerun']}`"
        lines.append(
            f"| {row['client']} | {row['version']} | {row['release']} | {golden['lists'] - golden['differ']} of "
            f"{golden['lists']} agree | {'agree' if row['generated']['passed'] else 'differ'} | {shown} |"
        )
    return "\n".join(lines) + "\n"


def _family_text(cell: dict[str, Any]) -> str:
    golden = cell["golden"]
    run = golden["cases"] - golden["notRun"] - golden["notImplemented"]
    return f"✓ {run}" if golden["differ"] == 0 else f"✗ {golden['differ']} of {run}"


def showcase(
    tables: list[dict[str, Any]], mix: dict[str, Any], sorts: Sequence[dict[str, Any]] = (), link: str = ""
) -> str:
    """The one table of the README: every judged client by kind, each family's golden count at the
    client's newest release linking to its first divergence, and its cost mixed with Java linking
    to the mixing table. ``link`` is where docs/clients.md is from the page the table is on."""
    anchors = _first_divergences(tables)
    mixed: dict[str, list[dict[str, Any]]] = {}
    for verdict in mix.get("verdicts", []):
        mixed.setdefault(verdict["client"].rsplit(" ", 1)[0], []).append(verdict)
    lines = [
        "| client | version | consumer allocation | producer selection | 5.x gRPC balancers | mixed with Java |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    names: list[str] = []
    for table in tables:
        names += [row["name"] for row in table["implementations"] if row["name"] not in names]
    for name in names:
        texts, version, home = [], "", ""
        for kind in SHOWCASE_KINDS:
            parts = []
            for table in (table for table in tables if table["kind"] == kind):
                for row in (row for row in table["implementations"] if row["name"] == name):
                    version, home = row["version"], row.get("homepage", "")
                    release = table["releases"][-1]
                    for cell in row["cells"]:
                        if cell["release"] != release or cell["status"] in ("absent", "not-implemented"):
                            continue
                        anchor = anchors.get((kind, name, cell["family"], release))
                        text = f"{cell['family']} {_family_text(cell)}"
                        parts.append(f"[{text}]({link}#{anchor})" if anchor else text)
            if kind == "allocation":
                parts += [f"[{_sort_text(row)}]({link}#{SORT})" for row in sorts if row["client"] == name]
            texts.append("<br>".join(parts) or "—")
        costs = []
        for verdict in mixed.get(name, []):
            what = "safe" if verdict["safe"] else f"unsafe: {_mix_cost(verdict)}"
            costs.append(f"[{verdict['family']} {what}]({link}#{MIXING})")
        shown = f"[{name}]({home})" if home else name
        lines.append(f"| {shown} | {version} | " + " | ".join(texts) + f" | {'<br>'.join(costs) or '—'} |")
    return "\n".join(lines) + "\n"


def write_readme_table(readme: Path, table: str) -> None:
    """Put ``table`` between the README's ``<!-- clients:start ... -->`` and ``<!-- clients:end -->``."""
    text = readme.read_text(encoding="utf-8")
    found = re.search(r"(<!-- clients:start[^>]*-->\n).*?(<!-- clients:end -->)", text, flags=re.S)
    if found is None:
        raise SystemExit(f"{readme}: no <!-- clients:start --> / <!-- clients:end --> markers to put the table between")
    readme.write_text(text[: found.start()] + found[1] + table + found[2] + text[found.end() :], encoding="utf-8")


def _mix_cost(verdict: dict[str, Any]) -> str:
    share = 100.0 * verdict["failing"] / verdict["n"] if verdict["n"] else 0.0
    if verdict["side"] == "producer":
        return f"{share:.1f} % of names split"
    return f"{share:.1f} % of mixes lose or double a queue"


def markdown(tables: list[dict[str, Any]], causes: str, mix: dict[str, Any], sorts: list[dict[str, Any]]) -> str:
    parts = [
        f"# {TITLE}\n",
        "Each client judged at its newest release against the golden vectors (✓ cases that agree, ✗ cases that "
        "differ, of those run), and what mixing it with Java clients costs. The tables below give each release, "
        "the first divergence of each cell with its rerun line, and why each client differs.\n",
        showcase(tables, mix, sorts),
    ]
    for at, table in enumerate(tables):
        text = to_markdown(table).replace(NO_CLOCK, "")
        text = text.replace("# RocketMQ client compatibility matrix", f"## {KIND_TITLES[table['kind']]}", 1)
        text = text.replace("\n## First divergence of each cell", "\n### First divergence of each cell")
        parts.append(_anchored(text, table["kind"], at == 0))
    parts.append(sort_markdown(sorts))
    parts.append(f'<a id="{MIXING}"></a>\n## Mixing with Java\n')
    parts.append(
        "From `rmq-conformance sweep --mix` on `local[2]` (`python clients/mixing.py`; the whole report, with its "
        "plots, is [mixing/report.md](mixing/report.md)). Safe: no queue taken twice or by nobody, and no message "
        "group or key sent to two queues, in any scenario swept.\n"
    )
    parts.append(mixing.table_markdown(mix))
    return "\n".join(parts) + "\n" + causes + "\n" + survey.to_markdown()


def html(tables: list[dict[str, Any]]) -> str:
    pages = [to_html(table).replace(NO_CLOCK, "") for table in tables]
    head = (
        pages[0]
        .split("<body>", 1)[0]
        .replace("<title>RocketMQ client compatibility matrix</title>", f"<title>{TITLE}</title>")
    )
    bodies, script = [], ""
    for at, (table, page) in enumerate(zip(tables, pages, strict=True)):
        body = page.split("<body>", 1)[1].rsplit("</body>", 1)[0]
        found = re.search(r"<script>.*?</script>", body, flags=re.S)
        script = script or (found[0] if found else "")
        body = re.sub(r"<script>.*?</script>", "", body, flags=re.S).replace("<h2>", "<h3>").replace("</h2>", "</h3>")
        body = body.replace("<h1>RocketMQ client compatibility matrix</h1>", f"<h2>{KIND_TITLES[table['kind']]}</h2>")
        bodies.append(_anchored(body, table["kind"], at == 0))
    return f"{head}<body><h1>{TITLE}</h1>{''.join(bodies)}{survey.to_html()}{script}</body></html>\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs"))
    parser.add_argument(
        "--readme", type=Path, help="also rewrite the clients table of this README (between its clients: markers)"
    )
    args = parser.parse_args(argv)
    clients = load_clients()
    docs = _run(clients)
    if docs is None:
        return 1
    tables = _tables(docs)
    causes = (HERE / "causes.md").read_text(encoding="utf-8")
    args.out.mkdir(parents=True, exist_ok=True)
    mix = json.loads(MIX_SUMMARY.read_text(encoding="utf-8"))
    sorts = sort_checks(clients)
    (args.out / "clients.md").write_text(markdown(tables, causes, mix, sorts), encoding="utf-8")
    (args.out / "clients.html").write_text(html(tables), encoding="utf-8")
    shown = [{key: value for key, value in table.items() if key != "generatedAt"} for table in tables]
    (args.out / "clients.json").write_text(
        json.dumps({"title": TITLE, "tables": shown, "sort": sorts}, indent=2, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    if args.readme is not None:
        write_readme_table(args.readme, showcase(tables, mix, sorts, link="docs/clients.md"))
    print(f"written: {args.out / 'clients.md'}, {args.out / 'clients.html'}, {args.out / 'clients.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
