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
import json
import re
import sys
from pathlib import Path
from typing import Any

import tomllib

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.matrix.cells import _verdict, build_matrix, golden_runs
from pytest_rmq_conformance.matrix.render import to_html, to_markdown, validate

HERE = Path(__file__).resolve().parent
TITLE = "The real clients"
#: each kind's table's heading, in the report's order
KIND_TITLES = {
    "grpc": "The 5.x gRPC clients' balancers",
    "allocation": "Consumer queue allocation",
    "producer": "Producer queue selection",
}
#: seconds per call, unless a client's ``timeout`` says more
TIMEOUT = 5.0
NO_CLOCK = " at 1970-01-01T00:00:00+00:00"


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


def markdown(tables: list[dict[str, Any]], causes: str) -> str:
    parts = [f"# {TITLE}\n"]
    for at, table in enumerate(tables):
        text = to_markdown(table).replace(NO_CLOCK, "")
        text = text.replace("# RocketMQ client compatibility matrix", f"## {KIND_TITLES[table['kind']]}", 1)
        text = text.replace("\n## First divergence of each cell", "\n### First divergence of each cell")
        parts.append(_anchored(text, table["kind"], at == 0))
    return "\n".join(parts) + "\n" + causes


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
    return f"{head}<body><h1>{TITLE}</h1>{''.join(bodies)}{script}</body></html>\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs"))
    args = parser.parse_args(argv)
    docs = _run(load_clients())
    if docs is None:
        return 1
    tables = _tables(docs)
    causes = (HERE / "causes.md").read_text(encoding="utf-8")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "clients.md").write_text(markdown(tables, causes), encoding="utf-8")
    (args.out / "clients.html").write_text(html(tables), encoding="utf-8")
    shown = [{key: value for key, value in table.items() if key != "generatedAt"} for table in tables]
    (args.out / "clients.json").write_text(
        json.dumps({"title": TITLE, "tables": shown}, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    print(f"written: {args.out / 'clients.md'}, {args.out / 'clients.html'}, {args.out / 'clients.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
