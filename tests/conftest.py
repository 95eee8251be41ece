import pytest

from pytest_rmq_conformance.golden import load_golden


@pytest.fixture(scope="session")
def golden():
    """The shipped golden set, validated once per test session."""
    return load_golden()
