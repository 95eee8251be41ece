"""How long recording takes, against the floor: a JVM that only starts and exits, measured in the
same run (this machine is shared and noisy; the ratio is the figure to report).

    python benchmarks/record_releases.py                       # every version Maven Central serves
    python benchmarks/record_releases.py --releases 4.7.1,5.5.0 --client-java 5.2.0
    python benchmarks/record_releases.py --maven-repo /tmp/m2  # a cold Maven repository
    python benchmarks/record_releases.py --releases '' --client-java ''  # the floor alone (no network)

Prints, per version and kind, the seconds the record took (Maven's resolution included) and its
ratio to the floor, then the totals: wall time, and the CPU time of every process it started.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def floor(runs: int = 5) -> float:
    """The median seconds of ``java -version``: a JVM that starts and exits."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(["java", "-version"], capture_output=True, check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _versions(given: str | None, served) -> list[str]:
    """The versions named (comma-separated; an empty string names none), else every one served."""
    if given is None:
        return list(served().recorded)
    return [version for version in given.split(",") if version]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--releases", help="rocketmq-client releases, comma-separated (default: every one served)")
    parser.add_argument("--client-java", help="rocketmq-client-java versions, comma-separated (default: every one served)")
    parser.add_argument("--maven-repo", type=Path, help="a Maven repository folder to resolve into (MAVEN_OPTS), for a cold run")
    args = parser.parse_args()
    if args.maven_repo is not None:
        os.environ["MAVEN_OPTS"] = f"{os.environ.get('MAVEN_OPTS', '')} -Dmaven.repo.local={args.maven_repo}".strip()
    from pytest_rmq_conformance.record.recorders import RECORDERS
    from pytest_rmq_conformance.record.served import client_java_versions, rocketmq_releases

    releases = _versions(args.releases, rocketmq_releases)
    clients = _versions(args.client_java, client_java_versions)
    before = floor()
    print(f"floor (java -version, median of 5): {before:.3f} s")
    started = time.perf_counter()
    rows = []
    with tempfile.TemporaryDirectory(prefix="rmq-bench-record-") as scratch:
        for kind, versions in (("allocation", releases), ("producer", releases), ("grpc", clients)):
            recorder = RECORDERS[kind]
            scenarios = recorder.module.shipped_scenarios()
            print(f"{kind}: {len(scenarios)} shipped scenarios, {len(versions)} versions to ask", flush=True)
            for version in versions:
                at = time.perf_counter()
                asked = recorder.ask(version, scenarios, Path(scratch) / kind)
                took = time.perf_counter() - at
                rows.append((kind, version, took))
                print(f"{kind:10} {version:8} {asked.records:5} scenarios {took:6.2f} s = {took / before:5.1f} floors", flush=True)
    wall = time.perf_counter() - started
    after = floor()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"floor again: {after:.3f} s")
    for kind in ("allocation", "producer", "grpc"):
        took = [row[2] for row in rows if row[0] == kind]
        if took:
            print(f"{kind}: {len(took)} versions, {sum(took):.1f} s, median {statistics.median(took):.2f} s = "
                  f"{statistics.median(took) / before:.1f} floors")
    print(f"total: {wall:.1f} s wall, {children.ru_utime + children.ru_stime:.1f} cpu-s in the processes started, "
          f"{os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
