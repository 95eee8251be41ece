"""Running the generated checks under hypothesis: profiles, the seed, time budgets and honest verdicts.

A check is a body called with one drawn example; it raises
:class:`PropertyFailure` with a report when the strategy breaks a property.
:func:`check_examples` runs it with the profile's settings and the run's
seed and returns a :class:`CheckResult`. When an example first fails, it is
asked again at once: if the failure does not come back, or the strategy
answers some call otherwise the second time
(:mod:`~pytest_rmq_conformance.engine.running.nondeterminism`), the verdict is
*nondeterministic*, with the two answers, and nothing is shrunk. Otherwise
hypothesis shrinks the example within ``Settings.shrink_time`` seconds;
when they run out, the smallest failing example found so far is reported.
Drawing examples stops after ``Settings.check_time`` seconds: the check then did
not run (``CheckResult.not_run`` says how many of how many examples it tried, and
which option raises the budget), and is never a pass. A strategy that hangs
ends the check at once (no shrinking). A strategy whose constructor raises for a drawn
configuration that Java's accepts fails the check with one report naming the
configuration and the exception (the example is shrunk like any other); where
Java's constructor refuses the configuration too, the example does not count. With a
``reference`` body (:mod:`.domain`), a failing draw is asked of the reference port before it
is held against the strategy; a draw the port fails too does not count either: it is a fault of
the suite, kept in ``CheckResult.suite_faults``.

Hypothesis's health checks that catch starved generation stay on (:data:`HEALTH_CHECKS`): a
generator that filters out most of its draws, or whose draws overrun hypothesis's buffer, or
whose simplest example is already large. The generators are the suite's, not the strategy's:
when one fails, the check did not run (``not_run`` names the health check), it neither passes
on the few examples it managed nor fails the strategy.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import re
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import HealthCheck, Phase, example, given, reject, seed
from hypothesis import settings as hypothesis_settings
from hypothesis.errors import FailedHealthCheck, Flaky, HypothesisWarning, Unsatisfiable, UnsatisfiedAssumption
from hypothesis.strategies import SearchStrategy

from pytest_rmq_conformance.engine.generated.budgets import OutOfTime, deadline
from pytest_rmq_conformance.engine.generated.domain import MAX_KEPT, suite_fault
from pytest_rmq_conformance.engine.generated.failures import build_failure_lines, format_generated
from pytest_rmq_conformance.engine.loading.subject import Subject
from pytest_rmq_conformance.engine.protocol.client import HarnessFault
from pytest_rmq_conformance.engine.running.hangs import Hang
from pytest_rmq_conformance.engine.running.nondeterminism import Difference, first_difference, recording
from pytest_rmq_conformance.engine.running.timeouts import StrategyFault
from pytest_rmq_conformance.engine.settings import PROFILES, check_seconds, profile_examples

__all__ = ["PROFILES", "PropertyFailure", "CheckResult", "profile_examples", "check_examples", "HEALTH_CHECKS"]

#: causes of a failed check (``CheckResult.cause``)
PROPERTY, NONDETERMINISTIC, HANG, HARNESS, FAULT = "property", "nondeterministic", "hang", "harness-fault", "fault"
#: how far shrinking went (``CheckResult.shrinking``)
COMPLETED, CUT_SHORT, NOT_SHRUNK = "completed", "cut-short", "not-shrunk"
#: the hypothesis health checks a generated check keeps: those that catch starved generation
#: (most draws filtered out, draws too large for hypothesis's buffer, a large simplest example).
#: ``too_slow`` is left out: the check's own budget (``--rmq-check-time``) already bounds drawing
#: and asking together, and a second, fixed clock on the first draws would judge the machine's
#: load; the others are about test functions, which a check is not.
HEALTH_CHECKS = (HealthCheck.filter_too_much, HealthCheck.data_too_large, HealthCheck.large_base_example)


class PropertyFailure(AssertionError):
    """A generated example on which the strategy breaks a property; the message is the report."""


@dataclass(frozen=True)
class CheckResult:
    """What one generated check found: ``report`` is ``None`` when it passed."""

    report: str | None = None
    cause: str | None = None  # PROPERTY, NONDETERMINISTIC, HANG, HARNESS or FAULT
    shrinking: str | None = None  # COMPLETED, CUT_SHORT or NOT_SHRUNK, for a failure
    divergence: str | None = None  # the first thing the report shows going wrong
    tried: int = 0  # examples asked
    note: str | None = None  # a check that checked fewer examples than the profile's: how many
    not_run: str | None = None  # why the check did not run to its end, after its name ("ran out of time: ...")
    suite_faults: tuple[str, ...] = ()  # draws the reference port fails (left out): the first few in full
    excluded: int = 0  # how many distinct draws were left out for that


class _Nondeterministic(BaseException):
    """The failing example, asked again, did not fail the same way (ends the check: nothing to shrink)."""

    def __init__(self, failure: PropertyFailure, again: PropertyFailure | None, difference: Difference | None, example: Any):
        super().__init__("nondeterministic")
        self.failure, self.again, self.difference, self.example = failure, again, difference, example


def _settings(max_examples: int, shrink: bool):
    phases = [Phase.explicit, Phase.generate] + ([Phase.shrink] if shrink else [])
    return hypothesis_settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        derandomize=False,
        print_blob=False,
        report_multiple_bugs=False,
        phases=phases,
        suppress_health_check=[check for check in HealthCheck if check not in HEALTH_CHECKS],
    )


def _first_failure(exc: BaseException) -> PropertyFailure | None:
    for inner in getattr(exc, "exceptions", ()):
        if isinstance(inner, PropertyFailure):
            return inner
        found = _first_failure(inner)
        if found is not None:
            return found
    return None


class _Run:
    """The body as hypothesis calls it: timed, the first failure asked twice, the smallest failure kept."""

    def __init__(
        self,
        subject,
        body: Callable[[Any], None],
        check_time: float | None,
        shrink_time: float,
        explicit: Sequence[Any],
        replay: bool,
        reference: Callable[[Any], None] | None = None,
    ):
        self.subject, self.body, self.replay, self.reference = subject, body, replay, reference
        self.check_time, self.shrink_time = check_time, shrink_time
        self.explicit = {id(fixed) for fixed in explicit}
        self.started = time.monotonic()
        self.shrink_started: float | None = None  # after the first failure
        self.tried = 0
        self.smallest: PropertyFailure | None = None
        self.error: Exception | None = None  # the last error the body raised that is no failure of the strategy
        self.fixed_failed = False
        self.suite_faults: dict[str, str] = {}  # a left-out draw's report, by its first lines

    def __call__(self, drawn: Any) -> None:
        if self.shrink_started is None:
            limit = None if self.check_time is None else self.started + self.check_time - time.monotonic()
            phase = "generation"
        else:
            limit = self.shrink_started + self.shrink_time - time.monotonic()
            phase = "shrinking"
        if limit is not None and limit <= 0:
            raise OutOfTime(phase)
        self.tried += 1
        with deadline(limit, phase), recording() as first:
            try:
                caught = self._attempt(drawn)
            except UnsatisfiedAssumption:  # an example that does not count
                raise
            except Exception as error:  # not the strategy's: hypothesis shrinks it, on the shrinking budget
                if self.shrink_started is None:
                    self.shrink_started = time.monotonic()
                self.error = error
                raise
        if caught is None:
            return
        self._in_domain(drawn, caught)  # the reference port: trusted, not timed
        if self.shrink_started is None:
            if self.replay:
                self._ask_again(drawn, caught, first)
            self.fixed_failed = id(drawn) in self.explicit
            self.shrink_started = time.monotonic()
        self.smallest = caught
        raise caught

    def _in_domain(self, drawn: Any, caught: PropertyFailure) -> None:
        """Before ``caught`` is held against the strategy, ask the reference port (a strategy with
        a Java twin): a draw it fails too is left out."""
        if self.reference is None:
            return
        if self.reference is self.body:  # the reference port itself: its failure is the suite's
            self._leave_out(caught)
        try:
            self.reference(drawn)
        except PropertyFailure as failure:
            self._leave_out(failure)

    def _leave_out(self, failure: PropertyFailure) -> None:
        """Keep the reference port's ``failure`` as a fault of the suite and reject the draw."""
        self.tried -= 1
        report = str(failure)
        self.suite_faults.setdefault(report, suite_fault(self.subject, report))
        reject()

    def _attempt(self, drawn: Any) -> PropertyFailure | None:
        """The body's verdict on ``drawn``: ``None`` when it passed."""
        try:
            self.body(drawn)
        except PropertyFailure as failure:
            return failure
        except Exception as exc:
            unbuilt = self._unbuilt(exc, drawn)
            if unbuilt is None:
                raise
            return unbuilt
        return None

    def _unbuilt(self, exc: Exception, drawn: Any) -> PropertyFailure | None:
        """``exc`` as the failure of a strategy that could not be built for a drawn configuration
        (``None`` when it was not raised while building one). When Java's constructor refuses
        that configuration too, the example does not count (there is no strategy to check)."""
        group = _building(exc)
        if group is None:
            return None
        if getattr(group, "strategy", None) is not None:
            try:
                self.subject.reference_for(group)
            except Exception:
                reject()
        name = self.subject.name
        headline = f"{name} could not be built for a generated configuration: {type(exc).__name__}: {exc}"
        details = build_failure_lines(exc, group)
        if getattr(group, "strategy", None) is not None:
            details.append("Java's constructor accepts this configuration (the reference port is built for it)")
        data = drawn.dumps() if hasattr(drawn, "dumps") else group.dumps()
        return PropertyFailure(format_generated(headline, details, self.subject.kind.describe_example(group), data))

    def _ask_again(self, drawn: Any, failure: PropertyFailure, first) -> None:
        with recording() as second:
            again = self._attempt(drawn)
        difference = first_difference(first, second)
        # answers given out of sight (in other processes) are judged by the reports, which show them
        unseen = not first.calls and again is not None and str(again) != str(failure)
        if again is None or difference is not None or unseen:
            raise _Nondeterministic(failure, again, difference, drawn)


