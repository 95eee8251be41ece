"""A property never blames the user for its own mistake: a draw the reference port fails is left
out of a generated check, reported as a fault of the suite (the property, the draw, the seed),
and never fails the user's test; the property still judges the other draws."""

import pytest

Q = ["-p", "no:cacheprovider", "-W", "default", "--rmq-shrink-time=2", "--rmq-examples=40"]

#: a deliberately wrong property, held as a user's test would hold one: Java's hash selector
#: answers the second half of a list as often as the first
WRONG_PROPERTY = '''
import json

from pytest_rmq_conformance.engine.generated.domain import reference_body
from pytest_rmq_conformance.engine.generated.generation import PropertyFailure
from pytest_rmq_conformance.engine.generated.failures import format_generated
from pytest_rmq_conformance.kinds.producer.draws import selector_cases
from pytest_rmq_conformance.kinds.producer.generated import play
from pytest_rmq_conformance.plugin.verdicts import run_generated


def first_half(subject):
    """first-half: every answer lies in the first half of its list (wrong)."""
    def body(case):
        _, answers, _ = play(subject, case)
        late = [f"n={n}: queue {a}" for n, a in zip(case.queue_counts, answers) if isinstance(a, int) and a >= (n + 1) // 2]
        if late:
            data = json.dumps({"arg": case.arg, "queueCounts": list(case.queue_counts)})
            raise PropertyFailure(format_generated(f"{subject.name} breaks first-half", late, str(case.arg), data, noun="calls"))
    return body


def test_first_half(rmq_conformance, request):
    run_generated(request, rmq_conformance, selector_cases("SELECTOR_HASH", adversarial=False), first_half(rmq_conformance),
                  reference=reference_body(rmq_conformance, first_half))
'''


@pytest.fixture
def wrong_property(pytester):
    pytester.makepyfile(test_wrong_property=WRONG_PROPERTY)
    return pytester


@pytest.mark.parametrize("spec", ["SELECTOR_HASH", "producer_breakers:PythonModulo"])
def test_a_draw_the_reference_port_fails_is_a_suite_fault_and_passes(wrong_property, spec):
    """Java's port fails first-half on most draws: its own run and a twin that answers as Java
    where Java holds the property (PythonModulo differs on negative hashes only) both pass, and
    the warnings name the property, the draw as data and the seed."""
    result = wrong_property.runpytest(*Q, f"--rmq-strategy={spec}", "--rmq-seed=3", "-k", "test_first_half", "test_wrong_property.py")
    if spec == "SELECTOR_HASH":
        assert result.ret == 0, result.stdout.str()
        result.assert_outcomes(passed=1, warnings=result.parseoutcomes()["warnings"])
    result.stdout.fnmatch_lines([
        "*RmqSuiteFaultWarning: test_first_half: suite fault: Java's SELECTOR_HASH at 5.5.0 (the reference port) fails this "
        "check itself on a draw of seed 3: the draw lies outside the property's domain, or the property is wrong*",
        "*the reference port: SELECTOR_HASH breaks first-half",
        "*calls as data: {\"arg\": *",
    ])
    result.stdout.fnmatch_lines(["*suite fault(s): the reference port fails * draw(s) of test_first_half (*): left out, not held against the strategy*"])


def test_the_property_still_judges_the_draws_the_reference_port_holds(wrong_property):
    """PythonModulo answers n - |h| mod n where Java answers |h| mod n: on a draw whose every
    answer Java puts in the first half, PythonModulo's land in the second, and that fails it."""
    result = wrong_property.runpytest(*Q, "--rmq-strategy=producer_breakers:PythonModulo", "--rmq-seed=3", "-k", "test_first_half", "test_wrong_property.py")
    assert result.ret == 1, result.stdout.str()
    result.stdout.fnmatch_lines(["*SELECTOR_HASH breaks first-half", "*n=*: queue *", "*suite fault(s): the reference port fails *"])


def test_every_draw_left_out_skips_the_check(pytester):
    """A property the reference port fails on every draw checks nothing: skipped, saying why."""
    pytester.makepyfile(test_never=WRONG_PROPERTY.replace("isinstance(a, int) and a >= (n + 1) // 2", "True"))
    result = pytester.runpytest(*Q, "--rmq-strategy=SELECTOR_HASH", "--rmq-seed=1", "--rmq-examples=3", "-k", "test_first_half", "-rs", "test_never.py")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(skipped=1, warnings=result.parseoutcomes()["warnings"])
    result.stdout.fnmatch_lines(["*suite fault: the reference port fails every one of the * draw(s); nothing was checked*"])


def test_the_issues_false_alarm_on_the_built_in_hash_selector_does_not_fail(pytester):
    """Issue 34 item 1: the built-in SELECTOR_HASH broke its own ``total`` on seed 2 (whether or
    not the property is corrected, the built-in passes)."""
    result = pytester.runpytest("-p", "no:cacheprovider", "--rmq-checks=invariants", "--rmq-strategy=SELECTOR_HASH", "--rmq-seed=2",
                                "-k", "test_selection_invariant and total")
    assert result.ret == 0, result.stdout.str()
    assert result.parseoutcomes()["passed"] == 1


#: the same for consumer allocation: a wrong property Java's AVG breaks whenever the members
#: outnumber the queues
WRONG_ALLOCATION_PROPERTY = '''
from pytest_rmq_conformance.engine.generated.domain import reference_body
from pytest_rmq_conformance.engine.generated.generation import PropertyFailure
from pytest_rmq_conformance.engine.generated.failures import format_generated
from pytest_rmq_conformance.kinds.allocation.calls import assign
from pytest_rmq_conformance.plugin.verdicts import run_generated


def everyone_busy(subject):
    """everyone-busy: every member gets a queue (wrong)."""
    def body(scenario):
        shares, _ = assign(subject.build_for, scenario, subject.settings.timeout)
        idle = [f"{cid} holds no queue" for cid in dict.fromkeys(scenario.cid_all) if not shares.get(cid)]
        if idle:
            raise PropertyFailure(format_generated(f"{subject.name} breaks everyone-busy", idle, "a group", scenario.dumps()))
    return body


def test_everyone_busy(rmq_conformance, rmq_groups, request):
    run_generated(request, rmq_conformance, rmq_groups.scenarios(), everyone_busy(rmq_conformance),
                  reference=reference_body(rmq_conformance, everyone_busy))
'''


def test_an_allocation_draw_the_reference_port_fails_is_a_suite_fault_too(pytester):
    """The safety net is the engine's, for every kind: a consumer twin of AVG (its own class, not
    the port) passes a property Java's AVG breaks on groups with more members than queues."""
    pytester.makepyfile(test_wrong_allocation=WRONG_ALLOCATION_PROPERTY, avg_twin=(
        "from pytest_rmq_conformance.ports.allocation import AllocateMessageQueueAveragely\n\n\n"
        "class Twin(AllocateMessageQueueAveragely):\n    pass\n"))
    pytester.syspathinsert()
    result = pytester.runpytest(*Q, "--rmq-strategy=avg_twin:Twin", "--rmq-seed=1", "-k", "test_everyone_busy", "test_wrong_allocation.py")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines([
        "*RmqSuiteFaultWarning: test_everyone_busy: suite fault: Java's AVG at 5.5.0 (the reference port) fails this check itself*",
        "*the reference port: AVG breaks everyone-busy",
        "*holds no queue*",
        "*group as data: {*",
    ])
