"""Engine results as pytest outcomes: a failure carries its report, and what the summary, the
``--rmq-results`` file and ``--junitxml`` need travels as data (``user_properties``):

    rmq_cause       what went wrong, in one line (a golden case's first problem, a check's headline)
    rmq_reason      the key failures of the same cause are grouped under
    rmq_divergence  the first divergence the report shows
    rmq_rerun       the command line that reruns one golden case or replays one generated check
    rmq_class       a failing golden case: how bad it is (``engine.divergence``: wrong-queues, fault,
                    error-behaviour); a failing generated check: property, nondeterministic, hang, harness-fault,
                    fault; a skipped test: not-run (the harness was given up before it was asked, or
                    answered some calls notRun; a generated check ran out of time or failed a
                    hypothesis health check)
    rmq_shrinking   a failing generated check: completed, cut-short or not-shrunk
    rmq_note        a generated check that did not run to its end: how many examples it checked
    rmq_suite_faults  a generated check that left out draws the reference port fails: their count
    rmq_declined    a not-run golden case whose calls the harness answered notRun (a limit it declares)
    rmq_waived      a golden case skipped because the strategy declares it is not held to it
    rmq_family      (set at collection) the family of the golden case a golden or sort test checks

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Literal, NoReturn

import pytest

__all__ = [
    "fail_case",
    "fail_sort",
    "skip_not_run",
    "run_generated",
    "user_traceback",
    "RmqSuiteFaultWarning",
]


class RmqSuiteFaultWarning(pytest.PytestWarning):
    """The reference port fails a generated property on a draw: a fault of the suite (the draw
    lies outside the property's domain, or the property is wrong), never the strategy's."""


def _properties(request, **values: Any) -> None:
    request.node.user_properties.extend((f"rmq_{key}", value) for key, value in values.items() if value is not None)


def fail_case(request, golden, outcome) -> None:
    """Fail the running test with the report of the failed golden ``outcome`` (of ``golden``, the run's golden cases)."""
    from pytest_rmq_conformance.engine import kinds
    from pytest_rmq_conformance.engine.rerun import rerun_command

    kind = kinds.kind_of(outcome.case.strategy)
    first = outcome.error if outcome.error is not None else outcome.mismatches[0].problem
    _properties(
        request,
        cause=first,
        reason=outcome.reason,
        divergence=kind.divergence(outcome),
        rerun=rerun_command(golden.subject.settings, outcome.case.id),
        **{"class": outcome.divergence_class},
    )
    raised = next((m.raised for m in outcome.mismatches if getattr(m, "raised", None) is not None), None)
    shown = None if raised is None else user_traceback(raised, request.config)
    report = golden.report(outcome)
    pytest.fail(report if shown is None else f"{report}\n  raised in the strategy's code:\n{shown}", pytrace=False)


def fail_sort(request, conformance, case_id: str, problems: list[str], *, fault: str | None = None) -> NoReturn:
    """Fail the running sort check of golden case ``case_id``: the harness's sort failed
    (``fault``) or ordered a list unlike Java (``problems``, one per list). Grouped by cause
    with the golden failures; rerun by a line that runs this one sort check."""
    from pytest_rmq_conformance.engine.divergence import ERROR_BEHAVIOUR, FAULT, WRONG_QUEUES
    from pytest_rmq_conformance.engine.golden.cases import reason_of
    from pytest_rmq_conformance.engine.rerun import rerun_command

    if fault is not None:
        report, cause, reason = f"{case_id}: {fault}", fault, reason_of([], fault)
    else:
        report = f"{case_id}: the harness sorts unlike Java\n  " + "\n  ".join(problems)
        cause = problems[0].splitlines()[0]
        reason = "the harness sorts unlike Java: " + ", ".join(problem.split(":", 1)[0] for problem in problems)
    rerun = rerun_command(conformance.settings, case_id, check="sort")
    # an order unlike Java's hands the members other shares: queues consumed twice or not at all;
    # sorting lists Java refuses to sort is error behaviour only
    refused = all("Java's sort threw" in problem for problem in problems)
    found = {"class": FAULT if fault is not None else ERROR_BEHAVIOUR if refused else WRONG_QUEUES}
    _properties(request, cause=cause, reason=reason, divergence=cause, rerun=rerun, **found)
    pytest.fail(f"{report}\n  rerun: {rerun}", pytrace=False)


def user_traceback(exc: BaseException, config) -> str | None:
    """The traceback of ``exc`` cut to the strategy's own frames, in the ``--tb`` style of the
    run (``auto`` shows it short); ``None`` with ``--tb=no`` or when no frame is the user's."""
    from pytest_rmq_conformance.engine.running.tracebacks import is_suite_path

    style = config.getoption("tbstyle", "auto")
    if style in ("no", "line") or exc.__traceback__ is None:
        return None
    info = pytest.ExceptionInfo.from_exception(exc)
    frames = info.traceback.filter(lambda entry: not is_suite_path(entry.path))
    if not frames:
        return None
    info.traceback = frames  # "native" too starts from the first frame kept
    shown: Literal["long", "native", "short"] = "long" if style == "long" else "native" if style == "native" else "short"
    text = str(info.getrepr(style=shown, funcargs=False, showlocals=config.getoption("showlocals", False), chain=False))
    return "\n".join(f"    {line}" for line in text.rstrip().splitlines())


def skip_not_run(request, reason: str, *, declined: bool = False) -> None:
    """Skip the running test as *not run*: the harness was given up before it could be asked, or
    did not make some of its calls (``declined``: it answered them ``notRun``, a limit it declares), or
    a generated check did not run to its end (out of time, a failed health check). A test not run for
    any reason but ``declined`` fails the run (:mod:`~pytest_rmq_conformance.plugin.judged`)."""
    _properties(request, **{"class": "not-run", "cause": reason, "declined": declined or None})
    pytest.skip(reason)


def fail_generated(request, conformance, report: str, **found: Any) -> None:
    """Fail the running generated check with ``report`` and the line that replays it (``found``:
    more properties, such as ``shrinking``)."""
    from pytest_rmq_conformance.engine.rerun import node_of, replay_command

    replay = replay_command(conformance.settings, node_of(request.node.path, request.node.name))
    _properties(request, cause=report.splitlines()[0], rerun=replay, **found)
    pytest.fail(f"{report}\n  replay: {replay}", pytrace=False)


def run_generated(
    request,
    conformance,
    examples: Any,
    body: Callable[[Any], None],
    *,
    max_examples: int | None = None,
    shrink: bool = True,
    explicit: Any = (),
    reference: Callable[[Any], None] | None = None,
) -> None:
    """Check ``body`` over the hypothesis ``examples`` for the running test; fail it with the
    report and the replay line when an example breaks the check. Draws the ``reference`` body
    (the same check on the reference port) fails are left out, each a warning that names the
    check, the draw and the seed; a check that could check no draw at all is skipped. A check
    that did not run to its end (its ``--rmq-check-time`` ran out, or its generator failed a
    hypothesis health check) is *not run*, never passed: how many examples it tried is no verdict."""
    from pytest_rmq_conformance.engine.generated.generation import check_examples
    from pytest_rmq_conformance.engine.protocol.client import HarnessGaveUp, Unsupported

    try:
        result = check_examples(conformance, examples, body, max_examples=max_examples, shrink=shrink, explicit=explicit,
                                reference=reference)
    except Unsupported as exc:
        pytest.skip(f"not implemented: {exc}")
    except HarnessGaveUp as exc:
        skip_not_run(request, str(exc))
    if result.excluded:
        _suite_faults(request, result)
    if result.report is not None:
        found = {"divergence": result.divergence, "shrinking": result.shrinking, "class": result.cause}
        fail_generated(request, conformance, result.report, **found)
    if result.not_run is not None:
        _properties(request, note=result.note)
        skip_not_run(request, f"not run: {request.node.name} {result.not_run}")


def _suite_faults(request, result) -> None:
    """Warn of each draw left out because the reference port fails it (the first few in full)."""
    from pytest_rmq_conformance.engine.generated.domain import MAX_KEPT

    _properties(request, suite_faults=result.excluded)
    for report in result.suite_faults:
        warnings.warn(RmqSuiteFaultWarning(f"{request.node.name}: {report}"), stacklevel=3)
    if result.excluded > MAX_KEPT:
        more = result.excluded - MAX_KEPT
        warnings.warn(RmqSuiteFaultWarning(f"{request.node.name}: suite fault: {more} more draw(s) the reference port fails were left out"), stacklevel=3)
    if result.tried == 0:
        pytest.skip(f"suite fault: the reference port fails every one of the {result.excluded} draw(s); nothing was checked")
