"""The pytest plugin: options, report header, fixtures, and the shipped suite.

``pytest --rmq-strategy=SPEC`` with no test paths runs the suite in
``pytest_rmq_conformance/suite`` against that strategy; ``--rmq-suite`` adds
the suite to the paths given; ``pytest --pyargs pytest_rmq_conformance.suite``
runs it too. The strategy is chosen by option, then the ``RMQ_STRATEGY``
environment variable, then the ``rmq_strategy`` ini option, then the default
(``AVG``, RocketMQ's own default).
"""

from __future__ import annotations

import os
import random
import warnings
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

from pytest_rmq_conformance.conformance import DEFAULT_STRATEGY, Conformance, Settings
from pytest_rmq_conformance.generated import PROFILES, Groups, profile_examples
from pytest_rmq_conformance.javalang import normalize_charset
from pytest_rmq_conformance.processqueue.fixtures import (  # noqa: F401 (fixtures the plugin registers)
    rmq_client_version,
    rmq_clock,
    rmq_group_simulation,
    rmq_process_queue,
    rmq_rebalance,
)
from pytest_rmq_conformance.selection import CaseList, read_case_list
from pytest_rmq_conformance.strategies import DEFAULT_RELEASE

SUITE_DIR = Path(__file__).resolve().parent / "suite"
GROUP_SHOWN = 3  # failures shown in full per cause; the rest get a one-line report


@dataclass
class State:
    """What the plugin keeps for one run (in ``config.stash``)."""

    conformance: Conformance
    active: bool
    xfail_lists: List[CaseList] = field(default_factory=list)
    skip_lists: List[CaseList] = field(default_factory=list)
    case_patterns: List[str] = field(default_factory=list)
    checks: Optional[List[str]] = None  # --rmq-checks; None: all


STATE = pytest.StashKey[State]()