def _building(exc: BaseException) -> Any:
    """The case or group a strategy was being built for when ``exc`` was raised (``exc`` went
    through :meth:`Subject.build <pytest_rmq_conformance.engine.loading.subject.Subject.build>`), else ``None``."""
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code is Subject.build.__code__:
            return tb.tb_frame.f_locals.get("case")
        tb = tb.tb_next
    return None


def _nondeterministic_report(name: str, stop: _Nondeterministic) -> str:
    headline = str(stop.failure).splitlines()[0]
    lines = [f"{name} is nondeterministic: the same example, asked twice, did not get the same answers"]
    if stop.difference is not None:
        lines.extend(f"  {line}" for line in stop.difference.lines())
    if stop.again is None:
        lines.append(f"  the first time the check failed ({headline}); asked again, it passed")
    else:
        lines.append(f"  the check failed both times, with different answers: {headline}")
    lines.append("  its answers depend on something besides its inputs: randomness, the time, state kept between calls")
    lines.append("  shrinking: not done (a failure that does not repeat cannot be shrunk)")
    lines.append("  the first failure in full:")
    lines.extend(f"    {line}" for line in str(stop.failure).splitlines())
    return "\n".join(lines)


def _divergence(report: str) -> str:
    """The first detail of a report (else its headline)."""
    lines = [line.strip() for line in report.splitlines() if line.strip()]
    return lines[1] if len(lines) > 1 else (lines[0] if lines else "")


