"""Command-line options and ini keys, and the run's settings read from them.

Every setting in :data:`CHOICES` is read by one rule: its option, then its
environment variable ``RMQ_<NAME>``, then its ini key ``rmq_<name>``, then the
default; the report header says where the strategy and the release came
from, and a bad value is named with its origin. Reading options imports
nothing of the engine until the settings themselves are built: the defaults
come from :mod:`pytest_rmq_conformance.defaults`, which the engine's settings
start from too, and the built-in families the help lists are held equal to
the registry's by the tests.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_rmq_conformance.defaults import CHARSET, MAX_HANGS, MAX_RESTARTS, PROFILE, SHRINK_TIME, STRATEGY, TIMEOUT
from pytest_rmq_conformance.releases import DEFAULT_RELEASE, RELEASES

__all__ = [
    "BUILT_IN_FAMILIES",
    "CHECKS",
    "CHOICES",
    "OPTION_DEFAULTS",
    "Choice",
    "add_options",
    "choose",
    "wants_suite",
    "selects",
    "settings_from",
    "seed_of",
    "checks_of",
    "case_lists",
]

#: the parts of the suite ``--rmq-checks`` selects; suite module ``test_<part>.py`` holds part ``<part>``
CHECKS = ("golden", "sort", "invariants", "one-answer", "reference", "rebalance")
PROFILE_NAMES = ("quick", "thorough")
#: the built-in strategy families, kind by kind, as ``--help`` names them: the registry's
#: (:mod:`pytest_rmq_conformance.engine.kinds`), written out so that start-up imports no kind
#: (tests/test_options.py holds the two equal)
BUILT_IN_FAMILIES = {
    "consumer allocation": ("AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "MACHINE_ROOM", "MACHINE_ROOM_NEARBY", "CONFIG"),
    "producer selection": ("FAULT_STRATEGY", "SELECTOR_HASH", "SELECTOR_RANDOM"),
    "5.x gRPC balancing": ("GROUP_HASH", "PUBLISH_ROUND_ROBIN", "SUBSCRIBE_ROUND_ROBIN"),
}


def add_options(parser) -> None:
    group = parser.getgroup("rmq-conformance", "RocketMQ queue-allocation conformance")
    group.addoption(
        "--rmq-strategy",
        metavar="SPEC",
        help="strategy under test: a built-in name ("
        + "; ".join(f"{kind}: {', '.join(families)}" for kind, families in BUILT_IN_FAMILIES.items())
        + "), a name from a plugin or the rmq_conformance.strategies entry points, "
        "module:attribute (a class, factory or instance), or exec:COMMAND (a harness process speaking the "
        f"JSON-lines protocol, for strategies in any language); default {STRATEGY}. Without test paths, runs the "
        "shipped suite. Also: env RMQ_STRATEGY, ini rmq_strategy.",
    )
    group.addoption(
        "--rmq-reference-version",
        metavar="RELEASE",
        help=f"RocketMQ release whose Java answers are the reference (default {DEFAULT_RELEASE}): any release the "
        "golden data covers (rmq-conformance golden releases lists what Maven Central serves; the built-in ports "
        f"reproduce {', '.join(RELEASES)} and every release that answers as one of them); a line, such as 4.9, "
        "is the newest of its releases the golden data covers (the header says which)"
        + ". Also: env RMQ_REFERENCE_VERSION, ini rmq_reference_version.",
    )
    group.addoption(
        "--rmq-charset",
        default=CHARSET,
        metavar="CHARSET",
        help=f"JVM default charset the 4.x consistent hash read key bytes in (default {CHARSET}; "
        "golden vectors exist for ISO-8859-1 at 4.9.8)",
    )
    group.addoption(
        "--rmq-strict-order",
        action="store_true",
        help="compare answers as lists in Java's order (default: as sets, as the rebalance uses them)",
    )
    group.addoption(
        "--rmq-timeout",
        type=float,
        metavar="SECONDS",
        help="time limit of each call into the strategy under test, of every kind: building it, allocate(), "
        "select(), select_one_message_queue(), a balancer's take_message_queue*() (over exec:, a request has this "
        f"much per call it holds) (default {TIMEOUT:g}; 0 for none). Also: env RMQ_TIMEOUT, ini rmq_timeout.",
    )
    group.addoption(
        "--rmq-max-hangs",
        type=int,
        default=MAX_HANGS,
        metavar="N",
        help=f"after N calls over the time limit in the run, stop calling the strategy (default {MAX_HANGS})",
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
        help=f"restart a harness process at most N times after faults (crash, garbage, overrun; default {MAX_RESTARTS}), "
        "then report the remaining cases as not run. Also: env RMQ_MAX_RESTARTS, ini rmq_max_restarts.",
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
        help=f"how hard the generated checks look: quick (every run) or thorough (nightly); default {PROFILE}. "
        "Also: env RMQ_PROFILE, ini rmq_profile.",
    )
    group.addoption(
        "--rmq-examples",
        type=int,
        metavar="N",
        help="generated examples per check, instead of the profile's number. Also: env RMQ_EXAMPLES, ini rmq_examples.",
    )
    group.addoption(
        "--rmq-shrink-time",
        type=float,
        metavar="SECONDS",
        help=f"time a generated check may spend shrinking a failure to a smaller example (default {SHRINK_TIME:g}); when it "
        "runs out, the smallest failing example found so far is reported. Also: env RMQ_SHRINK_TIME, ini rmq_shrink_time.",
    )
    group.addoption(
        "--rmq-check-time",
        type=float,
        metavar="SECONDS",
        help="time a generated check may spend drawing examples (default: 60 for the quick profile, 900 for "
        "thorough); when it runs out, the check is not run (never passed), and the summary says how many of how "
        "many examples it tried. "
        "Also: env RMQ_CHECK_TIME, ini rmq_check_time.",
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
        help="seed of the generated checks (default: a new one each run, printed in the header). "
        "Also: env RMQ_SEED, ini rmq_seed.",
    )
    for choice in CHOICES.values():
        parser.addini(choice.dest, f"default of --rmq-{choice.name} (an option or ${choice.env} wins)")


def _parser(kind: type, what: str, least: float | None = None, unit: str = "") -> Callable[[str], Any]:
    """Parses a ``kind`` (``what`` names it in errors) of at least ``least``."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise ValueError(f"expected {what}, not {text!r}") from None
        if least is not None and value < least:
            bound = "0 or more" if least == 0 else f"at least {least:g}"
            raise ValueError(f"must be {bound}{unit}, not {value:g}")
        return value

    return parse


