"""The per-call time limit, alone and inside a batch that keeps its handler installed."""

import signal
import time

import pytest

from pytest_rmq_conformance.engine.running.timeouts import CallTimeout, call_with_timeout, time_limits


def spin():
    while True:
        time.sleep(0.01)


def test_a_call_over_its_limit_is_cut_off_and_the_handler_restored():
    before = signal.getsignal(signal.SIGALRM)
    with pytest.raises(CallTimeout, match=r"took longer than 0\.05 s"):
        call_with_timeout(spin, 0.05)
    assert signal.getsignal(signal.SIGALRM) is before
    assert call_with_timeout(lambda: 7, 0.05) == 7


def test_in_a_batch_every_call_keeps_its_own_limit():
    before = signal.getsignal(signal.SIGALRM)
    with time_limits():
        assert signal.getsignal(signal.SIGALRM) is not before
        assert call_with_timeout(lambda: "quick", 0.05) == "quick"
        time.sleep(0.1)  # no alarm left armed by the quick call
        with pytest.raises(CallTimeout, match=r"took longer than 0\.05 s"):
            call_with_timeout(spin, 0.05)
        with pytest.raises(CallTimeout, match=r"took longer than 0\.1 s"):
            call_with_timeout(spin, 0.1)
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0  # the batch's ticks end with it


def test_in_a_batch_the_limit_is_per_call_not_per_batch():
    with time_limits():
        for _ in range(12):  # 0.24 s in all, each call well under its 0.1 s
            assert call_with_timeout(lambda: time.sleep(0.02) or "ok", 0.1) == "ok"
        time.sleep(0.15)  # between calls, a tick finds no call to cut off
        assert call_with_timeout(lambda: "still fine", 0.1) == "still fine"


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
