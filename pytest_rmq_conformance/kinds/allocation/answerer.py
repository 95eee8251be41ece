"""A process answering generated groups, for the ``process`` and ``time`` checks.

``python -m pytest_rmq_conformance.kinds.allocation.answerer`` reads one JSON request on stdin
(the strategy spec, settings, a clock offset and the scenarios), moves its
clock by the offset *before* importing the strategy, and writes
``{"answers": [[key per caller] per scenario]}`` (see
:func:`~pytest_rmq_conformance.kinds.allocation.replay.answer_key`) or ``{"error": ...}``.
Each caller is answered by a freshly built strategy.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import datetime
import json
import os
import sys
import time


def shift_clock(offset: float) -> None:
    """Make ``time`` and ``datetime`` report ``offset`` seconds later than they would."""
    if not offset:
        return
    real = {name: getattr(time, name) for name in ("time", "time_ns", "monotonic", "monotonic_ns", "perf_counter", "perf_counter_ns", "localtime", "gmtime", "ctime", "strftime")}
    nanos = int(offset * 1e9)
    time.time = lambda: real["time"]() + offset
    time.time_ns = lambda: real["time_ns"]() + nanos
    time.monotonic = lambda: real["monotonic"]() + offset
    time.monotonic_ns = lambda: real["monotonic_ns"]() + nanos
    time.perf_counter = lambda: real["perf_counter"]() + offset
    time.perf_counter_ns = lambda: real["perf_counter_ns"]() + nanos
    time.localtime = lambda secs=None: real["localtime"](time.time() if secs is None else secs)
    time.gmtime = lambda secs=None: real["gmtime"](time.time() if secs is None else secs)
    time.ctime = lambda secs=None: real["ctime"](time.time() if secs is None else secs)
    time.strftime = lambda fmt, t=None: real["strftime"](fmt, time.localtime() if t is None else t)

    class ShiftedDatetime(datetime.datetime):
        @classmethod
        def now(cls, tz=None):
            return cls.fromtimestamp(time.time(), tz)

        @classmethod
        def today(cls):
            return cls.fromtimestamp(time.time())

        @classmethod
        def utcnow(cls):
            return cls.fromtimestamp(time.time(), datetime.timezone.utc).replace(tzinfo=None)

    class ShiftedDate(datetime.date):
        @classmethod
        def today(cls):
            return cls.fromtimestamp(time.time())

    datetime.datetime = ShiftedDatetime  # type: ignore[misc]
    datetime.date = ShiftedDate  # type: ignore[misc]


def answer(request: dict) -> dict:
    shift_clock(float(request.get("clockOffset") or 0))
    sys.path[:0] = [p for p in request.get("sysPath", []) if p not in sys.path]

    from pytest_rmq_conformance.engine.loading.subject import Subject
    from pytest_rmq_conformance.engine.running.hangs import Hang
    from pytest_rmq_conformance.engine.settings import Settings
    from pytest_rmq_conformance.kinds.allocation.calls import ask
    from pytest_rmq_conformance.kinds.allocation.replay import answer_key
    from pytest_rmq_conformance.kinds.allocation.scenarios import Scenario

    settings = Settings(
        spec=request["spec"],
        version=request["version"],
        charset=request["charset"],
        timeout=request.get("timeout"),
        strict_order=bool(request.get("strictOrder")),
    )
    subject = Subject(settings)
    if subject.load_error is not None:
        return {"error": subject.load_error}
    answers = []
    for data in request["scenarios"]:
        scenario = Scenario.from_json(data)
        keys = []
        for caller in scenario.callers:
            try:
                strategy = subject.build_for(scenario)
                keys.append(answer_key(ask(strategy, scenario, caller, settings.timeout), settings.strict_order))
            except Hang as exc:
                keys.append(["hang", str(exc)])
            except Exception as exc:  # a factory refusing the configuration answers like an exception
                keys.append(["raises", type(exc).__name__])
        answers.append(keys)
    return {"answers": answers}


def main() -> int:
    request = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    # the reply keeps the real stdout; whatever the strategy prints goes to stderr
    reply_out = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    reply = answer(request)
    reply_out.write(json.dumps(reply))
    reply_out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
