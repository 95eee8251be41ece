"""Every built-in family's reference port through its whole suite, at every release with vectors, on many seeds.

    python scripts/seeds.py [--seeds 1..20] [--families AVG,GROUP_HASH] [--releases 4.9.8] [-j 2]
                            [--no-golden] [--slice K [--slice-key KEY]] [--timeout 900] [--list]

For every family of the built-in kinds (the registry's, ``engine.kinds``), every release whose
vectors hold cases of it (the shipped golden data's runs; a run under another JVM charset is a
release of its own, run with ``--rmq-charset``) and every seed, it runs
``pytest --rmq-strategy=F --rmq-reference-version=R --rmq-seed=S`` in a fresh empty directory, in
parallel subprocesses (``-j``, the cores by default), each within ``--timeout`` seconds. The golden
part does not depend on the seed: it runs with the first seed only, the other seeds run every
other part (``--rmq-checks``). ``--slice K`` draws K seeds from 1..2**32-1 instead, by
``--slice-key`` (CI: a new slice each run) and prints them.

Prints one line per failing run, with its failed tests and the command that replays it, then
its figures and a last line counting the runs; exits 1 when a run failed, 2 on bad arguments.
``--strategy SPEC`` runs SPEC in place of each family's port (give ``--families``). The runs get
no ``RMQ_*`` variables and no ``PYTEST_ADDOPTS``, so that the replay command is the whole story.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.golden.data import load_golden
from pytest_rmq_conformance.plugin.options import CHECKS
from pytest_rmq_conformance.releases import RELEASES, parse_release

#: a slice's seeds are drawn from 1..SLICE_RANGE
SLICE_RANGE = 2**32 - 1
#: a failed or erroring test, as pytest's short summary (``-rfE``) names it
SUMMARY_LINE = re.compile(r"^(FAILED|ERROR) (\S+)")
#: the failed tests a failing run's line names
SHOWN = 3


@dataclass(frozen=True)
class Target:
    """One family at one golden run: a release, and the JVM charset when it is not UTF-8."""

    family: str
    release: str
    charset: str = "UTF-8"

    @property
    def label(self) -> str:
        return f"{self.family} {self.release}" + ("" if self.charset == "UTF-8" else f"+{self.charset}")

    def options(self) -> list[str]:
        charset = [] if self.charset == "UTF-8" else [f"--rmq-charset={self.charset}"]
        return [f"--rmq-reference-version={self.release}", *charset]


@dataclass(frozen=True)
class Job:
    """One pytest run: a target, a seed, with or without the golden part."""

    target: Target
    seed: int
    golden: bool
    spec: str

    def pytest_args(self) -> list[str]:
        checks = [] if self.golden else ["--rmq-checks=" + ",".join(part for part in CHECKS if part != "golden")]
        return ["-p", "no:cacheprovider", f"--rmq-strategy={self.spec}", *self.target.options(), f"--rmq-seed={self.seed}", *checks]

    def replay(self) -> str:
        return shlex.join(["pytest", *self.pytest_args()])


@dataclass(frozen=True)
class Outcome:
    job: Job
    passed: bool
    seconds: float
    problem: str = ""


def built_in_families() -> list[str]:
    """The families of the built-in kinds, in the registry's order."""
    return [family.name for family in kinds.all_families() if type(kinds.get_kind(family.kind)).__module__ in kinds.BUILT_IN]


def targets_of(family: str) -> list[Target]:
    """The golden runs holding cases of ``family`` at the releases the built-in ports reproduce,
    oldest release first (the shipped data and its kind's own directories, read as a run of the
    suite reads them; at every other release a port is one of these, or refused)."""
    kind = kinds.kind_of(family)
    sets = [load_golden(strategies=[family])]
    sets += [load_golden(directory, strategies=[family], validate=False) for directory in kind.golden_dirs]
    runs = {golden.runs[run_id] for golden in sets for case in golden.cases for run_id in case.runs}
    found = {(run.rocketmq, run.default_charset) for run in runs if run.rocketmq in RELEASES}
    return [Target(family, release, charset) for release, charset in sorted(found, key=lambda rc: (parse_release(rc[0]), rc[1] != "UTF-8", rc[1]))]