def check_examples(
    subject,
    examples: SearchStrategy,
    body: Callable[[Any], None],
    *,
    max_examples: int | None = None,
    shrink: bool = True,
    explicit: Sequence[Any] = (),
    reference: Callable[[Any], None] | None = None,
) -> CheckResult:
    """Check ``body`` over ``examples`` for the strategy under test (a
    :class:`~pytest_rmq_conformance.engine.loading.subject.Subject`), the ``explicit`` examples first;
    ``reference`` is the same check on the reference port (:func:`.domain.reference_body`), ``body``
    itself when the strategy is the reference port."""
    faults: dict[str, str] = {}
    if reference is not None and subject.is_reference:
        reference = body  # asked once: where it fails, the reference port fails
    result = _check(subject, examples, body, max_examples, shrink, explicit, reference, faults)
    if not faults:
        return result
    return replace(result, suite_faults=tuple(list(faults.values())[:MAX_KEPT]), excluded=len(faults))


def _check(subject, examples, body, max_examples, shrink, explicit, reference, faults: dict[str, str]) -> CheckResult:
    settings = subject.settings
    if subject.hangs.exhausted:
        return CheckResult(subject.hangs.refusal(), HANG, NOT_SHRUNK, subject.hangs.refusal())
    count = max_examples if max_examples is not None else profile_examples(settings)
    # a strategy claiming one answer per input is asked again before shrinking; one that keeps
    # state on purpose may answer otherwise the second time without being nondeterministic
    check_time = check_seconds(settings)
    run = _Run(subject, body, check_time, settings.shrink_time, explicit, "one-answer" in subject.properties, reference)
    run.suite_faults = faults

    def check(drawn: Any) -> None:
        run(drawn)

    test = given(examples)(check)
    for fixed in reversed(explicit):
        test = example(fixed)(test)
    test = seed(settings.seed)(_settings(count, shrink)(test))
    try:
        with warnings.catch_warnings():
            # our reports print the group as data; hypothesis's repr of a large one is noise
            warnings.filterwarnings("ignore", "Generating overly large repr", HypothesisWarning)
            test()
    except PropertyFailure as failure:
        return _failed(str(failure), run, shrink, f"{time.monotonic() - (run.shrink_started or run.started):.1f} s")
    except OutOfTime as stop:
        if stop.phase == "shrinking" and run.smallest is not None:
            return _failed(str(run.smallest), run, shrink, cut=True)
        if stop.phase == "shrinking" and run.error is not None:
            raise run.error from None  # never a pass for a check that broke
        return _out_of_time(subject, run, count, check_time)
    except FailedHealthCheck as failed:
        return _starved(subject, run, failed)
    except Unsatisfiable:  # every draw was left out: the property checked nothing
        if not faults:
            raise
        why = f"no draw was checked: the reference port fails all {len(faults)} drawn (a fault of the suite)"
        return CheckResult(tried=run.tried, note=f"checked {run.tried} examples", not_run=why)
    except _Nondeterministic as stop:
        report = _nondeterministic_report(subject.name, stop)
        difference = stop.difference
        shown = " ".join(line.strip() for line in difference.lines()) if difference is not None else _divergence(str(stop.failure))
        return CheckResult(report, NONDETERMINISTIC, NOT_SHRUNK, shown, run.tried)
    except HarnessFault as fault:
        report = f"{fault}\n  the check stopped there\n  shrinking: not done (the harness failed)"
        return CheckResult(report, HARNESS, NOT_SHRUNK, str(fault).splitlines()[0], run.tried)
    except Hang as hang:
        subject.hangs.record()
        report = (
            f"{hang}; the check stopped there\n  shrinking: not done (a hang is not shrunk)\n"
            f"  group as data: {hang.example.dumps()}"
        )
        return CheckResult(report, HANG, NOT_SHRUNK, str(hang), run.tried)
    except StrategyFault as stop:
        report = f"{subject.name} {stop}\n  the check stopped there\n  shrinking: not done (no answer to shrink)"
        return CheckResult(report, FAULT, NOT_SHRUNK, str(stop), run.tried)
    except Flaky as exc:
        first = _first_failure(exc)
        what = str(first) if first is not None else f"{type(exc).__name__}: {exc}"
        report = (
            f"{subject.name} is nondeterministic: it failed on a generated group, then answered differently "
            "when the same group was replayed: its answers depend on something besides its inputs "
            f"(state kept between calls, the time, randomness)\n  shrinking: stopped there\n{what}"
        )
        return CheckResult(report, NONDETERMINISTIC, NOT_SHRUNK, _divergence(what), run.tried)
    return CheckResult(tried=run.tried)


