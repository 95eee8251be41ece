"""Producer selectors through the suite: the domain of ``total`` (spec §11 invariant 11), a case
classed by its worst call, and a failure that shows the argument Java hashed."""

import shlex
import shutil
import sys
from collections import Counter
from functools import cache, partial
from pathlib import Path

import producer_selector_twins
import pytest
from producer_selector_twins import TWINS, FirstQueue
from test_harness_examples import _missing
from test_producer_readme import block_after

from pytest_rmq_conformance.engine.divergence import ERROR_BEHAVIOUR, FAULT, WRONG_QUEUES
from pytest_rmq_conformance.engine.golden.data import load_golden
from pytest_rmq_conformance.engine.resources import golden_dir
from pytest_rmq_conformance.kinds.producer.cases import SelectorCase
from pytest_rmq_conformance.kinds.producer.failures import shown_argument
from pytest_rmq_conformance.kinds.producer.invariants import selector_violations
from pytest_rmq_conformance.kinds.producer.trace import replay_selector

ROOT = Path(__file__).resolve().parent.parent
#: the seeds of 1..8 whose drawn selector calls had a null argument first (issue 34, item 1)
NULL_SEEDS = (2, 3, 6, 8)


@cache
def golden():
    return load_golden(golden_dir() / "producer", validate=False)  # the shipped data is validated in CI


def _cases(family, release):
    return [case for case in golden().by_strategy(family) if release in case.runs]


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
                                "--rmq-reference-version=5.3.3",  # a release the example implements
                                "--rmq-checks=invariants", "-k", "SELECTOR_HASH-total")
    assert result.ret == 0, result.stdout.str()
    assert result.parseoutcomes()["passed"] == 1


@pytest.mark.cross_product
@pytest.mark.parametrize("name", list(TWINS))
def test_each_selector_twin_passes_or_fails_as_its_rule_says(name):
    rule, family, release, divergence_class = TWINS[name]
    twin = getattr(producer_selector_twins, name)
    replays = (replay_selector(partial(twin, version=release, **case.params), case, release) for case in _cases(family, release))
    found = [m for m in replays if m is not None]
    if divergence_class is None:
        assert [str(m) for m in found] == [], rule
    else:
        assert found, f"{name} passed every {family} case of {release}: {rule}"
        assert set(Counter(m.divergence_class for m in found)) == {divergence_class}, rule


def _worst_by_hand(case, release):
    """``FirstQueue``'s class on ``case``, read off Java's answers: a call Java answers with a
    queue other than the first sends elsewhere; one where Java throws gets null instead."""
    results = case.answers_for(release).answers
    if any(not isinstance(java, dict) and java != 0 for java in results):
        return WRONG_QUEUES
    return ERROR_BEHAVIOUR if any(isinstance(java, dict) for java in results) else None


def test_a_selector_case_is_classed_by_its_worst_call_not_its_first():
    cases = _cases("SELECTOR_HASH", "4.9.8")
    found = {case.id: replay_selector(FirstQueue, case, "4.9.8") for case in cases}
    assert {i: m.divergence_class for i, m in found.items() if m} == {c.id: _worst_by_hand(c, "4.9.8") for c in cases if _worst_by_hand(c, "4.9.8")}
    # issue 34: of the 46 cases where Java throws for the empty list, 44 send elsewhere on a later call
    throwing = [case.id for case in cases if any(isinstance(java, dict) for java in case.answers_for("4.9.8").answers)]
    assert len(throwing) == 46
    assert Counter(found[i].divergence_class for i in throwing) == {WRONG_QUEUES: 44, ERROR_BEHAVIOUR: 2}
    # the call that decided the class is named, and the first call is still listed
    hashed = found["pub-SELECTOR_HASH-0455-hash-code"]
    assert (hashed.index, hashed.problem) == (1, "n=4: queue 0, Java's queue 1")
    assert hashed.calls[0] == (0, ERROR_BEHAVIOUR, "n=0: Java threw ArithmeticException('/ by zero'); select did not raise")
    assert [call for call, _, _ in hashed.calls] == list(range(8))


class _ExitsAtCall(FirstQueue):
    """Answers like ``FirstQueue`` and calls ``sys.exit`` at call ``stop``."""

    def __init__(self, stop):
        super().__init__()
        self.stop, self.calls = stop, 0

    def select(self, mqs, msg, arg):
        self.calls += 1
        if self.calls > self.stop:
            sys.exit(3)
        return super().select(mqs, msg, arg)


