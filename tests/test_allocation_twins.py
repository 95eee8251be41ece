"""What Java can observe of an allocation answer, held by twins of the AVG port
(``allocation_twins``): a twin that differs only where Java cannot see passes the golden vectors
and the generated differential; one that differs where Java can fails, with the right class."""

import json
from pathlib import Path

import pytest
from allocation_twins import OBSERVED, UNOBSERVED

pytestmark = pytest.mark.once  # Python-neutral: set comparison of queues

TWINS = Path(__file__).with_name("allocation_twins.py")


@pytest.fixture
def twins(pytester):
    pytester.makepyfile(allocation_twins=TWINS.read_text())
    pytester.syspathinsert()
    return pytester


@pytest.mark.parametrize("name", UNOBSERVED)
def test_a_twin_differing_where_java_cannot_see_passes(twins, name):
    result = twins.runpytest(
        "-p", "no:cacheprovider", f"--rmq-strategy=allocation_twins:{name}", "--rmq-checks=golden,reference,invariants", "--rmq-seed=7"
    )
    assert result.ret == 0
    assert result.parseoutcomes()["passed"] > 400


@pytest.mark.parametrize("name", sorted(OBSERVED))
def test_a_twin_differing_where_java_sees_fails_with_its_class(twins, name):
    result = twins.runpytest(
        "-p", "no:cacheprovider", f"--rmq-strategy=allocation_twins:{name}", "--rmq-checks=golden", "--rmq-results=out.jsonl", "--tb=no"
    )
    lines = [json.loads(line) for line in (twins.path / "out.jsonl").read_text().splitlines()]
    failed = [line for line in lines if line["verdict"] == "failed"]
    assert failed, f"{name} passed every golden case"
    assert {line["kind"] for line in failed} == {OBSERVED[name]}, failed[:3]
    assert result.ret == 1
