"""Can the real clients share a group with Java clients? ``rmq-conformance sweep --mix`` for each
client of ``versions.toml``, written to docs/mixing/ (report.md, report.html, plots,
summary.json, table.md), with no clock time in any of it.

    python clients/mixing.py [--out docs/mixing]

Run from the repository's root with the clients installed (``npm ci --prefix clients/node
--ignore-scripts``; ``pip install -r clients/python/requirements.txt``). Each client is reached
through its ``harness`` spec, and mixed by what its harness serves: its consumer allocation
families on the consumer side (one, half, all but one of a group's clients run it beside Java's),
GROUP_HASH and SELECTOR_HASH on the producer side (a Java producer and one of the client send the
same names). A client added to ``versions.toml`` is picked up the same way. One Spark session on
``local[2]`` serves both sides; the sizes below take about a minute.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest brings tomli to 3.10
    import tomli as tomllib

from pytest_rmq_conformance.pipeline.allocation.space import SweepSpace
from pytest_rmq_conformance.pipeline.message_groups.space import GroupSpace

HERE = Path(__file__).resolve().parent
VERSIONS = HERE / "versions.toml"
MASTER = "local[2]"
PARTITIONS = 4
RELEASE = "5.3.3"
#: the consumer side's scenarios and the producer side's names: about a minute on two cores
CONSUMER_SPACE = SweepSpace(queues=(1, 256), consumers=(1, 32), seed=0, count=300)
GROUP_SPACE = GroupSpace(groups=5000, queues=(1, 64))


def clients(path: Path = VERSIONS) -> dict[str, dict[str, Any]]:
    """The judged clients, by package name, as ``versions.toml`` lists them."""
    with path.open("rb") as stream:
        return tomllib.load(stream)


def table_markdown(summary: dict[str, Any]) -> str:
    """The verdict table of a mixing summary as Markdown, for docs/clients.md to embed."""
    from pytest_rmq_conformance.pipeline.mix.report import table_markdown as table

    return table(summary)


def _entries(listed: dict[str, dict[str, Any]]) -> tuple[list, list, dict[str, str]]:
    """The consumer and producer entries of every client, and each harness spec's client name."""
    from pytest_rmq_conformance.pipeline.mix.allocation import consumer_entries
    from pytest_rmq_conformance.pipeline.mix.message_groups import group_entries

    consumer, producer, names = [], [], {}
    for name, entry in listed.items():
        spec = entry["harness"]
        if entry.get("unmixed"):  # the report names it under the mixing table, with the reason
            print(f"clients/mixing.py: {name}: not mixed: {entry['unmixed']}", file=sys.stderr)
            continue
        names[spec] = f"{name} {entry['pinned']}"
        mine, _ = consumer_entries([spec], RELEASE, 2.0)  # a client serving no consumer family has no consumer side
        theirs, _ = group_entries([spec])
        if not mine and not theirs:
            print(
                f"clients/mixing.py: {name}: its harness serves nothing to mix with Java (or did not start)",
                file=sys.stderr,
            )
        consumer += mine
        producer += theirs
    return consumer, producer, names


def _deterministic(summary: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """``summary`` without timings, each row and verdict labelled with its client and family."""

    def labelled(item: dict[str, Any]) -> str:
        client = names.get(item["spec"], item["spec"])
        return client if item["family"] is None else f"{client} [{item['family']}]"

    for side in ("consumer", "groups"):
        part = summary[side]
        if part is not None:
            part["elapsed_seconds"] = None
            for row in part["rows"]:
                row["seconds"] = None
                row["strategy"] = labelled(row)
    for verdict in summary["verdicts"]:
        verdict["client"] = names.get(verdict["spec"], verdict["spec"])
        verdict["strategy"] = labelled(verdict)
    return summary


def run(out: Path, listed: dict[str, dict[str, Any]], say=print) -> dict[str, Any]:
    """Mix every client of ``listed`` with Java and write ``out``; returns the merged summary."""
    from pytest_rmq_conformance.pipeline.mix.job import (
        empty_summary,
        merge_summaries,
        run_mix_groups_sweep,
        run_mix_sweep,
        validate_mix_summary,
    )
    from pytest_rmq_conformance.pipeline.mix.report import write_mix_report
    from pytest_rmq_conformance.pipeline.spark import spark_session, write_json

    consumer, producer, names = _entries(listed)
    summaries = []
    timings = {}
    with tempfile.TemporaryDirectory(prefix="rmq-mixing-") as scratch:
        session = spark_session(MASTER, log=Path(scratch) / "spark.log")
        try:
            if consumer:
                started = time.perf_counter()
                summaries.append(run_mix_sweep(consumer, CONSUMER_SPACE, Path(scratch) / "consumer", version=RELEASE,
                                               master=MASTER, partitions=PARTITIONS, report=False, progress=False,
                                               say=say, spark=session))  # fmt: skip
                timings["consumer"] = time.perf_counter() - started
            if producer:
                started = time.perf_counter()
                summaries.append(run_mix_groups_sweep(producer, GROUP_SPACE, Path(scratch) / "groups", master=MASTER,
                                                      partitions=PARTITIONS, report=False, progress=False, say=say,
                                                      spark=session))  # fmt: skip
                timings["producer"] = time.perf_counter() - started
        finally:
            session.stop()
    summary = _deterministic(merge_summaries(summaries) if summaries else empty_summary(), names)
    validate_mix_summary(summary)
    out.mkdir(parents=True, exist_ok=True)
    write_json(out / "summary.json", summary)
    write_mix_report(summary, out)
    (out / "table.md").write_text(table_markdown(summary), encoding="utf-8")
    for side, seconds in timings.items():
        say(f"clients/mixing.py: the {side} side took {seconds:.1f} s")
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/mixing"))
    args = parser.parse_args(argv)
    summary = run(args.out, clients(), say=lambda line: print(line, file=sys.stderr, flush=True))
    from pytest_rmq_conformance.pipeline.mix.report import verdict_lines

    print("\n".join(verdict_lines(summary)))
    print(
        f"written: {args.out / 'report.md'}, {args.out / 'report.html'}, {args.out / 'summary.json'}, {args.out / 'table.md'}"
    )
    print(json.dumps({v["client"]: v["safe"] for v in summary["verdicts"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
