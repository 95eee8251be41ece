"""Golden replay through the built-in Python harness against the same replay in this process.

Both replay every golden case of one family at one release through the engine
(``GoldenCases.run_case``, as the plugin does): in process, the reference port
built for each caller; through ``exec:python -m pytest_rmq_conformance.harness``,
one request per case with all its callers. Rounds alternate, so load on the
shared machine hits both alike; the figure is the ratio of the two rates
(target: the harness at least 50 % of the in-process rate).

    python benchmarks/harness_speed.py [--family AVG] [--release 5.3.3] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from pytest_rmq_conformance.engine.golden.cases import GoldenCases
from pytest_rmq_conformance.engine.loading.subject import Subject
from pytest_rmq_conformance.engine.settings import Settings


def replay(spec: str, release: str) -> tuple[float, int]:
    """Seconds to replay every case, and the number of calls, for a subject loaded beforehand."""
    subject = Subject(Settings(spec=spec, version=release))
    golden = GoldenCases(subject)
    cases = golden.cases()  # loading and the harness's start are not what is compared
    assert subject.load_error is None, subject.load_error
    calls = sum(len(case.results_for(golden.run_for(case))) for case in cases)
    started = time.perf_counter()
    failed = [case.id for case in cases if not golden.run_case(case).passed]
    elapsed = time.perf_counter() - started
    if subject.harness is not None:
        subject.harness.stop()
    if failed:
        raise SystemExit(f"{spec}: {len(failed)} cases failed, first {failed[0]}")
    return elapsed, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", default="AVG")
    parser.add_argument("--release", default="5.3.3")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    harness = f"exec:{sys.executable} -m pytest_rmq_conformance.harness {args.family}"
    local, remote = [], []
    for _ in range(args.rounds):
        seconds, calls = replay(args.family, args.release)
        local.append(calls / seconds)
        seconds, calls = replay(harness, args.release)
        remote.append(calls / seconds)
    here, there = statistics.median(local), statistics.median(remote)
    print(f"{args.family} at {args.release}, {calls} calls a round, median of {args.rounds} rounds:")
    print(f"  in process:       {here:9.0f} calls/s")
    print(f"  through harness:  {there:9.0f} calls/s")
    print(f"  ratio: {there / here:.2f} (target >= 0.50)")


if __name__ == "__main__":
    main()