_seconds = _parser(float, "a number of seconds", 0, " seconds")
_count = _parser(int, "a whole number", 0)
_examples = _parser(int, "a whole number", 1)
_seed = _parser(int, "a whole number")


def _profile(text: str) -> str:
    if text not in PROFILE_NAMES:
        raise ValueError(f"expected one of {', '.join(PROFILE_NAMES)}, not {text!r}")
    return text


_UNSET: Any = object()


@dataclass(frozen=True)
class Choice:
    """A setting read from option ``--rmq-<name>``, then ``$RMQ_<NAME>``, then ini ``rmq_<name>``,
    then its ``default`` (the option's parser default stays ``None``, so that a value given is
    told from none); ``says`` is the default in words, for one that is no single value."""

    name: str  # as in the option, e.g. "max-restarts"
    parse: Callable[[str], Any] = str
    default: Any = None
    says: str | None = None

    @property
    def shown(self) -> str:
        """The default as the options reference shows it."""
        if self.says is not None:
            return self.says
        return f"{self.default:g}" if isinstance(self.default, float) else str(self.default)

    @property
    def dest(self) -> str:
        return "rmq_" + self.name.replace("-", "_")

    @property
    def env(self) -> str:
        return self.dest.upper()

    def read(self, config, default: Any = _UNSET) -> tuple[Any, str]:
        """``(value, where it came from)``, ``default`` (by default this choice's own) when none is
        given; a value that does not parse is a usage error naming where it is."""
        found = [
            (config.getoption(self.dest), f"--rmq-{self.name}"),
            (os.environ.get(self.env), f"${self.env}"),
            (config.getini(self.dest), f"ini {self.dest}"),
        ]
        for value, origin in found:
            if value is None or value == "":
                continue
            try:
                return self.parse(str(value)), origin
            except ValueError as exc:
                raise pytest.UsageError(f"{origin}: {exc}") from None
        return (self.default if default is _UNSET else default), "default"


