"""A per-call time limit for strategy code that may hang.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = ["CallTimeout", "StrategyFault", "StrategyExit", "Fault", "call_with_timeout", "answer_of", "time_limits"]

T = TypeVar("T")


class CallTimeout(BaseException):
    """The call took longer than its limit.

    A ``BaseException`` so that strategy code catching ``Exception`` cannot swallow it.
    """

    def __init__(self, seconds: float):
        super().__init__(f"took longer than {seconds:g} s")
        self.seconds = seconds


class StrategyFault(BaseException):
    """The strategy did what no answer can stand for (the message says what): the check stops there.

    A ``BaseException`` so that no rebalance model takes it for an exception the client logs
    and survives.
    """


class StrategyExit(StrategyFault):
    """The strategy called ``sys.exit``: reported as a fault of that call, never obeyed (in
    Java, ``System.exit`` would take the whole client down)."""

    def __init__(self, code: object):
        super().__init__(
            f"called sys.exit({code!r}): a strategy must not end the process it runs in "
            "(in Java, System.exit would take the whole client down)"
        )
        self.code = code


def call_with_timeout(func: Callable[[], T], seconds: float | None) -> T:
    """``func()`` (strategy code), interrupted with :class:`CallTimeout` after ``seconds``
    (``None`` or 0: no limit); a ``sys.exit`` inside it raises :class:`StrategyExit` instead.

    On the main thread of a POSIX process the call is interrupted by
    ``SIGALRM``, which stops a pure-Python loop or a sleep where it is, and
    any timer already armed (pytest-timeout's, say) is restored afterwards.
    Elsewhere the call runs in a daemon thread that is abandoned if it
    overruns. Python code cannot be interrupted inside a C call that never
    returns, nor, on Python 3.10, in a loop whose body is only a ``try``
    block (3.10 defers signals at the start of a ``try``).
    """
    try:
        if not seconds or seconds <= 0:
            return func()
        alarm = _ALARM
        if alarm.installed and _get_ident() == alarm.thread:  # in a batch: a clock read
            if alarm.ticking != seconds:
                alarm.seconds = alarm.ticking = seconds
                signal.setitimer(signal.ITIMER_REAL, seconds / 10, seconds / 10)
            outer, alarm.started = alarm.started, _monotonic()
            try:
                return func()
            finally:
                alarm.started = outer  # a call inside a call leaves the outer one its limit
        if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
            return _with_alarm(func, seconds)
        return _with_thread(func, seconds)
    except SystemExit as exc:
        raise StrategyExit(exc.code) from None


class _Alarm:
    """Our ``SIGALRM`` handler. Alone, it fires once, at the limit of the call. Under
    :func:`time_limits` it ticks at a tenth of the limit and interrupts only a call that has
    run past its limit: a call then costs a clock read instead of two timer system calls.
    Its state is one instance's (:data:`_ALARM`): setting a class's attributes on every call
    would cost more than the call."""

    __slots__ = ("installed", "seconds", "started", "thread", "ticking")

    def __init__(self) -> None:
        self.seconds = 0.0
        self.installed = False  # under time_limits
        self.ticking = 0.0  # the limit the ticks are set for (0: no ticks yet)
        self.thread = 0  # the thread of the batch (the main thread)
        self.started: float | None = None  # when the running call started, under time_limits

    def fire(self, signum, frame):
        if not self.installed:
            raise CallTimeout(self.seconds)
        started = self.started
        if started is not None and time.monotonic() - started >= self.seconds:
            self.started = None
            raise CallTimeout(self.seconds)


_ALARM = _Alarm()
_get_ident = threading.get_ident
_monotonic = time.monotonic


@contextmanager
def time_limits() -> Iterator[None]:
    """Keep the ``SIGALRM`` handler installed, and one ticking timer armed, over a batch of
    :func:`call_with_timeout` calls (each still has its own limit). Does nothing off the main
    thread, inside another ``time_limits``, or while another timer is armed."""
    alarm = _ALARM
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable or alarm.installed or signal.getitimer(signal.ITIMER_REAL)[0] > 0:
        yield
        return
    previous_handler = signal.signal(signal.SIGALRM, alarm.fire)
    signal.siginterrupt(signal.SIGALRM, False)  # a tick restarts the system calls of C code it lands in
    alarm.installed, alarm.thread = True, threading.get_ident()
    try:
        yield
    finally:
        if alarm.ticking:
            signal.setitimer(signal.ITIMER_REAL, 0)
        alarm.installed, alarm.ticking, alarm.started = False, 0.0, None
        signal.signal(signal.SIGALRM, previous_handler)


def _with_alarm(func: Callable[[], T], seconds: float) -> T:
    _ALARM.seconds = seconds
    started = time.monotonic()
    previous_handler = signal.signal(signal.SIGALRM, _ALARM.fire)
    previous_delay, previous_interval = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return func()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous_handler)
        if previous_delay > 0:
            remaining = max(previous_delay - (time.monotonic() - started), 1e-3)
            signal.setitimer(signal.ITIMER_REAL, remaining, previous_interval)


def _with_thread(func: Callable[[], T], seconds: float) -> T:
    box: dict = {}

    def run():
        try:
            box["value"] = func()
        except BaseException as exc:  # handed to the caller below
            box["error"] = exc

    worker = threading.Thread(target=run, name="rmq-strategy-call", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise CallTimeout(seconds)
    if "error" in box:
        raise box["error"]
    return box["value"]


class Fault(Exception):
    """What no answer stands for: a hang, an exit, a wrong type, a strategy that cannot be built;
    ``raised`` is what stood behind it (a :class:`CallTimeout` for a hang)."""

    def __init__(self, problem: str, raised: BaseException | None = None):
        super().__init__(problem)
        self.problem, self.raised = problem, raised


def answer_of(func: Callable[[], Any], timeout: float | None, what: str | None = None) -> tuple[Any, BaseException | None]:
    """``func()`` (strategy code) under the per-call limit: ``(result, None)``, or ``(None, what
    it raised)`` (an exception is an answer to compare); :class:`Fault` when it hung or exited.
    ``what`` names the call in the fault's message."""
    try:
        return call_with_timeout(func, timeout), None
    except CallTimeout as exc:
        raise Fault(f"{what + ' ' if what else ''}did not return: {exc} (--rmq-timeout)", exc) from None
    except StrategyExit as exc:
        raise Fault(f"{what}: {exc}" if what else str(exc)) from None
    except Exception as exc:
        return None, exc
