"""What the plugin keeps for one run, and the public way to reach it: :func:`rmq_state`.

The state is built on first use, so a pytest run that never touches the
suite never imports the engine.

    from pytest_rmq_conformance import rmq_state

    def pytest_collection_finish(session):
        subject = rmq_state(session.config).subject

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

__all__ = ["RunState", "rmq_state", "SUITE_DIR"]

SUITE_DIR = Path(__file__).resolve().parent.parent / "suite"


@dataclass
class RunState:
    """The strategy under test (a :class:`~pytest_rmq_conformance.engine.loading.subject.Subject`), its
    golden cases (:class:`~pytest_rmq_conformance.engine.golden.cases.GoldenCases`), known divergences
    and chosen parts of the suite, for one run."""

    subject: Any
    golden: Any
    xfail_lists: list[Any] = field(default_factory=list)
    skip_lists: list[Any] = field(default_factory=list)
    case_patterns: list[str] = field(default_factory=list)
    checks: list[str] | None = None  # --rmq-checks; None: all

    @property
    def settings(self):
        return self.subject.settings


STATE = pytest.StashKey[RunState]()
#: the seed and the shared hang file, known before the state is built (xdist hands them to workers)
SEED = pytest.StashKey[int]()
HANG_FILE = pytest.StashKey[str | None]()


def rmq_state(config) -> RunState:
    """The run's :class:`RunState`, built on first use from the options and hooks of ``config``."""
    state = config.stash.get(STATE, None)
    if state is None:
        state = _build(config)
        config.stash[STATE] = state
    return state


def _build(config) -> RunState:
    from pytest_rmq_conformance.engine.golden.cases import GoldenCases
    from pytest_rmq_conformance.engine.loading.subject import Subject
    from pytest_rmq_conformance.engine.running.hangs import HangBudget
    from pytest_rmq_conformance.plugin.options import case_lists, checks_of, settings_from

    settings = settings_from(config, config.stash[SEED])
    hook = config.hook

    def named():
        merged: dict = {}
        for provided in reversed(hook.pytest_rmq_strategies(config=config)):
            merged.update(provided or {})
        return merged

    subject = Subject(
        settings,
        named=named,
        build_hook=lambda factory, keywords, case: hook.pytest_rmq_build_strategy(
            factory=factory, keywords=keywords, case=case, config=config
        ),
        declare=lambda strategy, name: hook.pytest_rmq_properties(strategy=strategy, name=name, config=config),
        custom_build=lambda: bool(hook.pytest_rmq_build_strategy.get_hookimpls()),
        hangs=HangBudget(settings.max_hangs, config.stash.get(HANG_FILE, None)),
    )
    golden = GoldenCases(
        subject,
        extra_dirs=lambda: [Path(p) for found in hook.pytest_rmq_golden_dirs(config=config) for p in (found or ())],
        observe=lambda outcome: hook.pytest_rmq_case_outcome(outcome=outcome, config=config),
    )
    return RunState(
        subject,
        golden,
        case_lists(config, "rmq_xfail_file"),
        case_lists(config, "rmq_skip_file"),
        list(config.getoption("rmq_case")),
        checks_of(config),
    )
