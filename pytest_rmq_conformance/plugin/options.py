"""Command-line options and ini keys, and the run's settings read from them.

Each choice is read from its option, then its environment variable, then
its ini key, then the default; the report header says which one it came
from. Reading options imports nothing of the engine until the settings
themselves are built.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest

__all__ = ["CHECKS", "add_options", "choose", "wants_suite", "selects", "settings_from", "seed_of", "checks_of", "case_lists"]

#: the parts of the suite ``--rmq-checks`` selects; suite module ``test_<part>.py`` holds part ``<part>``
CHECKS = ("golden", "sort", "invariants", "one-answer", "reference", "rebalance")
PROFILE_NAMES = ("quick", "thorough")


def add_options(parser) -> None:
    group = parser.getgroup("rmq-conformance", "RocketMQ queue-allocation conformance")
    group.addoption(
        "--rmq-strategy",
        metavar="SPEC",
        help="strategy under test: a built-in name (AVG, AVG_BY_CIRCLE, CONSISTENT_HASH, MACHINE_ROOM, "
        "MACHINE_ROOM_NEARBY, CONFIG), a name from a plugin or the rmq_conformance.strategies entry points, "
        "module:attribute (a class, factory or instance), or exec:COMMAND (a harness process speaking the "
        "JSON-lines protocol, for strategies in any language). Without test paths, runs the shipped suite. "
        "Also: env RMQ_STRATEGY, ini rmq_strategy.",
    )
    group.addoption(
        "--rmq-reference-version",
        metavar="RELEASE",
        help="RocketMQ release whose Java answers are the reference: 5.3.3 (default), 4.9.8 or 4.7.1. "
        "Also: env RMQ_REFERENCE_VERSION, ini rmq_reference_version.",
    )
    group.addoption(
        "--rmq-charset",
        metavar="CHARSET",
        help="JVM default charset the 4.x consistent hash read key bytes in (default UTF-8; "
        "golden vectors exist for ISO-8859-1 at 4.9.8)",
    )
    group.addoption(
        "--rmq-strict-order",
        action="store_true",
        help="compare answers as lists in Java's order (default: as sets, as the rebalance uses them)",
    )
    group.addoption("--rmq-timeout", type=float, metavar="SECONDS", help="time limit of one allocate() call (default 5; 0 for none)")
    group.addoption(
        "--rmq-max-hangs",
        type=int,
        default=3,
        metavar="N",
        help="after N calls over the time limit in the run, stop calling the strategy (default 3)",
    )
    group.addoption(
        "--rmq-isolate",
        action="store_true",
        help="run a Python strategy in a process of its own, through the built-in harness: a crash fails "
        "the case in flight and the run goes on",
    )
    group.addoption(
        "--rmq-max-restarts",
        type=int,
        metavar="N",
        help="restart a harness process at most N times after faults (crash, garbage, overrun; default 3), "
        "then report the remaining cases as not run. Also: ini rmq_max_restarts.",
    )
    group.addoption(
        "--rmq-xfail-file",
        action="append",
        default=[],
        metavar="PATH",
        help="file of case ids or test names (fnmatch patterns) expected to fail",
    )
    group.addoption(
        "--rmq-skip-file",
        action="append",
        default=[],
        metavar="PATH",
        help="file of case ids or test names (fnmatch patterns) not to run",
    )
    group.addoption("--rmq-suite", action="store_true", help="add the shipped conformance suite to the run")
    group.addoption(
        "--rmq-case",
        action="append",
        default=[],
        metavar="ID",
        help="run only the suite's golden cases matching ID, and their sort tests (fnmatch pattern; repeatable)",
    )
    group.addoption(
        "--rmq-checks",
        metavar="LIST",
        help=f"comma-separated parts of the suite to run: {', '.join(CHECKS)} (default: all of them)",
    )
    group.addoption(
        "--rmq-profile",
        choices=PROFILE_NAMES,
        help="how hard the generated checks look: quick (default, every run) or thorough (nightly). "
        "Also: env RMQ_PROFILE, ini rmq_profile.",
    )
    group.addoption("--rmq-examples", type=int, metavar="N", help="generated examples per check, instead of the profile's number")
    group.addoption(
        "--rmq-shrink-time",
        type=float,
        metavar="SECONDS",
        help="time a generated check may spend shrinking a failure to a smaller example (default 5); when it "
        "runs out, the smallest failing example found so far is reported. Also: ini rmq_shrink_time.",
    )
    group.addoption(
        "--rmq-check-time",
        type=float,
        metavar="SECONDS",
        help="time a generated check may spend drawing examples (default: 60 for the quick profile, 900 for "
        "thorough); when it runs out, the check passes on the examples it tried and a warning says how many. "
        "Also: ini rmq_check_time.",
    )
    group.addoption(
        "--rmq-results",
        metavar="FILE",
        help="write one JSON line per test outcome to FILE as it is known (schema: schemas/results.schema.json)",
    )
    group.addoption(
        "--rmq-seed",
        type=int,
        metavar="N",
        help="seed of the generated checks (default: a new one each run, printed in the header; also: env RMQ_SEED)",
    )
    parser.addini("rmq_strategy", "strategy under test (see --rmq-strategy)")
    parser.addini("rmq_profile", "profile of the generated checks (see --rmq-profile)")
    parser.addini("rmq_reference_version", "RocketMQ reference release (see --rmq-reference-version)")
    parser.addini("rmq_timeout", "time limit of one allocate() call in seconds (see --rmq-timeout)")
    parser.addini("rmq_max_restarts", "restarts of a faulty harness process (see --rmq-max-restarts)")
    parser.addini("rmq_shrink_time", "seconds a generated check may spend shrinking a failure (see --rmq-shrink-time)")
    parser.addini("rmq_check_time", "seconds a generated check may spend drawing examples (see --rmq-check-time)")


def choose(config, option: str, env: str, ini: str, default: str) -> tuple[str, str]:
    """``(value, where it came from)``: the option, the environment variable, the ini key, the default."""
    value = config.getoption(option)
    if value:
        return value, f"--{option.replace('_', '-')}"
    if os.environ.get(env):
        return os.environ[env], f"${env}"
    if config.getini(ini):
        return str(config.getini(ini)), f"ini {ini}"
    return default, "default"


def wants_suite(config) -> bool:
    """Whether this run checks a strategy: a strategy chosen (option, ``$RMQ_STRATEGY``, ini key),
    ``--rmq-suite``, or the suite among the paths. Only then is the report header shown."""
    _, origin = choose(config, "rmq_strategy", "RMQ_STRATEGY", "rmq_strategy", "")
    return (
        origin != "default"
        or bool(config.getoption("rmq_suite"))
        or any("pytest_rmq_conformance" in str(arg) for arg in config.args)
    )


def selects(config) -> bool:
    """Whether an option picks or marks tests: ``--rmq-checks``, ``--rmq-case``, the known-divergence files."""
    return bool(
        config.getoption("rmq_checks")
        or config.getoption("rmq_case")
        or config.getoption("rmq_xfail_file")
        or config.getoption("rmq_skip_file")
    )


def seed_of(config) -> int:
    """``--rmq-seed``, ``$RMQ_SEED``, the controller's seed on an xdist worker, or a new one."""
    seed = config.getoption("rmq_seed")
    if seed is None and os.environ.get("RMQ_SEED"):
        try:
            seed = int(os.environ["RMQ_SEED"])
        except ValueError:
            raise pytest.UsageError(f"$RMQ_SEED must be an integer, not {os.environ['RMQ_SEED']!r}") from None
    if seed is None:
        seed = getattr(config, "workerinput", {}).get("rmq_seed")
    return random.randrange(2**32) if seed is None else seed


