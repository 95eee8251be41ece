"""How long CI takes: ``bash .ci/run`` in a fresh clone of this repository's HEAD, as CI runs it,
timed end to end and by part, beside a yardstick measured in the same run.

The parts are what the run prints of itself: each tox env's line of tox's summary (setup and
commands), the clients and clients-trend jobs' totals (they run beside the main tox run), and the
seeds slice. The yardstick is the wall time of a fixed job on the same machine, the whole suite
for the built-in AVG at the default release (``pytest --rmq-strategy=AVG`` in an empty folder:
pytest, the plugin, one family's vectors and its generated checks, much of what CI does), taken
just before and just after the run: the run's time in yardsticks says how long CI
takes on a machine as loaded as this one was, the seconds how long it took here. The CPU time of
the run's processes (those it waited for) against its wall time says how much of the machine it
kept busy: near the number of cores, the run is bound by the work it does, and only doing less
of it makes it shorter.

Goal (issue 42): the whole run within 15 minutes on 2 cores, the clients and trend jobs included,
with the machine's caches warm (pip, npm, Go, and the tox envs .ci/run keeps outside the clone).
Only committed work is cloned: commit first.

    python benchmarks/ci_run.py                   # clones HEAD, runs .ci/run, prints the table
    python benchmarks/ci_run.py --log ci.log      # and keeps what the run printed
    python benchmarks/ci_run.py --command 'true'  # times another command in the fresh clone
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL = 15 * 60
YARDSTICK = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rmq-strategy=AVG"]
#: tox's summary line of one env: "  py311: OK (1043.77=setup[79.66]+cmd[964.10] seconds)"
ENV_LINE = re.compile(r"^\s+([\w.-]+): (OK|FAIL|SKIP)\S* \(([\d.]+)=setup\[([\d.]+)\]\+cmd\[([\d., ]*)\] seconds\)")
SEEDS_LINE = re.compile(r"^seeds .*: .* runs, .* passed, .* failed$")


def yardstick(golden_only: bool) -> float:
    """Wall seconds of the yardstick job (it must succeed); ``golden_only``: its golden part alone."""
    with tempfile.TemporaryDirectory(prefix="rmq-yardstick-") as empty:
        started = time.monotonic()
        done = subprocess.run(YARDSTICK + ["--rmq-checks=golden"] * golden_only, cwd=empty, capture_output=True, text=True)
        took = time.monotonic() - started
    if done.returncode != 0:
        sys.exit(f"ci_run: the yardstick failed:\n{done.stdout[-1000:]}{done.stderr[-1000:]}")
    return took


def children_cpu() -> float:
    """CPU seconds of the child processes waited for so far, and of theirs."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def parts(log: str) -> list[tuple[str, float, float]]:
    """(env, setup seconds, commands seconds) for each env line of every tox summary in ``log``."""
    found = []
    for line in log.splitlines():
        match = ENV_LINE.match(line)
        if match:
            commands = sum(float(x) for x in match[5].split(",") if x.strip())
            found.append((f"{match[1]} ({match[2]})", float(match[4]), commands))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--command", default="bash .ci/run", help="what to time in the fresh clone (default: bash .ci/run)")
    parser.add_argument("--log", type=Path, help="keep what the run printed in this file")
    parser.add_argument("--golden-yardstick", action="store_true",
                        help="a yardstick of the golden part alone (about a tenth of the time: for a quick try of this script)")
    args = parser.parse_args()
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    before = yardstick(args.golden_yardstick)
    with tempfile.TemporaryDirectory(prefix="rmq-ci-") as scratch:
        clone = Path(scratch) / "clone"
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        started, cpu_before = time.monotonic(), children_cpu()
        done = subprocess.run(["bash", "-c", args.command], cwd=clone, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        took, cpu = time.monotonic() - started, children_cpu() - cpu_before
    after = yardstick(args.golden_yardstick)
    if args.log is not None:
        args.log.write_text(done.stdout, encoding="utf-8")
    stick = statistics.mean([before, after])
    print(f"`{args.command}` in a fresh clone of {head}: exit {done.returncode}")
    print("\n| part | setup s | commands s |\n| --- | ---: | ---: |")
    for name, setup, commands in parts(done.stdout):
        print(f"| {name} | {setup:.0f} | {commands:.0f} |")
    for line in done.stdout.splitlines():
        if SEEDS_LINE.match(line):
            print(f"\n{line}")
    print(f"\nwhole run: {took:.0f} s ({took / 60:.1f} min; the goal is {GOAL // 60} min: {'within' if took <= GOAL else 'over'} it)")
    print(f"CPU: {cpu:.0f} s of the run's processes, {cpu / took:.2f} of the machine's {os.cpu_count()} cores on average")
    stick_name = "pytest --rmq-strategy=AVG" + " --rmq-checks=golden" * args.golden_yardstick
    print(f"yardstick ({stick_name}): {before:.1f} s before, {after:.1f} s after; the run took {took / stick:.0f} yardsticks")
    if done.returncode != 0:
        print(done.stdout[-3000:], file=sys.stderr)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
