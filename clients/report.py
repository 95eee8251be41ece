"""The compatibility report of the real 5.x gRPC clients: docs/clients.md, docs/clients.html
and docs/clients.json, from the suite's golden replay of each client behind its harness.

    python clients/report.py [--out docs]

Run from the repository's root, with the clients installed (``tox -e clients`` does both).
The clients' versions are pinned (``node/package.json``, ``python/requirements.txt``); the
report refuses a client whose harness says another version, and carries no clock time, so
it changes only when a version, the suite or the golden data does.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pytest_rmq_conformance.matrix.cells import build_matrix
from pytest_rmq_conformance.matrix.render import to_html, to_markdown, validate

HERE = Path(__file__).resolve().parent
#: the clients: how the suite reaches each (relative to the repository's root), and the version pinned
CLIENTS = {
    "rocketmq-client-nodejs": ("exec:node clients/node/harness.js",
                               json.loads((HERE / "node" / "package.json").read_text())["dependencies"]["rocketmq-client-nodejs"]),
    "rocketmq-python-client": ("exec:python clients/python/harness.py",
                               (HERE / "python" / "requirements.txt").read_text().split("==")[1].strip()),
}
RELEASE = "5.3.3"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs"))
    args = parser.parse_args(argv)
    doc = build_matrix([spec for spec, _ in CLIENTS.values()], [RELEASE], checks=["golden"],
                       progress=lambda line: print(line, file=sys.stderr))
    for row in doc["implementations"]:
        pinned = CLIENTS.get(row["name"], (None, None))[1]
        if row["version"] != pinned:
            print(f"clients/report.py: {row['spec']} says {row['name']} {row['version']}, not the version pinned ({pinned}): "
                  "install the pinned clients (tox -e clients)", file=sys.stderr)
            return 1
    validate(doc)
    doc["generatedAt"] = "1970-01-01T00:00:00+00:00"  # no clock time: the report changes only with what it reports
    markdown = to_markdown(doc).replace(" at 1970-01-01T00:00:00+00:00", "")
    causes = (HERE / "causes.md").read_text(encoding="utf-8")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "clients.md").write_text(markdown.replace("# RocketMQ client compatibility matrix", "# The real 5.x gRPC clients", 1)
                                         + "\n" + causes, encoding="utf-8")
    (args.out / "clients.html").write_text(to_html(doc).replace(" at 1970-01-01T00:00:00+00:00", ""), encoding="utf-8")
    (args.out / "clients.json").write_text(json.dumps({key: value for key, value in doc.items() if key != "generatedAt"}, indent=2,
                                                      ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"written: {args.out / 'clients.md'}, {args.out / 'clients.html'}, {args.out / 'clients.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
