"""How fast the default command rejects a strategy that answers at random on one call in fifty.

    python benchmarks/flaky_verdict.py [--repeat 3] [--extra PYTEST_ARGS] [NAME ...]

Each round runs, in a fresh temporary directory and a subprocess, exactly
what a user types: ``pytest --rmq-strategy=AVG`` (the yardstick: a passing
run of the reference strategy of the same family) and
``pytest --rmq-strategy=flaky:NAME`` (strategies of tests/flaky.py), one
after the other, so both see the same machine load. Prints the median wall
times, their ratio (the issue asks for at most 3x), and whether each flaky
run failed, called the strategy nondeterministic and showed two answers.
Measures; asserts nothing.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"


def run(spec: str, cwd: str, extra: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--rmq-strategy={spec}", *extra],
        cwd=cwd, capture_output=True, text=True,
    )
    return time.perf_counter() - started, done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=["OneInFifty"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--extra", default="", help="more pytest arguments for both runs, e.g. '--rmq-examples=5'")
    args = parser.parse_args()
    extra = args.extra.split()
    with tempfile.TemporaryDirectory() as work:
        shutil.copy(TESTS / "flaky.py", work)
        yardstick: list[float] = []
        flaky: dict[str, list[float]] = {name: [] for name in args.names}
        verdicts: dict[str, list[str]] = {name: [] for name in args.names}
        for _ in range(args.repeat):
            took, done = run("AVG", work, extra)
            yardstick.append(took)
            if done.returncode != 0:
                print(f"the yardstick run failed (exit {done.returncode}):\n{done.stdout[-2000:]}")
            for name in args.names:
                took, done = run(f"flaky:{name}", work, extra)
                flaky[name].append(took)
                out = done.stdout
                named = out.count("is nondeterministic: the same example, asked twice")
                two = "    first:  " in out and "    replay: " in out
                verdicts[name].append(f"exit {done.returncode}, {named} check(s) called it nondeterministic, two answers shown: {two}")
        base = statistics.median(yardstick)
        print(f"yardstick pytest --rmq-strategy=AVG: median {base:.1f} s over {args.repeat} run(s) {[round(t, 1) for t in yardstick]}")
        for name in args.names:
            median = statistics.median(flaky[name])
            print(f"pytest --rmq-strategy=flaky:{name}: median {median:.1f} s {[round(t, 1) for t in flaky[name]]}, "
                  f"ratio {median / base:.2f}x")
            for verdict in verdicts[name]:
                print(f"  {verdict}")


if __name__ == "__main__":
    main()