def test_a_selector_that_stops_answering_is_still_judged_on_the_calls_before():
    case = golden().case("pub-SELECTOR_HASH-0455-hash-code")  # Java: ArithmeticException, then queue 1 seven times
    late = replay_selector(lambda: _ExitsAtCall(3), case, "4.9.8")
    assert (late.index, late.divergence_class) == (1, WRONG_QUEUES)
    assert [(call, cls) for call, cls, _ in late.calls] == [(0, ERROR_BEHAVIOUR), (1, WRONG_QUEUES), (2, WRONG_QUEUES), (3, FAULT)]
    early = replay_selector(lambda: _ExitsAtCall(0), case, "4.9.8")
    assert (early.index, early.divergence_class) == (0, FAULT) and "sys.exit(3)" in early.problem


def test_a_selector_argument_is_shown_as_java_hashed_it():
    assert shown_argument({"type": "string", "value": "order-1"}, -1207111310) == (
        "String 'order-1' (7 UTF-16 code units), Java's hashCode() = -1207111310")
    assert shown_argument({"type": "string", "value": "\U0001F600x"}, 54959989) == (
        "String '\U0001F600x' (3 UTF-16 code units: d83d de00 0078), Java's hashCode() = 54959989")
    # invisible characters escaped, as for names; the empty string quoted
    assert shown_argument({"type": "string", "value": "a\u200bb"}, None).startswith("String 'a\\u200bb' (3 UTF-16 code units: 0061 200b 0062), ")
    assert shown_argument({"type": "string", "value": ""}, 0) == "String '' (0 UTF-16 code units), Java's hashCode() = 0"
    # no hash in the vector (a drawn case): the reference port's, said so
    assert shown_argument({"type": "long", "value": 2**32}, None) == "Long 4294967296, the reference port's hashCode() = 1"
    assert shown_argument({"type": "string", "value": "GydZG_"}, -2**31).endswith(
        "Java's hashCode() = -2147483648 (Integer.MIN_VALUE: Math.abs leaves it negative)")
    assert shown_argument({"type": "hashCode", "value": 5}, 5) == "an object whose hashCode() returns 5"
    assert shown_argument({"type": "null"}, None) == "null (Java's arg.hashCode() throws NullPointerException)"


def test_a_selector_failure_shows_its_argument_java_s_hash_and_the_call_that_decided(pytester):
    result = pytester.runpytest("-p", "no:cacheprovider", "--rmq-checks=golden", "--rmq-strategy=producer_selector_twins:FirstQueue",
                                "--rmq-reference-version=4.9.8", "--rmq-case=pub-SELECTOR_HASH-0455-*", "--rmq-case=pub-SELECTOR_HASH-0003-*")
    assert result.ret == 1
    result.stdout.fnmatch_lines([
        "*pub-SELECTOR_HASH-0003-string (SELECTOR_HASH, RocketMQ 4.9.8): worst divergence at call 1 (wrong queues): n=7: queue 0, Java's queue 6",
        "    argument: String 'order-1' (7 UTF-16 code units), Java's hashCode() = -1207111310",
        "    5 of 6 calls differ (the case takes the worst):",
        "    > call 1: n=7: queue 0, Java's queue 6 [wrong queues]",
        "      call 2: n=8: queue 0, Java's queue 6 [wrong queues]",
    ])
    result.stdout.fnmatch_lines([
        "*pub-SELECTOR_HASH-0455-hash-code (SELECTOR_HASH, RocketMQ 4.9.8): worst divergence at call 1 (wrong queues): n=4: queue 0, Java's queue 1",
        "    argument: an object whose hashCode() returns 1",
        "    8 of 8 calls differ (the case takes the worst):",
        "      call 0: n=0: Java threw ArithmeticException('/ by zero'); select did not raise [error behaviour only]",
        "    > call 1: n=4: queue 0, Java's queue 1 [wrong queues]",
    ])
    result.stdout.fnmatch_lines(["by impact: 2 wrong queues"])
    block = block_after("and lists every call that differs:", "console exit=1").splitlines()
    shown = [line for line in block if line.startswith(("pub-SELECTOR_HASH-0455", "    "))]
    assert len(shown) == 6 and all(line in result.outlines for line in shown), shown
