"""Producer selectors through the suite: the domain of ``total`` (spec §11 invariant 11), a case
classed by its worst call, and a failure that shows the argument Java hashed."""

import shlex
import shutil
from pathlib import Path

import pytest
from test_harness_examples import _missing
from test_producer_readme import block_after

from pytest_rmq_conformance.kinds.producer.cases import SelectorCase
from pytest_rmq_conformance.kinds.producer.invariants import selector_violations

ROOT = Path(__file__).resolve().parent.parent
#: the seeds of 1..8 whose drawn selector calls had a null argument first (issue 34, item 1)
NULL_SEEDS = (2, 3, 6, 8)


def _calls(arg, *counts):
    return SelectorCase(id="generated", strategy="SELECTOR_HASH", params={}, category="generated", flags=(), expect=(),
                        queue_counts=counts, arg=arg)


def test_total_leaves_a_null_argument_and_the_empty_list_outside_its_domain():
    """Java throws for both (NullPointerException, ArithmeticException): a selector may too."""
    npe = TypeError("cannot invoke hashCode() on null")
    assert selector_violations(_calls({"type": "null"}, 1, 7), [npe, npe], frozenset({"total"})) == []
    assert selector_violations(_calls({"type": "string", "value": "a"}, 0), [None], frozenset({"total"})) == []
    assert selector_violations(_calls({"type": "string", "value": "a"}, 0), [ZeroDivisionError("/ by zero")], frozenset({"total"})) == []
    # a non-null argument and a list of one or more still need a queue of the list
    broken = selector_violations(_calls({"type": "string", "value": "a"}, 0, 3, 5), [None, npe, None], frozenset({"total"}))
    assert [(v.index, v.problem) for v in broken] == [
        (1, "n=3: raised TypeError: cannot invoke hashCode() on null"),
        (2, "n=5: returned a queue that is not an element of the list"),
    ]


@pytest.mark.cross_product
@pytest.mark.parametrize("seed", NULL_SEEDS)
def test_the_built_in_hash_selector_holds_total_on_the_seeds_that_drew_a_null(pytester, seed):
    result = pytester.runpytest("-p", "no:cacheprovider", "--rmq-strategy=SELECTOR_HASH", f"--rmq-seed={seed}",
                                "--rmq-checks=invariants", "-k", "total")
    assert result.ret == 0, result.stdout.str()
    assert result.parseoutcomes() == {"passed": 1, "deselected": 29}


@pytest.mark.once
def test_the_readme_selector_holds_its_properties_and_the_reference_on_seeds_1_to_8(pytester):
    pytester.makepyfile(myselector=block_after("A selector of your own, in `myselector.py`:", "python"))
    pytester.syspathinsert()
    for seed in range(1, 9):
        result = pytester.runpytest("-p", "no:cacheprovider", "--rmq-strategy=myselector:HashSelector", f"--rmq-seed={seed}",
                                    "--rmq-checks=invariants,reference")
        assert result.ret == 0, (seed, result.stdout.str())
        assert result.parseoutcomes()["passed"] == 5, seed  # the differential, total, same-key-same-queue, spread, one-answer


@pytest.mark.examples
@pytest.mark.parametrize("seed", NULL_SEEDS)
def test_the_node_example_harness_holds_total_on_the_seeds_that_drew_a_null(pytester, seed):
    node = shutil.which("node")
    if node is None:
        _missing("node")
    spec = "exec:" + shlex.join([node, str(ROOT / "examples" / "producer-harness-node" / "harness.js")])
    result = pytester.runpytest("-p", "no:cacheprovider", f"--rmq-strategy={spec}", f"--rmq-seed={seed}",
                                "--rmq-checks=invariants", "-k", "SELECTOR_HASH-total")
    assert result.ret == 0, result.stdout.str()
    assert result.parseoutcomes()["passed"] == 1