def settings_from(config, seed: int) -> Any:
    """The run's :class:`~pytest_rmq_conformance.engine.subject.Settings`."""
    from pytest_rmq_conformance.engine.settings import DEFAULT_STRATEGY, Settings
    from pytest_rmq_conformance.javalang import normalize_charset
    from pytest_rmq_conformance.strategies import DEFAULT_RELEASE

    spec, origin = choose(config, "rmq_strategy", "RMQ_STRATEGY", "rmq_strategy", DEFAULT_STRATEGY)
    version, version_origin = choose(
        config, "rmq_reference_version", "RMQ_REFERENCE_VERSION", "rmq_reference_version", DEFAULT_RELEASE
    )
    timeout = config.getoption("rmq_timeout")
    if timeout is None:
        timeout = float(config.getini("rmq_timeout") or str(Settings.timeout))
    try:
        charset = normalize_charset(config.getoption("rmq_charset") or "UTF-8")
    except ValueError as exc:
        raise pytest.UsageError(f"--rmq-charset: {exc}") from None
    profile, _ = choose(config, "rmq_profile", "RMQ_PROFILE", "rmq_profile", "quick")
    if profile not in PROFILE_NAMES:
        raise pytest.UsageError(f"rmq profile {profile!r}: expected one of {', '.join(PROFILE_NAMES)}")
    restarts = config.getoption("rmq_max_restarts")
    if restarts is None:
        restarts = int(config.getini("rmq_max_restarts") or Settings.max_restarts)
    if restarts < 0:
        raise pytest.UsageError(f"--rmq-max-restarts must be 0 or more, not {restarts}")
    examples = config.getoption("rmq_examples")
    if examples is not None and examples < 1:
        raise pytest.UsageError(f"--rmq-examples must be at least 1, not {examples}")
    shrink_time = _seconds(config, "rmq_shrink_time", None)
    check_time = _seconds(config, "rmq_check_time", None)
    return Settings(
        spec=spec,
        origin=origin,
        version=version,
        version_origin=version_origin,
        charset=charset,
        strict_order=config.getoption("rmq_strict_order"),
        timeout=timeout or None,
        max_hangs=config.getoption("rmq_max_hangs"),
        max_restarts=restarts,
        isolate=config.getoption("rmq_isolate"),
        profile=profile,
        seed=seed,
        examples=examples,
        shrink_time=Settings.shrink_time if shrink_time is None else shrink_time,
        check_time=check_time,
        search_path=tuple(dict.fromkeys(str(folder) for folder in (config.invocation_params.dir, config.rootpath))),
    )


