"""Producer queue selection through the suite: every port exact on every vector, every breaker rejected."""

import sys
from collections import Counter
from functools import cache
from pathlib import Path

import producer_breakers
import pytest
from producer_breakers import BREAKERS

from pytest_rmq_conformance.engine.golden.data import load_golden
from pytest_rmq_conformance.engine.kinds import reference_strategy
from pytest_rmq_conformance.engine.resources import golden_dir
from pytest_rmq_conformance.kinds.producer.cases import StepAnswers, TraceCase
from pytest_rmq_conformance.kinds.producer.trace import replay_selector, replay_trace
from pytest_rmq_conformance.plugin.terminal import GROUP_SHOWN, MANY
from pytest_rmq_conformance.releases import RELEASES

Q = ["-p", "no:cacheprovider", "--rmq-checks=golden"]


@cache
def validated():
    """The shipped producer vectors, each line checked against its schema (read when a test asks)."""
    return load_golden(golden_dir() / "producer")

FAMILIES = ("FAULT_STRATEGY", "SELECTOR_HASH", "SELECTOR_RANDOM")


def replay(case, release, make):
    """The first divergence of ``make(params, clock)``'s strategy on ``case`` at ``release``."""
    if isinstance(case, TraceCase):
        return replay_trace(lambda clock: make({**case.params, "clock": clock}), case, release)
    return replay_selector(lambda: make(case.params), case, release)


@pytest.mark.once
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("release", RELEASES)
def test_every_port_reproduces_every_vector_of_its_release(family, release):
    cases = validated().by_strategy(family)
    mismatches = [replay(case, release, lambda params: reference_strategy(family, params, release)) for case in cases]
    assert len(cases) > 100
    assert [str(m) for m in mismatches if m is not None] == []


@pytest.mark.once
def test_the_shipped_traces_read_as_the_plugin_reads_them_hold_the_same_answers():
    """The plugin reads the shipped lines unvalidated, each trace's answers kept as text until
    a run replays them; they are the answers read in full."""
    lazy = load_golden(golden_dir() / "producer", validate=False)
    assert lazy is not validated() and lazy.cases == validated().cases
    traces = [case for case in lazy.cases if isinstance(case, TraceCase)]
    assert traces and all(isinstance(group.answers, StepAnswers) for case in traces for group in case.expect)
    first, full = traces[0].expect[0], validated().case(traces[0].id).expect[0]
    assert len(first.answers) == len(full.answers) and first.answers[-1] == full.answers[-1]
    assert list(first.answers) == list(full.answers) and first.answers == tuple(full.answers) and tuple(full.answers) == first.answers


@pytest.mark.once
@pytest.mark.parametrize("name", sorted(BREAKERS))
def test_every_breaker_is_rejected_by_the_check_that_should_catch_it(name):
    family, release, divergence_class = BREAKERS[name]
    breaker = getattr(producer_breakers, name)
    made = (lambda params: breaker(clock=params["clock"], version=release)) if family == "FAULT_STRATEGY" else (lambda params: breaker(version=release))
    found = [m for m in (replay(case, release, made) for case in validated().by_strategy(family)) if m is not None]
    assert found, f"{name} passed every {family} vector of {release}"
    assert divergence_class in Counter(m.divergence_class for m in found)


@pytest.mark.cross_product
@pytest.mark.parametrize("family, release", [("FAULT_STRATEGY", "4.9.8"), ("FAULT_STRATEGY", "4.7.1"), ("FAULT_STRATEGY", "5.3.3"),
                                             ("SELECTOR_HASH", "4.7.1"), ("SELECTOR_RANDOM", "5.3.3")])
def test_the_built_in_names_pass_through_the_plugin(pytester, family, release):
    result = pytester.runpytest(*Q, f"--rmq-strategy={family}", f"--rmq-reference-version={release}")
    assert result.ret == 0, result.stdout.str()
    assert result.parseoutcomes()["passed"] == len(validated().by_strategy(family))


@pytest.mark.once
def test_a_users_class_is_judged_at_the_release_asked(pytester):
    """The port's class as a user's own strategy: built with ``clock=`` only, it is 5.3.3's."""
    ok = pytester.runpytest(*Q, "--rmq-strategy=pytest_rmq_conformance.ports.producer:MQFaultStrategy")
    assert ok.ret == 0, ok.stdout.str()
    wrong = pytester.runpytest(*Q, "--rmq-strategy=pytest_rmq_conformance.ports.producer:MQFaultStrategy", "--rmq-reference-version=4.7.1")
    assert wrong.ret == 1
    assert "counter-drift" in wrong.stdout.str() or "wrong queues" in wrong.stdout.str()