def pytest_addhooks(pluginmanager):
    from pytest_rmq_conformance import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser):
    group = parser.getgroup("rmq-conformance", "RocketMQ queue-allocation conformance")
    group.addoption(
        "--rmq-strategy",
        metavar="SPEC",
        help="strategy under test: a built-in name (AVG, AVG_BY_CIRCLE, CONSISTENT_HASH, MACHINE_ROOM, "
        "MACHINE_ROOM_NEARBY, CONFIG), a name from a plugin or the rmq_conformance.strategies entry points, "
        "or module:attribute (a class, factory or instance). Without test paths, runs the shipped suite. "
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
    group.addoption(
        "--rmq-timeout",
        type=float,
        metavar="SECONDS",
        help="time limit of one allocate() call (default 5; 0 for none)",
    )
    group.addoption(
        "--rmq-max-hangs",
        type=int,
        default=3,
        metavar="N",
        help="after N calls over the time limit, stop calling the strategy (default 3)",
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
        help="run only the suite's golden cases matching ID (fnmatch pattern; repeatable)",
    )
    group.addoption(
        "--rmq-checks",
        metavar="LIST",
        help="comma-separated parts of the suite to run: golden, invariants, one-answer, reference, rebalance "
        "(default: all of them)",
    )
    group.addoption(
        "--rmq-profile",
        choices=sorted(PROFILES),
        help="how hard the generated checks look: quick (default, every run) or thorough (nightly). "
        "Also: env RMQ_PROFILE, ini rmq_profile.",
    )
    group.addoption(
        "--rmq-examples",
        type=int,
        metavar="N",
        help="generated examples per check, instead of the profile's number",
    )
    group.addoption(
        "--rmq-seed",
        type=int,
        metavar="N",
        help="seed of the generated checks (default: a new one each run, printed in the header; "
        "also: env RMQ_SEED)",
    )
    parser.addini("rmq_strategy", "strategy under test (see --rmq-strategy)")
    parser.addini("rmq_profile", "profile of the generated checks (see --rmq-profile)")
    parser.addini("rmq_reference_version", "RocketMQ reference release (see --rmq-reference-version)")
    parser.addini("rmq_timeout", "time limit of one allocate() call in seconds (see --rmq-timeout)")


def _choose(config, option: str, env: str, ini: str, default: str) -> Tuple[str, str]:
    value = config.getoption(option)
    if value:
        return value, f"--{option.replace('_', '-')}"
    if os.environ.get(env):
        return os.environ[env], f"${env}"
    if config.getini(ini):
        return str(config.getini(ini)), f"ini {ini}"
    return default, "default"


def _settings(config) -> Settings:
    spec, origin = _choose(config, "rmq_strategy", "RMQ_STRATEGY", "rmq_strategy", DEFAULT_STRATEGY)
    version, version_origin = _choose(
        config, "rmq_reference_version", "RMQ_REFERENCE_VERSION", "rmq_reference_version", DEFAULT_RELEASE
    )
    timeout = config.getoption("rmq_timeout")
    if timeout is None:
        timeout = float(config.getini("rmq_timeout") or Settings.timeout)
    try:
        charset = normalize_charset(config.getoption("rmq_charset") or "UTF-8")
    except ValueError as exc:
        raise pytest.UsageError(f"--rmq-charset: {exc}") from None
    profile, _ = _choose(config, "rmq_profile", "RMQ_PROFILE", "rmq_profile", "quick")
    if profile not in PROFILES:
        raise pytest.UsageError(f"rmq profile {profile!r}: expected one of {', '.join(sorted(PROFILES))}")
    examples = config.getoption("rmq_examples")
    if examples is not None and examples < 1:
        raise pytest.UsageError(f"--rmq-examples must be at least 1, not {examples}")
    return Settings(
        spec=spec,
        origin=origin,
        version=version,
        version_origin=version_origin,
        charset=charset,
        strict_order=config.getoption("rmq_strict_order"),
        timeout=timeout or None,
        max_hangs=config.getoption("rmq_max_hangs"),
        profile=profile,
        seed=_seed(config),
        examples=examples,
    )


def _seed(config) -> int:
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


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """pytest-xdist: every worker generates from the controller's seed."""
    node.workerinput["rmq_seed"] = node.config.stash[STATE].conformance.settings.seed


CHECK_KINDS = {
    "test_golden": "golden",
    "test_invariant_of_a_group": "invariants",
    "test_invariant_across_a_change": "invariants",
    "test_membership_changes": "invariants",
    "test_one_answer": "one-answer",
    "test_matches_reference": "reference",
    "test_rebalance_converges": "rebalance",
    "test_rebalance_churn": "rebalance",
}


def _read_lists(config, option: str) -> List[CaseList]:
    try:
        return [read_case_list(Path(path), f"--{option.replace('_', '-')}") for path in config.getoption(option)]
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None


def pytest_configure(config):
    config.addinivalue_line("markers", "rmq_suite: a test of the shipped rmq-conformance suite")
    settings = _settings(config)
    hook = config.hook

    def named():
        merged: Dict[str, Any] = {}
        for provided in reversed(hook.pytest_rmq_strategies(config=config)):
            merged.update(provided or {})
        return merged

    conformance = Conformance(
        settings,
        named=named,
        build_hook=lambda factory, keywords, case: hook.pytest_rmq_build_strategy(
            factory=factory, keywords=keywords, case=case, config=config
        ),
        extra_dirs=lambda: [Path(p) for found in hook.pytest_rmq_golden_dirs(config=config) for p in (found or ())],
        observe=lambda outcome: hook.pytest_rmq_case_outcome(outcome=outcome, config=config),
        declare=lambda strategy, name: hook.pytest_rmq_properties(strategy=strategy, name=name, config=config),
        custom_build=lambda: bool(hook.pytest_rmq_build_strategy.get_hookimpls()),
    )
    from_cli = bool(config.getoption("rmq_strategy")) or config.getoption("rmq_suite")
    explicit = config.args_source == pytest.Config.ArgsSource.ARGS
    if from_cli and not explicit:
        config.args[:] = [str(SUITE_DIR)]
    elif config.getoption("rmq_suite") and str(SUITE_DIR) not in config.args:
        config.args.append(str(SUITE_DIR))
    active = (
        from_cli
        or settings.origin != "default"
        or any("pytest_rmq_conformance" in str(arg) for arg in config.args)
    )
    config.stash[STATE] = State(
        conformance,
        active,
        _read_lists(config, "rmq_xfail_file"),
        _read_lists(config, "rmq_skip_file"),
        list(config.getoption("rmq_case")),
        _checks(config),
    )
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(FailureGroups(), "rmq-conformance-failure-groups")
        config.pluginmanager.register(ChurnReport(), "rmq-conformance-churn")


def _checks(config) -> Optional[List[str]]:
    value = config.getoption("rmq_checks")
    if not value:
        return None
    chosen = [part.strip() for part in value.split(",") if part.strip()]
    unknown = sorted(set(chosen) - set(CHECK_KINDS.values()))
    if unknown or not chosen:
        raise pytest.UsageError(
            f"--rmq-checks={value}: unknown part(s) {unknown}; choose from golden, invariants, one-answer, reference, rebalance"
        )
    return chosen


def pytest_report_header(config):
    state = config.stash.get(STATE, None)
    if state is None or not state.active:
        return None
    settings = state.conformance.settings
    generated = (
        f"generated checks: profile {settings.profile}, {profile_examples(settings)} examples each, "
        f"seed {settings.seed} (replay with --rmq-seed={settings.seed})"
    )
    return [f"rmq-conformance: {line}" for line in [*state.conformance.describe(), generated]]


@pytest.fixture(scope="session")
def rmq_conformance(pytestconfig) -> Conformance:
    """The strategy under test (``--rmq-strategy``) and its golden cases at the selected release.

    Example::

        def test_duplicated_client_ids(rmq_conformance):
            for case in rmq_conformance.golden_cases():
                if case.category == "duplicates":
                    outcome = rmq_conformance.run_case(case)
                    assert outcome.passed, rmq_conformance.report(outcome)
    """
    return pytestconfig.stash[STATE].conformance


@pytest.fixture(scope="session")
def rmq_groups(rmq_conformance) -> Groups:
    """Hypothesis strategies of consumer groups configured for the strategy under test.

    ``rmq_groups.scenarios(adversarial=False)`` draws a
    :class:`~pytest_rmq_conformance.scenarios.Scenario`, ``rmq_groups.plans()``
    a group with joins, leaves and crashes; build the strategy for one with
    ``rmq_conformance.build_for(scenario)``. Example::

        from hypothesis import given
        from pytest_rmq_conformance.calls import assign

        def test_every_client_gets_something(rmq_groups, rmq_conformance):
            @given(rmq_groups.scenarios())
            def check(scenario):
                shares, problems = assign(rmq_conformance.build_for, scenario, timeout=5)
                if len(scenario.mq_all) >= len(scenario.clients):
                    assert all(shares.values()), shares

            check()
    """
    return Groups(rmq_conformance)


def _case_id(item) -> Optional[str]:
    callspec = getattr(item, "callspec", None)
    case = callspec.params.get("rmq_golden_case") if callspec else None
    return getattr(case, "id", None)


def _in_suite(item) -> bool:
    try:
        return Path(item.path).resolve().is_relative_to(SUITE_DIR)
    except (AttributeError, OSError):
        return False


def pytest_collection_modifyitems(session, config, items):
    state = config.stash[STATE]
    if state.checks is not None:
        keep, drop = [], []
        for item in items:
            kind = CHECK_KINDS.get(getattr(item, "originalname", item.name)) if _in_suite(item) else None
            (drop if kind is not None and kind not in state.checks else keep).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
    if state.case_patterns:
        from fnmatch import fnmatchcase

        keep, drop = [], []
        for item in items:
            case_id = _case_id(item)
            wanted = case_id is None or any(fnmatchcase(case_id, p) for p in state.case_patterns)
            (keep if wanted else drop).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
    for item in items:
        names = (_case_id(item), item.name, item.originalname)
        for case_list in state.skip_lists:
            entry = case_list.match(names)
            if entry is not None:
                item.add_marker(pytest.mark.skip(reason=f"{entry.where}: {entry.reason or 'listed'}"))
        for case_list in state.xfail_lists:
            entry = case_list.match(names)
            if entry is not None:
                item.add_marker(pytest.mark.xfail(reason=f"{entry.where}: {entry.reason or 'known divergence'}"))
        if _in_suite(item):
            item.add_marker(pytest.mark.rmq_suite)
    worker = getattr(config, "workerinput", {}).get("workerid")
    if worker in (None, "gw0"):
        for case_list in state.skip_lists + state.xfail_lists:
            for entry in case_list.unused():
                warnings.warn(
                    pytest.PytestWarning(f"{entry.where}: entry {entry.pattern!r} matches no collected test"),
                    stacklevel=1,
                )


class FailureGroups:
    """On the process that reports: groups failing cases by cause, shows the
    first few of each cause in full and the rest in one line each."""

    def __init__(self):
        self.groups: "OrderedDict[str, List[str]]" = OrderedDict()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report):
        reason = dict(report.user_properties).get("rmq_reason")
        if reason is None or not report.failed:
            return
        members = self.groups.setdefault(reason, [])
        members.append(report.head_line or report.nodeid)
        if len(members) > GROUP_SHOWN:
            lines = report.longreprtext.splitlines() or [""]
            rerun = next((line.strip() for line in reversed(lines) if line.strip().startswith("rerun:")), "")
            report.longrepr = f"{lines[0]}\n  same cause as {members[0]}, shown above; {rerun}"

    def pytest_terminal_summary(self, terminalreporter):
        if not self.groups:
            return
        total = sum(len(members) for members in self.groups.values())
        terminalreporter.section("rmq-conformance: failing golden cases by cause")
        for reason, members in sorted(self.groups.items(), key=lambda item: -len(item[1])):
            examples = ", ".join(members[:GROUP_SHOWN]) + (", ..." if len(members) > GROUP_SHOWN else "")
            terminalreporter.write_line(f"{len(members):5d} x {reason}")
            terminalreporter.write_line(f"        e.g. {examples}")
        terminalreporter.write_line(f"{total} failing case(s) in {len(self.groups)} group(s)")


class ChurnReport:
    """On the process that reports: the churn ``test_rebalance_churn`` measured, as a table."""

    def __init__(self):
        self.rows: List[Dict[str, Any]] = []

    def pytest_runtest_logreport(self, report):
        row = dict(report.user_properties).get("rmq_churn")
        if row is not None and report.when == "call":
            self.rows.append(row)

    def pytest_terminal_summary(self, terminalreporter):
        if not self.rows:
            return
        terminalreporter.section("rmq-conformance: rebalance churn (ProcessQueues rebuilt by one change)")
        terminalreporter.write_line(f"{'change':<24} {'strategy':<28} {'moved':>5} {'lower bound':>11} {'own':>4}")
        for row in sorted(self.rows, key=lambda r: (r["case"], r["strategy"])):
            terminalreporter.write_line(
                f"{row['case']:<24} {row['strategy']:<28} {row['moved']:>5} {row['lower_bound']:>11} {row['own']:>4}"
            )
        terminalreporter.write_line(
            "own: the queues the leaver held (or the joiner got); lower bound: the fewest moves that reach "
            "a balanced group (an unbalanced strategy may move fewer)"
        )
