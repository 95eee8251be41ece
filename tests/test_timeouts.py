"""The per-call time limit, alone and inside a batch that keeps its handler installed.

A call that must be cut off spins for ever under a short limit; a call that must finish gets a limit
far above what it needs, so that a loaded machine cannot push it past it."""

import signal
import time

import pytest
from hypothesis import settings

from pytest_rmq_conformance.engine.running.timeouts import CallTimeout, call_with_timeout, time_limits


def spin():
    while True:
        time.sleep(0.01)


def test_a_call_over_its_limit_is_cut_off_and_the_handler_restored():
    before = signal.getsignal(signal.SIGALRM)
    with pytest.raises(CallTimeout, match=r"took longer than 0\.05 s"):
        call_with_timeout(spin, 0.05)
    assert signal.getsignal(signal.SIGALRM) is before
    assert call_with_timeout(lambda: 7, 30) == 7
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0  # no alarm left armed by the quick call


def test_in_a_batch_every_call_keeps_its_own_limit():
    before = signal.getsignal(signal.SIGALRM)
    with time_limits():
        assert signal.getsignal(signal.SIGALRM) is not before
        assert call_with_timeout(lambda: "quick", 1) == "quick"
        time.sleep(0.3)  # the batch ticks every 0.1 s: no tick cuts off the sleep after the quick call
        with pytest.raises(CallTimeout, match=r"took longer than 0\.05 s"):
            call_with_timeout(spin, 0.05)
        with pytest.raises(CallTimeout, match=r"took longer than 0\.1 s"):
            call_with_timeout(spin, 0.1)
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0  # the batch's ticks end with it


def test_in_a_batch_the_limit_is_per_call_not_per_batch():
    with time_limits():
        for _ in range(12):  # at least 1.2 s in all, each call far under its 1 s
            assert call_with_timeout(lambda: time.sleep(0.1) or "ok", 1) == "ok"
        time.sleep(0.25)  # between calls, a tick (every 0.1 s) finds no call to cut off
        assert call_with_timeout(lambda: "still fine", 1) == "still fine"


def test_a_timer_armed_by_someone_else_survives_a_batch():
    fired = []
    previous = signal.signal(signal.SIGALRM, lambda signum, frame: fired.append(signum))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with time_limits(), pytest.raises(CallTimeout):
            call_with_timeout(spin, 0.05)
        time.sleep(0.5)
        assert fired == [signal.SIGALRM]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_no_hypothesis_test_here_has_a_deadline():
    """tests/conftest.py's profile: an example that a loaded machine slows down is not a failure."""
    assert settings.default.deadline is None