def parse_seeds(text: str) -> list[int]:
    """``"1..20"``, ``"4187,90211"`` or a mix (``"1..3,9"``): the seeds in the order given, once each."""
    seeds: list[int] = []
    for part in text.split(","):
        item = part.strip()
        low, dots, high = item.partition("..")
        try:
            first, last = (int(low), int(high)) if dots else (int(item), int(item))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{item!r} is not a seed or a range like 1..20") from None
        if first < 0 or last < first:
            raise argparse.ArgumentTypeError(f"{item!r} is not a range of seeds (from 0 up, first <= last)")
        seeds += range(first, last + 1)
    return list(dict.fromkeys(seeds))


def shown_seeds(seeds: Sequence[int]) -> str:
    """``1..20`` for a run of consecutive seeds, the list otherwise."""
    if len(seeds) > 2 and list(seeds) == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{seeds[0]}..{seeds[-1]}"
    return ",".join(map(str, seeds))


def slice_of(count: int, key: str) -> list[int]:
    """``count`` seeds drawn from 1..SLICE_RANGE by ``key``: the same key, the same slice."""
    return sorted(random.Random(key).sample(range(1, SLICE_RANGE + 1), count))


def names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def select(families: Sequence[str], releases: Sequence[str] | None) -> list[Target]:
    """Every target of ``families`` at the ``releases`` (a release, or a run's label such as
    ``4.9.8+ISO-8859-1``; ``None``: all of them)."""
    chosen = []
    for family in families:
        for target in targets_of(family):
            run = target.label.split(" ", 1)[1]
            if releases is None or target.release in releases or run in releases:
                chosen.append(target)
    return chosen


def one_release(targets: Sequence[Target], seed: int) -> list[Target]:
    """One target per family, drawn by ``seed`` (the same seed, the same releases)."""
    families = list(dict.fromkeys(target.family for target in targets))
    return [random.Random(f"{seed}/{family}").choice([t for t in targets if t.family == family]) for family in families]


def jobs_of(targets: Sequence[Target], seeds: Sequence[int], golden: bool, strategy: str | None, rotate: bool = False) -> list[Job]:
    """The runs seed by seed (each family at one release a seed when ``rotate``); the golden part
    with a target's first seed only."""
    jobs, seen = [], set()
    for seed in seeds:
        for target in one_release(targets, seed) if rotate else targets:
            jobs.append(Job(target, seed, golden and target not in seen, strategy or target.family))
            seen.add(target)
    return jobs


def child_environment() -> dict[str, str]:
    """This process's environment without what would change a run behind its command line."""
    return {name: value for name, value in os.environ.items() if not name.startswith("RMQ_") and name != "PYTEST_ADDOPTS"}


