from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

MINIATURES = Path(__file__).with_name("miniatures.py")
BREAKERS = Path(__file__).with_name("breakers.py")


@pytest.fixture(scope="session")
def golden():
    """The shipped golden set, validated against its schema once per test session."""
    from pytest_rmq_conformance.engine.golden import load_golden

    return load_golden(validate=True)


@pytest.fixture
def suite(pytester):
    """A pytester directory where ``miniatures`` (the deliberately wrong strategies) can be imported."""
    pytester.makepyfile(miniatures=MINIATURES.read_text(), breakers=BREAKERS.read_text())
    pytester.syspathinsert()
    return pytester
