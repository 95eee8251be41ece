"""The clocks and timers: ``rmq_clock`` starts over for every test and hypothesis example and
every operation on it agrees after that; timers never spin at one instant."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_rmq_conformance.processqueue import ManualClock, NoProgress, ProcessQueue, Timers
from pytest_rmq_conformance.processqueue.clock import ExampleClock

Q = ["-p", "no:cacheprovider", "-p", "no:randomly"]

ADVANCE_THEN_SET = """
def test_a(rmq_clock):
    rmq_clock.advance(777)

def test_b(rmq_clock):
    rmq_clock.set(1_000)
    assert rmq_clock.now() == 1_000
"""

SET_THEN_ADVANCE = """
def test_b(rmq_clock):
    rmq_clock.set(1_000)
    assert rmq_clock.now() == 1_000

def test_a(rmq_clock):
    rmq_clock.advance(777)
    assert rmq_clock.now() == 777
"""


# -- one clock, a new test: every operation sees the reset --------------------------------


def _first_read(op, clock):
    """What the first operation after a new test started reports."""
    if op == "now":
        return clock.now()
    if op == "advance":
        return clock.advance(5) - 5
    if op == "set":
        assert clock.set(1000) == clock.now() == 1000
        return 0
    if op == "repr":
        return int(repr(clock).rsplit("=", 1)[1].rstrip(")"))
    if op == "process queue":
        return ProcessQueue(clock).last_pull_timestamp
    if op == "timers":
        return Timers(clock).advance(5) - 5
    raise AssertionError(op)


@pytest.mark.parametrize("op", ["now", "advance", "set", "repr", "process queue", "timers"])
def test_every_operation_sees_the_clock_start_over_for_a_new_test(monkeypatch, op):
    clock = ExampleClock()
    clock.advance(777)
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "tests/test_other.py::test_b (call)")
    assert _first_read(op, clock) == 0
    assert clock.advance(1) == clock.now()


def test_the_setup_call_and_teardown_of_one_test_share_its_time(monkeypatch):
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "tests/test_other.py::test_b (setup)")
    clock = ExampleClock()
    clock.set(1000)
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "tests/test_other.py::test_b (call)")
    assert clock.now() == 1000


def test_a_manual_clock_sets_and_advances_from_its_start():
    clock = ManualClock(500)
    assert clock.set(1000) == 1000 and clock.advance(1) == 1001
    with pytest.raises(ValueError, match=r"does not go backwards \(set to 1000 ms at 1001 ms\)"):
        clock.set(1000)


@settings(max_examples=30, database=None)
@given(st.integers(0, 10**6), st.integers(0, 10**6))
def test_set_lands_where_told_in_every_example(rmq_clock, rmq_process_queue, target, moved):
    rmq_clock.set(target)
    assert rmq_clock.now() == target
    assert rmq_process_queue().last_pull_timestamp == target
    assert rmq_clock.advance(moved) == target + moved


# -- the two tests, in one session ----------------------------------------------------


@pytest.mark.parametrize("body", [ADVANCE_THEN_SET, SET_THEN_ADVANCE], ids=["advance-then-set", "set-then-advance"])
def test_set_after_an_earlier_test_moved_the_clock(pytester, body):
    path = pytester.makepyfile(body)
    result = pytester.runpytest(*Q, path)
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=2)


def test_both_orders_under_xdist(pytester):
    """``--dist loadfile``: each file runs on one worker, in its order, beside the other."""
    pytester.makepyfile(test_advance_then_set=ADVANCE_THEN_SET, test_set_then_advance=SET_THEN_ADVANCE)
    result = pytester.runpytest(*Q, "-n", "2", "--dist", "loadfile")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=4)


def test_set_in_every_hypothesis_example_after_an_earlier_test(pytester):
    path = pytester.makepyfile(
        """
        from hypothesis import given, settings, strategies as st

        def test_a(rmq_clock):
            rmq_clock.advance(777)

        @settings(max_examples=50, database=None)
        @given(st.integers(0, 10**6), st.integers(0, 10**6))
        def test_b(rmq_clock, rmq_rebalance, target, moved):
            rmq_clock.set(target)
            assert rmq_clock.now() == target
            impl = rmq_rebalance()
            assert impl.timers.advance(moved) == rmq_clock.now() == target + moved

        def test_c(rmq_clock):
            assert rmq_clock.now() == 0
        """
    )
    for extra in ([], ["-n", "2", "--dist", "loadfile"]):
        result = pytester.runpytest(*Q, path, *extra)
        assert result.ret == 0, result.stdout.str()
        result.assert_outcomes(passed=3)


# -- timers ------------------------------------------------------------------------------------


def test_timers_end_where_a_call_left_the_clock_if_it_moved_past_the_end():
    clock = ManualClock()
    timers = Timers(clock)
    timers.schedule(100, lambda: clock.advance(5000), "a listener that takes 5 s")
    assert timers.advance(1000) == clock.now() == 5100


def test_timers_report_a_call_that_repeats_at_one_instant():
    clock = ManualClock(2500)
    timers = Timers(clock)
    timers.max_runs_per_instant = 50

    def again():
        timers.schedule(0, again, "c1: spin")

    timers.schedule(10, again, "c1: spin")
    with pytest.raises(NoProgress, match="c1: spin ran 50 times at 2510 ms without time moving on"):
        timers.advance(1000)
    timers.schedule(0, again, "c1: spin")
    with pytest.raises(NoProgress, match="at 2510 ms"):
        timers.run_due()
