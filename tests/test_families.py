"""A strategy family is one record: a toy family registered in one place runs through the
golden vectors, the generated checks and the rebalance checks (the sweep: tests/test_sweep.py)."""

from pathlib import Path

import pytest

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.kinds import ports, reference_strategy

pytestmark = pytest.mark.once

TESTS = Path(__file__).parent
TOY_GOLDEN = TESTS / "data" / "toy-golden"


@pytest.fixture
def toy(pytester, toy_registered):
    """A project where ``toy_family`` (which registers ROTATE) imports and its golden directory is added."""
    pytester.makepyfile(toy_family=(TESTS / "toy_family.py").read_text())
    pytester.makeconftest(
        "from pathlib import Path\n\n"
        f"def pytest_rmq_golden_dirs(config):\n    return [Path({str(TOY_GOLDEN)!r})]\n"
    )
    pytester.syspathinsert()
    return pytester


def test_the_whole_suite_runs_against_a_registered_family(toy):
    result = toy.runpytest(
        "-p", "no:cacheprovider", "--rmq-strategy=toy_family:Rotate", "--rmq-seed=3", "--rmq-examples=10", "-rs"
    )
    outcomes = result.parseoutcomes()
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "rmq-conformance: strategy toy_family:Rotate *name ROTATE",
            "rmq-conformance: invariants: balance, coverage, no-double-assignment, one-answer, only-from-mq-all (Java's ROTATE at 5.5.0)",
            "rmq-conformance: golden vectors: 3 ROTATE cases",
        ]
    )
    # golden 3, invariants 5, one-answer 7, rebalance 5, reference 1; skipped: only properties it does not
    # claim; deselected: the producer's and the gRPC balancers' invariants
    assert outcomes == {"passed": 21, "skipped": 3, "deselected": 22}
    assert result.stdout.str().count("ROTATE does not claim") == 3


def test_its_wrong_twin_is_rejected_by_the_golden_vectors(toy):
    result = toy.runpytest("-p", "no:cacheprovider", "--rmq-strategy=toy_family:RotateIgnoringOffset", "--rmq-checks=golden")
    assert result.ret == 1
    assert result.parseoutcomes() == {"passed": 3 - 1, "failed": 1}
    result.stdout.fnmatch_lines(["*toy-ROTATE-0001-offset-one at RocketMQ 5.5.0: *"])


def test_and_by_the_differential_with_its_reference(toy):
    result = toy.runpytest(
        "-p", "no:cacheprovider", "--rmq-strategy=toy_family:RotateIgnoringOffset", "--rmq-checks=reference", "--rmq-seed=1"
    )
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*ROTATE differs from the reference port of RocketMQ 5.5.0 on a generated group*"])


def test_a_registered_family_is_a_reference_name(monkeypatch, toy_registered):
    monkeypatch.syspath_prepend(str(TESTS))
    import toy_family

    assert kinds.get("ROTATE").port is toy_family.Rotate
    assert ports()["ROTATE"] is toy_family.Rotate
    assert reference_strategy("ROTATE", {"offset": 1}).offset == 1
    assert kinds.family_of("ROTATE").name == "ROTATE" and kinds.family_of("ROTATE-X") is None


@pytest.mark.parametrize("family", ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "MACHINE_ROOM", "MACHINE_ROOM_NEARBY", "CONFIG"])
def test_params_and_keywords_invert_each_other(family):
    """An instance built from a family's keywords describes itself with the params it was built from."""
    record = kinds.get(family)
    strategy = reference_strategy(family, record.probe)
    described = record.params_of(strategy)
    if family == "MACHINE_ROOM_NEARBY":  # a resolver object has no golden description
        assert described is None
    else:
        assert described == record.normalized(record.probe, "5.3.3")


def test_an_unknown_family_names_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown strategy 'NOPE'; expected one of .*'AVG'"):
        kinds.get("NOPE")
