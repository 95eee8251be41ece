"""Engine results as pytest outcomes: a failure carries its report, and the command that
reruns it travels as data (``user_properties``) for the terminal summary.

    rmq_rerun   the command line that reruns one golden case or replays one generated check
    rmq_reason  the key failures of the same cause are grouped under
    rmq_class   how bad a failing golden case is (``engine.divergence``: wrong-queues, fault, error-behaviour)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pytest_rmq_conformance.engine.commands import replay_command, rerun_command

__all__ = ["rerun_command", "replay_command", "fail_case", "run_generated"]


def fail_case(request, conformance, outcome) -> None:
    """Fail the running test with the report of the failed golden ``outcome``."""
    from pytest_rmq_conformance.engine.divergence import of_outcome

    node = request.node
    node.user_properties.append(("rmq_reason", outcome.reason))
    node.user_properties.append(("rmq_class", of_outcome(outcome)))
    node.user_properties.append(("rmq_rerun", rerun_command(conformance.settings, outcome.case.id)))
    pytest.fail(conformance.report(outcome), pytrace=False)


def fail_generated(request, conformance, report: str) -> None:
    """Fail the running generated check with ``report`` and the line that replays it."""
    replay = replay_command(conformance.settings, f"{request.node.path}::{request.node.name}")
    request.node.user_properties.append(("rmq_rerun", replay))
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
) -> None:
    """Check ``body`` over the hypothesis ``examples`` for the running test; fail it with the
    report and the replay line when an example breaks the check."""
    from pytest_rmq_conformance.engine.generation import check_examples
    from pytest_rmq_conformance.engine.remote import HarnessGaveUp, Unsupported

    try:
        report = check_examples(conformance, examples, body, max_examples=max_examples, shrink=shrink, explicit=explicit)
    except Unsupported as exc:
        pytest.skip(f"not implemented: {exc}")
    except HarnessGaveUp as exc:
        pytest.skip(str(exc))
    if report is not None:
        fail_generated(request, conformance, report)
