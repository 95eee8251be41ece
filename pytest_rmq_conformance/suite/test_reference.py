"""Differential: on generated inputs, adversarial ones included, and on the fixed examples every
seed asks (known ring-key collisions, edge configurations), the answers of Java's reference port.
The kind of strategy under test draws the inputs and compares the answers."""

import pytest

from pytest_rmq_conformance.engine.golden.modelled import modelled_release, not_modelled
from pytest_rmq_conformance.plugin.verdicts import run_generated

pytestmark = pytest.mark.rmq_check("reference")


def test_matches_reference(rmq_conformance, request):
    if rmq_conformance.load_error is not None:
        pytest.skip(f"the strategy could not be loaded: {rmq_conformance.load_error}")
    if rmq_conformance.family is None:
        pytest.skip(f"{rmq_conformance.name!r} has no Java twin: there is no reference to compare with")
    if rmq_conformance.is_reference:
        pytest.skip("the strategy under test is the reference port itself")
    settings = rmq_conformance.settings
    if modelled_release(rmq_conformance.family, settings.version, settings.charset) is None:
        pytest.skip(f"no reference port to compare with: {not_modelled(rmq_conformance.family, settings.version)}")
    check = rmq_conformance.kind.generated(rmq_conformance)
    if isinstance(check, str):
        pytest.skip(check)
    run_generated(request, rmq_conformance, check.examples, check.body, explicit=check.explicit)