def test_a_trace_failure_shows_the_state_up_to_the_first_diverging_step(pytester):
    result = pytester.runpytest(*Q, "--rmq-strategy=producer_breakers:CounterTooFar", "-k", "pub-FAULT_STRATEGY-0001-")
    assert result.ret == 1
    result.stdout.fnmatch_lines([
        "*pub-FAULT_STRATEGY-0001-spec-example (FAULT_STRATEGY, RocketMQ 5.5.0): first divergence at step 0: queue A/0, Java's C/1*",
        "*step*clock*counter*list*fault table*op*Java*strategy",
        "*0*0*10*A/0-1,B/0-1,C/0-1*select(-)*C/1 @5 idx=11*A/0 @0 idx=12",
        "*rerun: pytest*--rmq-strategy=producer_breakers:CounterTooFar*pub-FAULT_STRATEGY-0001-spec-example*",
    ])


def test_one_cause_is_shown_in_full_only_as_often_as_promised_whatever_brokers_it_names(pytester):
    """Issue 34 item 15: a penalty that ends a millisecond early sends to another broker in each case it
    fails; its reports are one cause, shown in full GROUP_SHOWN times (it was a group, and a full report,
    per pair of brokers)."""
    result = pytester.runpytest(*Q, "--rmq-strategy=producer_breakers:PenaltyOffByOne", "--rmq-case=pub-FAULT_STRATEGY-0[34]*")
    assert result.ret == 1
    failed = result.parseoutcomes()["failed"]
    assert failed > MANY
    assert result.stdout.str().count("\n_____") == GROUP_SHOWN
    result.stdout.fnmatch_lines([
        f"{failed:5d} x queue …, Java's …",
        f"        e.g. test_golden[[]pub-FAULT_STRATEGY-*[]], *, *, and {failed - GROUP_SHOWN} more (not shown; *",
        f"{failed} failing case(s) in 1 group(s)",
    ])


BAD_HARNESS = r'''
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    if request["cmd"] == "hello":
        answer = {"protocol": 1, "implementation": {"name": "bad", "language": "Python", "version": "1"},
                  "strategies": ["FAULT_STRATEGY", "SELECTOR_HASH"], "sort": False}
    elif request["cmd"] == "bye":
        break
    elif request["cmd"] == "trace":
        answer = {"id": request["id"], "publishList": [], "outcomes": [None]}
    else:
        answer = {"id": request["id"], "answers": [{"index": "zero"}] * len(request["queueCounts"])}
    print(json.dumps(answer), flush=True)
'''


@pytest.mark.cross_product
@pytest.mark.parametrize("family", ["SELECTOR_HASH", "FAULT_STRATEGY"])  # the first runs on every Python
def test_a_harness_is_asked_a_whole_case_per_request_and_a_bad_answer_fails_that_case(pytester, family):
    served = pytester.runpytest(*Q, f"--rmq-strategy=exec:{sys.executable} -m pytest_rmq_conformance.harness {family}",
                                "--rmq-reference-version=4.7.1")
    assert served.ret == 0, served.stdout.str()
    assert served.parseoutcomes()["passed"] == len(validated().by_strategy(family))
    pytester.makepyfile(bad=BAD_HARNESS)
    case = validated().by_strategy(family)[1].id
    bad = pytester.runpytest(*Q, f"--rmq-strategy=exec:{sys.executable} bad.py", f"--rmq-case={case}")
    assert bad.ret == 1
    said = "gave 1 outcomes for" if family == "FAULT_STRATEGY" else "answered select with what schemas/protocol-select-response.schema.json refuses"
    bad.stdout.fnmatch_lines([f"*{said}*"])


@pytest.mark.once
def test_a_wrong_selector_behind_the_isolating_harness_is_rejected(pytester):
    pytester.makepyfile(producer_breakers=Path(producer_breakers.__file__).read_text())  # the harness imports it from here
    result = pytester.runpytest(*Q, "--rmq-strategy=producer_breakers:PythonModulo", "--rmq-isolate")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*by impact: * wrong queues*"])


GARBLED_HARNESS = BAD_HARNESS.replace(
    '"outcomes": [None]', '"outcomes": [{"queue": ["A", 1.0], "listIndex": True, "storedIndexAfter": 1}] * len(request["steps"])'
)


def test_a_harness_outcome_of_the_wrong_shape_fails_its_case_naming_the_schema(pytester):
    pytester.makepyfile(garbled=GARBLED_HARNESS)
    case = validated().by_strategy("FAULT_STRATEGY")[0].id
    result = pytester.runpytest(*Q, f"--rmq-strategy=exec:{sys.executable} garbled.py", f"--rmq-case={case}")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*answered trace with what schemas/protocol-trace-response.schema.json refuses*"])


@pytest.mark.parametrize("made, family", [("MQFaultStrategy()", "FAULT_STRATEGY"), ("SelectMessageQueueByRandom(seed=1)", "SELECTOR_RANDOM")])
def test_an_instance_of_a_stateful_family_is_refused_naming_the_way_out(pytester, made, family):
    pytester.makepyfile(inst=f"from pytest_rmq_conformance.ports.producer import *\none = {made}\n")
    pytester.syspathinsert()
    result = pytester.runpytest(*Q, "--rmq-strategy=inst:one")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --rmq-strategy=inst:one: an instance of {family} keeps its state * pass its class, or a factory *"])
