"""The pytest plugin (entry point ``rmq_conformance``): options, report header, fixtures, the suite.

``pytest --rmq-strategy=SPEC`` with no test paths runs the suite in
``pytest_rmq_conformance/suite`` against that strategy; ``--rmq-suite`` adds
the suite to the paths given; ``pytest --pyargs pytest_rmq_conformance.suite``
runs it too. The strategy is chosen by option, then the ``RMQ_STRATEGY``
environment variable, then the ``rmq_strategy`` ini option, then the default
(``AVG``, RocketMQ's own default).

Installed, the plugin joins every pytest run of its environment; a run that
uses none of it imports only this package's option and fixture definitions.
The engine is imported when an ``--rmq-*`` choice or the suite is used
(:func:`~pytest_rmq_conformance.plugin.state.rmq_state`).

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from pytest_rmq_conformance.plugin import options
from pytest_rmq_conformance.plugin.allocation_fixtures import (  # noqa: F401 (registered here)
    rmq_client_version,
    rmq_clock,
    rmq_group_simulation,
    rmq_groups,
    rmq_process_queue,
    rmq_rebalance,
)
from pytest_rmq_conformance.plugin.collection import case_family, case_id, select, suite_part
from pytest_rmq_conformance.plugin.fixtures import rmq_conformance, rmq_family, rmq_golden  # noqa: F401 (registered here)
from pytest_rmq_conformance.plugin.producer_fixtures import rmq_fault_strategy, rmq_route  # noqa: F401 (registered here)
from pytest_rmq_conformance.plugin.state import HANG_FILE, SEED, STATE, SUITE_DIR, rmq_state

__all__ = ["STATE", "rmq_state"]

ACTIVE = pytest.StashKey[bool]()


def pytest_addhooks(pluginmanager):
    from pytest_rmq_conformance.plugin import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser):
    options.add_options(parser)


def pytest_configure(config):
    config.addinivalue_line("markers", "rmq_suite: a test of the shipped rmq-conformance suite")
    config.addinivalue_line("markers", "rmq_check(part): the part of the suite a test belongs to (--rmq-checks)")
    config.stash[SEED] = options.seed_of(config)
    config.stash[HANG_FILE] = getattr(config, "workerinput", {}).get("rmq_hang_file")
    # a strategy chosen by option, $RMQ_STRATEGY or ini key (or --rmq-suite) runs the suite when no path is given
    chosen = options.choose(config, "strategy")[1] != "default" or config.getoption("rmq_suite")
    explicit = config.args_source == pytest.Config.ArgsSource.ARGS
    if chosen and not explicit:
        config.args[:] = [str(SUITE_DIR)]
    elif config.getoption("rmq_suite") and str(SUITE_DIR) not in config.args:
        config.args.append(str(SUITE_DIR))
    options.checks_of(config)  # a usage error shows before collection
    config.stash[ACTIVE] = active = options.wants_suite(config)
    if active:  # a strategy that cannot be loaded is a usage error: one message, exit status 4, no test run
        _check_usage(rmq_state(config))
    if active and not hasattr(config, "workerinput"):
        from pytest_rmq_conformance.plugin.judged import Judged
        from pytest_rmq_conformance.plugin.terminal import ChurnReport, FailureGroups

        config.pluginmanager.register(FailureGroups(), "rmq-conformance-failure-groups")
        config.pluginmanager.register(Judged(), "rmq-conformance-judged")
        config.pluginmanager.register(ChurnReport(), "rmq-conformance-churn")
    if config.getoption("rmq_results") and not hasattr(config, "workerinput"):
        from pytest_rmq_conformance.plugin.results import ResultsFile

        config.pluginmanager.register(ResultsFile(config, config.getoption("rmq_results")), "rmq-conformance-results")


def _check_usage(state) -> None:
    """Raise :class:`pytest.UsageError` for a strategy that cannot be loaded, or a release at which the
    golden data covers none of it or not each of its families."""
    from pytest_rmq_conformance.engine.golden.data import GoldenDataError

    if state.subject.load_error is not None:
        raise pytest.UsageError(state.subject.load_error)
    try:
        missing = state.golden.missing_vectors()
    except LookupError as exc:
        raise pytest.UsageError(f"--rmq-reference-version={state.settings.version}: {exc}") from None
    except GoldenDataError:
        return  # the data's fault, not the command's: test_golden fails naming the file and case
    if missing is not None:  # a run that checks nothing against Java must not pass
        raise pytest.UsageError(missing)
    unmatched = _unmatched_case_pattern(state)
    if unmatched is not None:
        raise pytest.UsageError(unmatched)


def _unmatched_case_pattern(state) -> str | None:
    """Why an ``--rmq-case`` pattern would select nothing: it matches none of the golden cases
    of the strategy's families at the release (with the ids nearest to it); ``None`` when each
    pattern matches some."""
    from difflib import get_close_matches
    from fnmatch import fnmatchcase

    ids = [case.id for case in state.golden.cases()]
    for pattern in state.case_patterns:
        if not any(fnmatchcase(case_id, pattern) for case_id in ids):
            families = ", ".join(state.subject.families)
            nearest = get_close_matches(pattern, ids, n=3, cutoff=0.5)
            hint = (
                f"; nearest: {', '.join(nearest)}"
                if nearest
                else (f"; they run from {ids[0]} to {ids[-1]}" if ids else "")
            )
            return (
                f"--rmq-case={pattern}: matches none of the {len(ids)} golden cases of {families} "
                f"at RocketMQ {state.settings.version}{hint}"
            )
    return None


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """pytest-xdist: every worker generates from the controller's seed and spends one hang budget."""
    config = node.config
    node.workerinput["rmq_seed"] = config.stash[SEED]
    if config.stash.get(HANG_FILE, None) is None:
        config.stash[HANG_FILE] = str(Path(tempfile.mkdtemp(prefix="rmq-hangs-")) / "hangs")
    node.workerinput["rmq_hang_file"] = config.stash[HANG_FILE]


