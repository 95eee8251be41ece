from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

MINIATURES = Path(__file__).with_name("miniatures.py")
BREAKERS = Path(__file__).with_name("breakers.py")


@pytest.fixture(scope="session")
def golden():
    """The shipped golden set, validated once per test session."""
    from pytest_rmq_conformance.golden import load_golden

    return load_golden()


@pytest.fixture
def suite(pytester):
    """A pytester directory where ``miniatures`` (the deliberately wrong strategies) can be imported."""
    pytester.makepyfile(miniatures=MINIATURES.read_text(), breakers=BREAKERS.read_text())
    pytester.syspathinsert()
    return pytester
