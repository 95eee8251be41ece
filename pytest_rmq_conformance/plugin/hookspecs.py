"""Hooks that third-party plugins and ``conftest.py`` files can implement.

Implement them like any pytest hook: a function of the same name in a
``conftest.py`` or in a plugin registered under the ``pytest11`` entry point.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import pytest

hookspec = pytest.hookspec


@hookspec
def pytest_rmq_strategies(config):
    """Name strategies so that ``--rmq-strategy=NAME`` can select them.

    Return a mapping from a name to a strategy class, factory or instance
    (anything ``--rmq-strategy=module:attribute`` accepts). Names given here
    come before entry points of the ``rmq_conformance.strategies`` group and
    after the built-in reference names.

    Example::

        # conftest.py
        from mypkg.allocation import StickyStrategy

        def pytest_rmq_strategies(config):
            return {"sticky": StickyStrategy}

    Then ``pytest --rmq-strategy=sticky``.
    """


@hookspec(firstresult=True)
def pytest_rmq_build_strategy(factory, keywords, case, config):
    """Build the strategy for one golden case, for factories that do not take
    the keyword contract.

    ``keywords`` is what the factory would be called with: a dict holding
    some of ``virtual_node_cnt``, ``consumeridcs`` (a set or ``None``),
    ``message_queue_list`` (a list of ``MessageQueue`` or ``None``),
    ``allocate_message_queue_strategy`` and ``machine_room_resolver``.
    ``case`` is the :class:`~pytest_rmq_conformance.kinds.allocation.cases.GoldenCase` or, for
    the generated checks, the :class:`~pytest_rmq_conformance.kinds.allocation.scenarios.Scenario`
    (both have ``strategy`` and ``params`` in the golden files' vocabulary),
    or ``None`` while the plugin probes the strategy's ``name``. Return the strategy object, or
    ``None`` to let the next implementation (finally the plugin itself,
    which calls ``factory(**keywords)``) build it.

    Example::

        def pytest_rmq_build_strategy(factory, keywords, case, config):
            if factory is MyHashStrategy:
                return MyHashStrategy(replicas=keywords.get("virtual_node_cnt", 10))
    """


@hookspec
def pytest_rmq_golden_dirs(config):
    """Add golden directories (same format as the shipped ``golden/``) to the suite.

    Return an iterable of paths. Their cases are replayed like the shipped
    ones; a case id that appears twice is an error.

    Example::

        def pytest_rmq_golden_dirs(config):
            return [Path(__file__).parent / "golden-extra"]
    """


@hookspec
def pytest_rmq_case_outcome(outcome, config):
    """Observe the outcome of one golden case, for custom reports.

    ``outcome`` is a :class:`~pytest_rmq_conformance.engine.golden.cases.CaseOutcome`:
    ``case``, ``run``, ``strategy_name``, ``mismatches`` (empty when the
    case conforms), ``error`` (why the case could not be replayed, or
    ``None``) and ``passed``. Called on the process that ran the case (an
    xdist worker under ``-n``).

    Example::

        def pytest_rmq_case_outcome(outcome, config):
            if not outcome.passed:
                config._failed_ids.append(outcome.case.id)
    """


@hookspec(firstresult=True)
def pytest_rmq_properties(strategy, name, config):
    """Declare the invariants a strategy claims, for the generated checks.

    ``strategy`` is an instance (built to learn its ``name``). Return a set
    of property names (see :data:`pytest_rmq_conformance.kinds.allocation.properties.PROPERTIES`),
    or ``None`` to let the strategy's own ``rmq_properties`` attribute, then
    Java's properties for a Java twin, then the defaults (coverage, no double
    assignment, only queues of mq_all, one answer everywhere) decide.

    Example::

        def pytest_rmq_properties(strategy, name, config):
            if name == "STICKY":
                return {"coverage", "no-double-assignment", "one-answer", "stable-on-leave"}
    """
