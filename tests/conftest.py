import pytest


@pytest.fixture(scope="session")
def golden():
    """The shipped golden set, validated once per test session."""
    from pytest_rmq_conformance.golden import load_golden

    return load_golden()
