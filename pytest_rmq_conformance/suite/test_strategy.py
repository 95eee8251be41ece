"""The strategy under test can be found, built and named."""

import pytest

pytestmark = pytest.mark.rmq_check("strategy")


def test_strategy_loads(rmq_conformance):
    """Fails once, with the reason, when the spec cannot be imported or built;
    every other test of the suite is then skipped."""
    if rmq_conformance.load_error is not None:
        pytest.fail(rmq_conformance.load_error, pytrace=False)