def _seconds(config, name: str, default: float | None) -> float | None:
    """A time in seconds from option ``--name``, else ini key ``name``, else ``default``; never negative."""
    option = f"--{name.replace('_', '-')}"
    value = config.getoption(name)
    where = option
    if value is None and config.getini(name):
        where = f"ini {name}"
        try:
            value = float(config.getini(name))
        except ValueError:
            raise pytest.UsageError(f"{where}: expected a number of seconds, not {config.getini(name)!r}") from None
    if value is None:
        return default
    if value < 0:
        raise pytest.UsageError(f"{where} must be 0 or more seconds, not {value:g}")
    return value


def checks_of(config) -> list[str] | None:
    """``--rmq-checks`` as a list (``None``: all of them)."""
    value = config.getoption("rmq_checks")
    if not value:
        return None
    chosen = [part.strip() for part in value.split(",") if part.strip()]
    unknown = sorted(set(chosen) - set(CHECKS))
    if unknown or not chosen:
        raise pytest.UsageError(f"--rmq-checks={value}: unknown part(s) {unknown}; choose from {', '.join(CHECKS)}")
    return chosen


def case_lists(config, option: str) -> list:
    """The known-divergence files given to ``option`` (``rmq_xfail_file`` or ``rmq_skip_file``)."""
    from pytest_rmq_conformance.plugin.divergences import read_case_list

    try:
        return [read_case_list(Path(path), f"--{option.replace('_', '-')}") for path in config.getoption(option)]
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
