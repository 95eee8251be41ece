"""The fixtures that give a user's own tests the strategy under test and its golden cases, whatever its kind
(those of one kind: ``allocation_fixtures``, ``producer_fixtures``).

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import pytest

from pytest_rmq_conformance.plugin.state import rmq_state

__all__ = ["rmq_family", "rmq_conformance", "rmq_golden"]


@pytest.fixture(scope="session")
def rmq_family(request):
    """The strategy family a check runs for when the strategy under test serves several (a
    harness does: the suite's generated checks run once per family, ``test_...[AVG]``);
    ``None`` otherwise."""
    return getattr(request, "param", None)


@pytest.fixture(scope="session")
def rmq_conformance(pytestconfig, rmq_family):
    """The strategy under test (``--rmq-strategy``) at the selected release: a
    :class:`~pytest_rmq_conformance.engine.loading.subject.Subject` (``name``, ``family``,
    ``properties``, ``settings``, ``build_for(scenario)``, ``reference_for(scenario)``, ...),
    held to ``rmq_family`` when it serves several."""
    subject = rmq_state(pytestconfig).subject
    return subject if rmq_family is None else subject.for_family(rmq_family)


@pytest.fixture(scope="session")
def rmq_golden(pytestconfig):
    """The golden cases of the strategy under test at the selected release (a
    :class:`~pytest_rmq_conformance.engine.golden.cases.GoldenCases`). Example::

        def test_duplicated_client_ids(rmq_golden):
            for case in rmq_golden.cases():
                if case.category == "duplicates":
                    outcome = rmq_golden.run_case(case)
                    assert outcome.passed, rmq_golden.report(outcome)
    """
    return rmq_state(pytestconfig).golden

