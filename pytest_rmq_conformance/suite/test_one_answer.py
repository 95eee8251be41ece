"""One answer everywhere: the same inputs give the same answer on every client and process."""

import pytest
from hypothesis import strategies as st

from pytest_rmq_conformance.engine.generated.generation import PropertyFailure
from pytest_rmq_conformance.engine.settings import PROFILES
from pytest_rmq_conformance.kinds.allocation.failures import format_generated
from pytest_rmq_conformance.kinds.allocation.one_answer import (
    CHECKS,
    IN_PROCESS_CHECKS,
    NOT_ACROSS_A_PIPE,
    WorkerRun,
    across_processes,
    in_process,
)
from pytest_rmq_conformance.plugin.verdicts import run_generated

pytestmark = pytest.mark.rmq_check("one-answer", kinds=("allocation",))

WHAT = {
    "repetition": "the same call repeated on one instance",
    "call-order": "calls in another order, after other calls",
    "fresh-instance": "a fresh instance (a harness: a fresh process) against a used one",
    "copies": "the same list objects against equal copies",
    "arguments": "the lists it is given must stay as they were",
    "process": "other processes, other PYTHONHASHSEED values",
    "time": "other processes with the clock moved",
}


@pytest.mark.parametrize("check", CHECKS)
def test_one_answer(check, rmq_conformance, rmq_groups, request):
    reason = rmq_groups.skip_reason()
    if reason is not None:
        pytest.skip(reason)
    if "one-answer" not in rmq_conformance.properties:
        pytest.skip(f"{rmq_conformance.name} does not claim one-answer ({rmq_conformance.properties_origin})")
    settings = rmq_conformance.settings
    name = rmq_conformance.name
    harness = rmq_conformance.harness
    if harness is not None and check in NOT_ACROSS_A_PIPE:
        pytest.skip(f"a strategy behind a harness: {NOT_ACROSS_A_PIPE[check]}")
    if check in IN_PROCESS_CHECKS:
        if check == "fresh-instance" and not rmq_conformance.fresh_instances:
            pytest.skip("an instance spec is one object: pass its class or a factory to compare fresh instances")

        def one_group(scenario):
            violations = in_process(
                check,
                rmq_conformance.build_for,
                scenario,
                settings.timeout,
                settings.strict_order,
                rmq_conformance.fresh_instances,
                restart=None if harness is None else harness.restart,
            )
            if violations:
                headline = f"{name} breaks one-answer/{check} ({WHAT[check]})"
                raise PropertyFailure(format_generated(headline, [v.detail for v in violations], scenario, scenario.dumps()))

        run_generated(request, rmq_conformance, rmq_groups.scenarios(adversarial=True), one_group)
        return

    spec = rmq_conformance.portable_spec()
    if spec is None:
        pytest.skip(
            "the strategy comes from a pytest hook and cannot be imported by another process; "
            "name it as module:attribute or an entry point to compare processes"
        )
    if rmq_conformance.custom_build():
        pytest.skip("a pytest_rmq_build_strategy hook builds the strategy, which another process cannot do")
    run = WorkerRun(spec, settings.version, settings.charset, settings.timeout, settings.strict_order)
    profile = PROFILES[settings.profile]
    problems = []

    def batch(groups):
        violations, trouble = across_processes(check, run, groups)
        problems.extend(trouble)
        if violations:
            scenario = groups[violations[0][0]]
            headline = f"{name} breaks one-answer/{check} ({WHAT[check]})"
            raise PropertyFailure(format_generated(headline, [v.detail for _, v in violations], scenario, scenario.dumps()))

    size = profile["batch"]
    examples = st.lists(rmq_groups.scenarios(adversarial=True), min_size=size, max_size=size)
    run_generated(request, rmq_conformance, examples, batch, max_examples=profile["batches"], shrink=False)
    if problems:
        pytest.fail("the worker processes could not answer: " + "; ".join(dict.fromkeys(problems)), pytrace=False)
