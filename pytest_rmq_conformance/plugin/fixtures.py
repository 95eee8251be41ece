"""The fixtures that give a user's own tests the strategy under test and groups drawn for it.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import pytest

from pytest_rmq_conformance.plugin.state import rmq_state

__all__ = ["rmq_family", "rmq_conformance", "rmq_golden", "rmq_groups"]


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


@pytest.fixture(scope="session")
def rmq_groups(rmq_conformance):
    """Hypothesis strategies of consumer groups configured for the strategy under test.

    ``rmq_groups.scenarios(adversarial=False)`` draws a
    :class:`~pytest_rmq_conformance.kinds.allocation.scenarios.Scenario`, ``rmq_groups.plans()``
    a group with joins, leaves and crashes; build the strategy for one with
    ``rmq_conformance.build_for(scenario)``. Example::

        from hypothesis import given
        from pytest_rmq_conformance import assign

        def test_every_client_gets_something(rmq_groups, rmq_conformance):
            @given(rmq_groups.scenarios())
            def check(scenario):
                shares, problems = assign(rmq_conformance.build_for, scenario, timeout=5)
                if len(scenario.mq_all) >= len(scenario.clients):
                    assert all(shares.values()), shares

            check()
    """
    from pytest_rmq_conformance.kinds.allocation.groups import Groups

    return Groups(rmq_conformance)