#: every setting read by the one rule, by option name
CHOICES = {
    choice.name: choice
    for choice in (
        Choice("strategy", default=STRATEGY),
        Choice("reference-version", default=DEFAULT_RELEASE),
        Choice("profile", _profile, default=PROFILE),
        Choice("timeout", _seconds, default=TIMEOUT),
        Choice("max-restarts", _count, default=MAX_RESTARTS),
        Choice("examples", _examples, says="the profile's (see --rmq-profile)"),
        Choice("shrink-time", _seconds, default=SHRINK_TIME),
        Choice("check-time", _seconds, says="the profile's (see --rmq-profile)"),
        Choice("seed", _seed, says="a new one each run"),
    )
}

#: the defaults of the options whose parser default is ``None`` (an option not given may still be
#: set by its environment variable or ini key), by dest, in words: what the options reference shows
OPTION_DEFAULTS = {
    **{choice.dest: choice.shown for choice in CHOICES.values()},
    "rmq_checks": f"all of them: {', '.join(CHECKS)}",
}


def choose(config, name: str, default: Any = _UNSET) -> tuple[Any, str]:
    """``(value, where it came from)`` of the setting ``name`` (a key of :data:`CHOICES`); when
    none is given, ``default``, by default the setting's own."""
    return CHOICES[name].read(config, default)


def wants_suite(config) -> bool:
    """Whether this run checks a strategy: a strategy chosen (option, ``$RMQ_STRATEGY``, ini key),
    ``--rmq-suite``, or the suite among the paths. Only then is the report header shown."""
    _, origin = choose(config, "strategy")
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
    """The seed of the generated checks: chosen (option, ``$RMQ_SEED``, ini), the controller's on
    an xdist worker, or a new one."""
    seed, _ = choose(config, "seed", getattr(config, "workerinput", {}).get("rmq_seed"))
    return random.randrange(2**32) if seed is None else seed


def settings_from(config, seed: int) -> Any:
    """The run's :class:`~pytest_rmq_conformance.engine.settings.Settings`."""
    from pytest_rmq_conformance.engine.settings import Settings
    from pytest_rmq_conformance.javalang import normalize_charset

    spec, origin = choose(config, "strategy")
    version, version_origin = choose(config, "reference-version")
    if version_origin != "default":  # a line (4.9) is its newest release the golden data covers
        from pytest_rmq_conformance.engine.golden.data import shipped_releases
        from pytest_rmq_conformance.releases import is_line, release_problem, resolve_line

        line, covered = version, shipped_releases()
        version, said = resolve_line(version, covered)
        if said is not None:
            version_origin = f"{version_origin} {line}: {said}"
        elif is_line(line):
            raise pytest.UsageError(f"{version_origin}={line}: {release_problem(line, covered)}")
    try:
        charset = normalize_charset(config.getoption("rmq_charset") or CHARSET)
    except ValueError as exc:
        raise pytest.UsageError(f"--rmq-charset: {exc}") from None
    timeout, _ = choose(config, "timeout")
    return Settings(
        spec=spec,
        origin=origin,
        version=version,
        version_origin=version_origin,
        charset=charset,
        strict_order=config.getoption("rmq_strict_order"),
        timeout=timeout or None,
        max_hangs=config.getoption("rmq_max_hangs"),
        max_restarts=choose(config, "max-restarts")[0],
        isolate=config.getoption("rmq_isolate"),
        profile=choose(config, "profile")[0],
        seed=seed,
        examples=choose(config, "examples")[0],
        shrink_time=choose(config, "shrink-time")[0],
        check_time=choose(config, "check-time")[0],
        search_path=tuple(dict.fromkeys(str(folder) for folder in (config.invocation_params.dir, config.rootpath))),
    )


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
    paths = config.getoption(option)
    if not paths:
        return []
    from pytest_rmq_conformance.plugin.divergences import read_case_list

    try:
        return [read_case_list(Path(path), f"--{option.replace('_', '-')}") for path in paths]
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
