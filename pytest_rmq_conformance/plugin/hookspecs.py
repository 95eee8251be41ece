"""Hooks that third-party plugins and ``conftest.py`` files can implement.

Implement them like any pytest hook: a function of the same name in a
``conftest.py`` or in a plugin registered under the ``pytest11`` entry point.
Each example below is a whole ``conftest.py`` (``mypkg`` stands for your own
package); the project's tests copy each into a conftest and run it.

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
        from mypkg.allocation import MyAveragely


        def pytest_rmq_strategies(config):
            return {"mine": MyAveragely}

    Then ``pytest --rmq-strategy=mine``; the report header says the name came from this hook.
    """


@hookspec(firstresult=True)
def pytest_rmq_build_strategy(factory, keywords, case, config):
    """Build the strategy for one golden case, for factories that do not take
    the keyword contract.

    ``keywords`` is what the factory would be called with: a dict holding
    some of ``virtual_node_cnt``, ``consumeridcs`` (a set or ``None``),
    ``message_queue_list`` (a list of ``MessageQueue`` or ``None``),
    ``allocate_message_queue_strategy`` and ``machine_room_resolver``.
    ``case`` is the golden case (its ``id``, ``strategy`` and ``params``) or, for the generated
    checks, the :class:`~pytest_rmq_conformance.Scenario` (both have ``strategy`` and ``params``
    in the golden files' vocabulary),
    or ``None`` while the plugin probes the strategy's ``name``. Return the strategy object, or
    ``None`` to let the next implementation (finally the plugin itself,
    which calls ``factory(**keywords)``) build it.

    Example, for a consistent hash whose constructor calls the virtual node count ``replicas``::

        # conftest.py
        from mypkg.allocation import MyHash


        def pytest_rmq_build_strategy(factory, keywords, case, config):
            if factory is MyHash:
                return MyHash(replicas=keywords.get("virtual_node_cnt", 10))

    Then ``pytest --rmq-strategy=mypkg.allocation:MyHash``.
    """


@hookspec
def pytest_rmq_golden_dirs(config):
    """Add golden directories (same format as the shipped ``golden/``) to the suite.

    Return an iterable of paths. Their cases are replayed like the shipped
    ones; a case id that appears twice is an error.

    Example::

        # conftest.py
        from pathlib import Path


        def pytest_rmq_golden_dirs(config):
            return [Path(__file__).parent / "golden-extra"]
    """


@hookspec
def pytest_rmq_case_outcome(outcome, config):
    """Observe the outcome of one golden case, for custom reports.

    ``outcome`` is a :class:`~pytest_rmq_conformance.CaseOutcome`:
    ``case``, ``run``, ``strategy_name``, ``mismatches`` (empty when the
    case conforms), ``error`` (why the case could not be replayed, or
    ``None``) and ``passed``. Called on the process that ran the case (an
    xdist worker under ``-n``: there, keep what you collect in a file, as the
    worker's ``config`` is not the controller's).

    Example: count the cases that diverged, in the run's ``config.stash``, and say so at the end::

        # conftest.py
        import pytest

        DIVERGED = pytest.StashKey[list]()


        def pytest_rmq_case_outcome(outcome, config):
            if not outcome.passed and outcome.skipped is None:
                config.stash.setdefault(DIVERGED, []).append(outcome.case.id)


        def pytest_terminal_summary(terminalreporter, config):
            diverged = config.stash.get(DIVERGED, [])
            if diverged:
                terminalreporter.write_line(f"my report: {len(diverged)} golden cases diverged, first {diverged[0]}")
    """


@hookspec(firstresult=True)
def pytest_rmq_properties(strategy, name, config):
    """Declare the invariants a strategy claims, for the generated checks.

    ``strategy`` is an instance (built to learn its ``name``). Return a set
    of the property names its kind knows (consumer allocation's are listed in
    :doc:`/explanation/allocation`; a name the kind does not know is an
    error that lists the ones it does), or
    ``None`` to let the strategy's own ``rmq_properties`` attribute, then
    Java's properties for a Java twin, then the kind's defaults (for consumer
    allocation: coverage, no double assignment, only queues of mq_all, one
    answer everywhere) decide.

    Example: a strategy of your own, ``STICKY``, claims that when a client leaves only its queues move::

        # conftest.py
        def pytest_rmq_properties(strategy, name, config):
            if name == "STICKY":
                return {"coverage", "no-double-assignment", "one-answer", "stable-on-leave"}

    Then ``pytest --rmq-strategy=mypkg.allocation:Sticky`` checks ``stable-on-leave`` too.
    """
