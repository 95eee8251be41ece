"""Differential: on generated groups, adversarial ones included, and on every known ring-key
collision, the answers of Java's reference port."""

import pytest

from pytest_rmq_conformance.engine.differential import differences
from pytest_rmq_conformance.engine.generation import PropertyFailure
from pytest_rmq_conformance.engine.reports import format_generated, format_mismatch
from pytest_rmq_conformance.plugin.verdicts import run_generated

pytestmark = pytest.mark.rmq_check("reference")


def test_matches_reference(rmq_conformance, rmq_groups, request):
    reason = rmq_groups.skip_reason()
    if reason is not None:
        pytest.skip(reason)
    if rmq_conformance.family is None:
        pytest.skip(f"{rmq_conformance.name!r} has no Java twin: there is no reference to compare with")
    if rmq_conformance.is_reference:
        pytest.skip("the strategy under test is the reference port itself")
    settings = rmq_conformance.settings

    def body(scenario):
        mismatches = differences(
            rmq_conformance.build_for,
            rmq_conformance.reference_for,
            scenario,
            timeout=settings.timeout,
            strict_order=settings.strict_order,
        )
        if mismatches:
            details = [line for m in mismatches for line in format_mismatch(m)]
            headline = (
                f"{rmq_conformance.name} differs from the reference port of RocketMQ {settings.version} "
                f"on a generated group: {mismatches[0].problem}"
            )
            raise PropertyFailure(format_generated(headline, details, scenario, scenario.dumps()))

    run_generated(request, rmq_conformance, rmq_groups.scenarios(adversarial=True), body, explicit=rmq_groups.explicit())
