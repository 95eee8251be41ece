"""Golden conformance: every golden case of the strategy's family, answered as Java did."""

import pytest

from pytest_rmq_conformance.engine.golden.data import GoldenDataError
from pytest_rmq_conformance.plugin.state import rmq_state
from pytest_rmq_conformance.plugin.verdicts import fail_case, skip_not_run

pytestmark = pytest.mark.rmq_check("golden")


class NotReplayable:
    """Stands in for the cases when there are none to replay, saying why."""

    def __init__(self, reason: str, fail: bool):
        self.reason, self.fail = reason, fail


def pytest_generate_tests(metafunc):
    if "rmq_golden_case" not in metafunc.fixturenames:
        return
    state = rmq_state(metafunc.config)
    subject = state.subject
    try:
        cases = state.golden.cases()
    except GoldenDataError as exc:
        metafunc.parametrize("rmq_golden_case", [NotReplayable(f"malformed golden data: {exc}", True)], ids=["golden-data"])
        return
    except LookupError as exc:
        metafunc.parametrize("rmq_golden_case", [NotReplayable(str(exc), True)], ids=["golden-release"])
        return
    if cases:
        metafunc.parametrize("rmq_golden_case", cases, ids=[case.id for case in cases])
        return
    if not subject.families:
        reason = f"{subject.name!r} has no Java twin: no golden vectors apply"
    else:
        reason = f"no golden case of {'/'.join(subject.families)} at RocketMQ {subject.settings.version}"
        reason += f" with charset {subject.settings.charset}"
    metafunc.parametrize("rmq_golden_case", [NotReplayable(reason, False)], ids=["no-golden-cases"])


def test_golden(rmq_golden_case, request):
    if isinstance(rmq_golden_case, NotReplayable):
        if rmq_golden_case.fail:
            pytest.fail(rmq_golden_case.reason, pytrace=False)
        pytest.skip(rmq_golden_case.reason)
    rmq_golden = rmq_state(request.config).golden  # the rmq_golden fixture's value, without its per-test lookup
    outcome = rmq_golden.run_case(rmq_golden_case)
    if outcome.not_run:
        skip_not_run(request, outcome.skipped, declined=outcome.declined)
    if outcome.skipped is not None:
        if outcome.waived:  # the strategy says it is not held to this case: not a case left unjudged
            request.node.user_properties.append(("rmq_waived", True))
        pytest.skip(outcome.skipped)
    if not outcome.passed:
        fail_case(request, rmq_golden, outcome)