def pytest_unconfigure(config):
    state = config.stash.get(STATE, None)
    if state is not None and state.subject.load_error is None:
        harness = state.subject.harness
        if harness is not None:  # say bye: the harness process ends with the run
            harness.stop()
    hang_file = config.stash.get(HANG_FILE, None)
    if hang_file is not None and not hasattr(config, "workerinput"):
        shutil.rmtree(Path(hang_file).parent, ignore_errors=True)


def pytest_report_header(config):
    if not config.stash.get(ACTIVE, False):
        return None
    from pytest_rmq_conformance.plugin.header import header_lines

    return header_lines(rmq_state(config))


def pytest_ignore_collect(collection_path, config):
    """Suite modules of parts ``--rmq-checks`` leaves out are not even imported, nor the sort
    check for a strategy in this process (the suite sorts its lists as Java does)."""
    part = suite_part(collection_path)
    if part is None or part not in options.CHECKS:
        return None
    chosen = options.checks_of(config)
    if chosen is not None and part not in chosen:
        return True
    if part == "sort" and config.stash.get(ACTIVE, False):
        subject = rmq_state(config).subject
        return True if subject.load_error is None and subject.harness is None else None
    return None


#: suite parts that check every family at once (their cases carry it), not once per family
_ALL_FAMILIES_AT_ONCE = ("golden", "sort")


def pytest_generate_tests(metafunc):
    """A strategy under test that serves several families (a harness) runs each generated check
    once per family, of the kinds the check is for."""
    marker = metafunc.definition.get_closest_marker("rmq_check")
    if marker is None or "rmq_family" not in metafunc.fixturenames or marker.args[0] in _ALL_FAMILIES_AT_ONCE:
        return
    subject = rmq_state(metafunc.config).subject
    if subject.load_error is None and subject.harness is not None and len(subject.families) > 1:
        from pytest_rmq_conformance.engine import kinds

        checked = marker.kwargs.get("kinds")
        families = [name for name in subject.families if checked is None or kinds.get(name).kind in checked]
        metafunc.parametrize("rmq_family", families, indirect=True, scope="session", ids=families)


def pytest_collection_modifyitems(session, config, items):
    for item in items:
        part = item.get_closest_marker("rmq_check")
        if part is None:
            continue
        item.add_marker(pytest.mark.rmq_suite)
        # what the --rmq-results lines and --junitxml properties need to name the test
        item.user_properties.append(("rmq_check", part.args[0]))
        case = case_id(item)
        if case is not None:
            item.user_properties.append(("rmq_case", case))
            item.user_properties.append(("rmq_family", case_family(item)))
    if config.stash.get(ACTIVE, False) or options.selects(config):
        select(rmq_state(config), config, items)