def run(job: Job, timeout: float) -> Outcome:
    """``job`` in a fresh empty directory (no ini, no conftest, no hypothesis database)."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="rmq-seeds-") as empty:
        try:
            done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rfE", *job.pytest_args()], check=False, cwd=empty,
                                  env=child_environment(), capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return Outcome(job, False, time.perf_counter() - started, f"no verdict within {timeout:g} s (--timeout)")
    seconds = time.perf_counter() - started
    if done.returncode == 0:
        return Outcome(job, True, seconds)
    failed = [shown_test(match.group(2)) for line in done.stdout.splitlines() if (match := SUMMARY_LINE.match(line))]
    if failed:
        problem = ", ".join(failed[:SHOWN]) + (f" and {len(failed) - SHOWN} more" if len(failed) > SHOWN else "")
    elif done.returncode == 5:
        problem = "no test ran"
    else:
        last = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()[-1]
        problem = f"exit {done.returncode}: {last}"
    return Outcome(job, False, seconds, problem)


def shown_test(node_id: str) -> str:
    """A suite test's node id from its module's file name on (``test_golden.py::test_golden[AVG-0001]``)."""
    path, colons, test = node_id.partition("::")
    return os.path.basename(path) + colons + test


def describe(outcome: Outcome) -> str:
    job = outcome.job
    return f"FAILED {job.target.label} seed {job.seed}{' (golden)' if job.golden else ''}: {outcome.problem} | replay: {job.replay()}"


def parser() -> argparse.ArgumentParser:
    parsed = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    which = parsed.add_mutually_exclusive_group()
    which.add_argument("--seeds", type=parse_seeds, default=parse_seeds("1..20"), help="seeds: 1..20, 4187,90211 or both (default 1..20)")
    which.add_argument("--slice", type=int, metavar="K", help="K seeds drawn from 1..2**32-1 by --slice-key, printed")
    parsed.add_argument("--slice-key", default=None, help="what draws the slice (default: the UTC time, a new slice each run)")
    parsed.add_argument("--families", type=names, help="comma-separated families (default: every built-in one)")
    parsed.add_argument("--releases", type=names, help="comma-separated releases, or runs like 4.9.8+ISO-8859-1 (default: every one with vectors)")
    parsed.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="runs at once (default: the cores)")
    parsed.add_argument("--timeout", type=float, default=900.0, help="seconds one run may take (default 900)")
    parsed.add_argument("--no-golden", action="store_true", help="leave out the golden part (seed-independent) on every seed")
    parsed.add_argument("--one-release", action="store_true", help="each family at one of its releases per seed, drawn by the seed (CI's slice)")
    parsed.add_argument("--strategy", metavar="SPEC", help="run SPEC instead of each family's reference port (with --families)")
    parsed.add_argument("-v", "--verbose", action="store_true", help="one line per run, passed ones too, with its time")
    parsed.add_argument("--list", action="store_true", help="print the runs and their commands, run nothing")
    return parsed


def main(argv: Sequence[str] | None = None) -> int:
    parsed = parser()
    args = parsed.parse_args(argv)
    known = built_in_families()
    if args.families is not None:
        unknown = [name for name in args.families if name not in known]
        if unknown or not args.families:
            parsed.error(f"--families: unknown {', '.join(unknown) or 'nothing'}; the built-in families are {', '.join(known)}")
    elif args.strategy is not None:
        parsed.error("--strategy: name its family with --families, whose releases it runs at")
    if args.jobs < 1 or args.timeout <= 0 or (args.slice is not None and args.slice < 1):
        parsed.error("-j, --timeout and --slice take a positive number")
    targets = select(args.families or known, args.releases)
    if not targets:
        parsed.error(f"--releases: no vectors of {', '.join(args.families or known)} at {', '.join(args.releases or ())}")
    seeds = args.seeds
    if args.slice is not None:
        key = args.slice_key or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        seeds = slice_of(args.slice, key)
        print(f"seeds slice: {', '.join(map(str, seeds))} (--slice {args.slice} --slice-key {key})", flush=True)
    jobs = jobs_of(targets, seeds, not args.no_golden, args.strategy, args.one_release)
    if args.list:
        for job in jobs:
            print(f"{job.target.label} seed {job.seed}: {job.replay()}")
        return 0
    started = time.perf_counter()
    outcomes = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for future in as_completed([pool.submit(run, job, args.timeout) for job in jobs]):
            outcome = future.result()
            outcomes.append(outcome)
            if not outcome.passed:
                print(describe(outcome), flush=True)
            elif args.verbose:
                print(f"passed {outcome.job.target.label} seed {outcome.job.seed}{' (golden)' if outcome.job.golden else ''} in {outcome.seconds:.1f} s", flush=True)
    failed = sum(not outcome.passed for outcome in outcomes)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"wall {time.perf_counter() - started:.0f} s, runs' cpu {children.ru_utime + children.ru_stime:.0f} s, "
          f"-j {args.jobs}, longest run {max(outcome.seconds for outcome in outcomes):.1f} s")
    print(f"seeds {shown_seeds(seeds)}: {len({job.target for job in jobs})} families x releases, {len(outcomes)} runs, "
          f"{len(outcomes) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
