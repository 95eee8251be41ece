"""The rebalance fixtures as a user's test file sees them: documented, fresh per hypothesis
example, bound to ``--rmq-strategy`` and the selected release."""

import doctest
import importlib

import pytest

Q = ["-p", "no:cacheprovider", "-p", "no:randomly"]

MODULES = ["clock", "config", "process_queue", "broker", "rebalance", "pull", "consume", "group", "ownership", "message_flow"]


@pytest.mark.parametrize("module", MODULES)
def test_the_docstring_examples_run(module):
    found = doctest.testmod(importlib.import_module(f"pytest_rmq_conformance.processqueue.{module}"))
    assert found.attempted > 0 and found.failed == 0


def test_every_fixture_is_documented_with_an_example(pytester):
    result = pytester.runpytest(*Q, "--fixtures", "-v")
    blocks = {}  # fixture name -> its listing (the header line and the indented docstring)
    for line in result.stdout.lines:
        if line and not line[0].isspace():
            name = line.split(" ", 1)[0]
            blocks[name] = [line]
        elif blocks:
            blocks[name].append(line)
    assert "session scope" in blocks["rmq_client_version"][0]
    for name in ["rmq_clock", "rmq_process_queue", "rmq_rebalance", "rmq_group_simulation"]:
        assert "session scope" in blocks[name][0], name
        assert any("Example::" in line for line in blocks[name]), name


def test_the_clock_starts_over_for_every_example_and_every_test(pytester):
    path = pytester.makepyfile(
        """
        from hypothesis import given, settings, strategies as st

        @settings(max_examples=25, database=None)
        @given(st.integers(0, 300000))
        def test_expiry(rmq_clock, rmq_process_queue, elapsed):
            assert rmq_clock.now() == 0
            pq = rmq_process_queue()
            rmq_clock.advance(elapsed)
            assert pq.is_pull_expired() == (elapsed > 120000)
            assert pq.is_lock_expired() == (elapsed > 30000)

        def test_first(rmq_clock):
            assert rmq_clock.now() == 0
            rmq_clock.advance(5000)

        def test_second(rmq_clock):
            assert rmq_clock.now() == 0
        """
    )
    result = pytester.runpytest(*Q, path)
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=3)
    assert "function-scoped fixture" not in result.stdout.str()


def test_a_clock_kept_across_examples_is_caught(pytester):
    """The same test with a plain clock shared between examples fails: the reset is what
    makes the fixture safe."""
    path = pytester.makepyfile(
        """
        from hypothesis import given, settings, strategies as st
        from pytest_rmq_conformance.processqueue import ManualClock

        CLOCK = ManualClock()

        @settings(max_examples=25, database=None)
        @given(st.integers(1, 300000))
        def test_expiry(rmq_process_queue, elapsed):
            assert CLOCK.now() == 0
            rmq_process_queue(clock=CLOCK)
            CLOCK.advance(elapsed)
        """
    )
    result = pytester.runpytest(*Q, path)
    assert result.ret == 1
    result.assert_outcomes(failed=1)


def test_the_group_simulation_runs_the_strategy_under_test(pytester):
    path = pytester.makepyfile(
        """
        def test_a_leave(rmq_group_simulation, rmq_conformance, rmq_client_version):
            sim = rmq_group_simulation(queues=24, clients=4)
            assert sim.version == rmq_client_version == "4.9.8"
            strategy = sim.client(sim.clients[0]).allocate_message_queue_strategy
            assert strategy.name == "CONSISTENT_HASH"
            sim.advance(5000)
            leaver = sim.clients[1]
            held = len(sim.assignment()[leaver])
            since = sim.now()
            sim.leave(leaver)
            assert sim.settle() == 0
            assert sim.churn(since=since) == held
        """
    )
    result = pytester.runpytest(*Q, path, "--rmq-strategy=CONSISTENT_HASH", "--rmq-reference-version=4.9.8")
    assert result.ret == 0, result.stdout.str()


def test_a_group_simulation_with_a_strategy_that_does_not_load_is_a_usage_error(pytester):
    path = pytester.makepyfile(
        """
        def test_a_group(rmq_group_simulation):
            rmq_group_simulation()
        """
    )
    result = pytester.runpytest(*Q, path, "--rmq-strategy=no_such_module:Nothing")
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # a spec chosen for the run is checked before any test
    result.stderr.fnmatch_lines(["ERROR: *no module named 'no_such_module'*"])


def test_the_factories_take_any_strategy_and_version(rmq_rebalance, rmq_group_simulation, rmq_process_queue):
    from pytest_rmq_conformance.engine.kinds import reference_strategy

    assert rmq_process_queue(version="4.9.8").version == "4.9.8"
    impl = rmq_rebalance("pull", strategy=reference_strategy("AVG_BY_CIRCLE"), version="4.9.8")
    assert type(impl).__name__ == "RebalancePullImpl" and impl.version == "4.9.8"
    sim = rmq_group_simulation(lambda: reference_strategy("AVG_BY_CIRCLE"), queues=6, clients=3)
    assert sim.problems() == [] and sim.settle() == 0
    with pytest.raises(ValueError, match="kind must be one of"):
        rmq_rebalance("poll")