def _out_of_time(subject, run: _Run, count: int, check_time: float) -> CheckResult:
    """A check whose drawing time ran out: not run, whatever the examples it tried showed (a
    verdict on some of them is not the verdict the run promises)."""
    note = f"checked {run.tried} of {count} examples"
    why = (f"ran out of time: {note} of {subject.name} in its {check_time:g} s; "
           "raise the budget with --rmq-check-time (ini rmq_check_time)")
    return CheckResult(tried=run.tried, note=note, not_run=why)


def _starved(subject, run: _Run, failed: FailedHealthCheck) -> CheckResult:
    """A check whose generator failed one of :data:`HEALTH_CHECKS`: not run, naming the health
    check. The generator is the suite's, so a starved one is no fault of the strategy (no
    failure); nor is a verdict on the few examples it did yield the verdict the run promises
    (no pass)."""
    message = str(failed)
    named = re.search(r"HealthCheck\.(\w+)", message)
    first = next((line.strip() for line in message.splitlines() if line.strip()), "")
    why = (f"failed hypothesis health check {named.group(1) if named else '(unnamed)'}: {first} "
           f"({run.tried} example(s) asked of {subject.name}; the suite's generator is starved, a fault of the suite)")
    return CheckResult(tried=run.tried, note=f"checked {run.tried} examples", not_run=why)


def _failed(report: str, run: _Run, shrink: bool, took: str = "", cut: bool = False) -> CheckResult:
    if not shrink:
        how, line = NOT_SHRUNK, "not done (this check does not shrink: replay it with its seed)"
    elif run.fixed_failed:
        how, line = NOT_SHRUNK, "not done (a fixed example, not a drawn one)"
    elif cut:
        how = CUT_SHORT
        line = (
            f"cut short after {run.shrink_time:g} s (--rmq-shrink-time): this is the smallest failing "
            "example found so far, not necessarily the smallest there is"
        )
    else:
        how, line = COMPLETED, f"completed in {took}"
    return CheckResult(f"{report}\n  shrinking: {line}", PROPERTY, how, _divergence(report), run.tried)
