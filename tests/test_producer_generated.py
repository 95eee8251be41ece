"""The generated checks of producer selection: the reference ports pass every property Java has
at their release, and every mutant (tests/producer_mutants.py) is rejected by the check built
for it."""

import itertools
import re
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from producer_mutants import MUTANTS, SticksToLastBroker

from pytest_rmq_conformance.engine.generated.statistics import chi_square_bound, chi_square_tail
from pytest_rmq_conformance.engine.kinds import reference_strategy
from pytest_rmq_conformance.kinds.producer.cases import TraceCase
from pytest_rmq_conformance.kinds.producer.draws import selector_cases, traces
from pytest_rmq_conformance.kinds.producer.generated import with_reference_answers
from pytest_rmq_conformance.kinds.producer.invariants import penalty, trace_violations
from pytest_rmq_conformance.kinds.producer.properties import java_properties
from pytest_rmq_conformance.kinds.producer.trace import observe_trace, replay_selector, replay_trace
from pytest_rmq_conformance.releases import RELEASES

Q = ["-p", "no:cacheprovider", "-rf", "--rmq-seed=1", "--rmq-shrink-time=2"]


def literal(text):
    return re.sub(r"([\[\]])", r"[\1]", text)


#: found by a CI run: 4.9.8's walk passes the end of the int (the counter set to MAX - 5) and
#: misses the one available broker, B; Java's fallback then sends to the penalised A
ACROSS_THE_INTS_END = TraceCase(
    id="generated", strategy="FAULT_STRATEGY", category="generated", flags=(), expect=(), topic="TopicTest",
    params={"sendLatencyFaultEnable": True, "latencyMax": [0, 100, 500], "notAvailableDuration": [1000, 10000, 100000]},
    route={"queueDatas": [["A", 3, 6], ["broker-a", 0, 6], ["broker-b", 1, 6], ["B", 1, 6], ["broker-c", 0, 6]],
           "brokerDatas": [[name, [0]] for name in ("A", "broker-a", "broker-b", "B", "broker-c")], "orderTopicConf": None},
    initial={"clockMs": 0, "sendIndex": None, "sendIndexSeed": 0, "worstIndex": None, "worstIndexSeed": 0},
    steps=(*({"op": "select", "lastBroker": None, "resetIndex": False},) * 3,
           {"op": "update", "broker": "A", "latency": 49, "isolation": False, "reachable": False},
           {"op": "update", "broker": "broker-b", "latency": 50, "isolation": False, "reachable": False},
           {"op": "set_index", "value": 2_147_483_642}, *({"op": "select", "lastBroker": None, "resetIndex": False},) * 2),
)


#: spec §11 invariant 3: latency off, the counter at 2^31 - 3, a retry after A on A/0, A/1, B/0: Java's walk
#: passes the end of the int, visits a position twice, misses B/0 and answers A/1 at every release
LAST_BROKER_ACROSS_THE_END = TraceCase(
    id="generated", strategy="FAULT_STRATEGY", category="generated", flags=(), expect=(), topic="TopicTest",
    params={"sendLatencyFaultEnable": False, "latencyMax": None, "notAvailableDuration": None},
    route={"queueDatas": [["A", 2, 6], ["B", 1, 6]], "brokerDatas": [["A", [0]], ["B", [0]]], "orderTopicConf": None},
    initial={"clockMs": 0, "sendIndex": 2**31 - 3, "sendIndexSeed": 0, "worstIndex": None, "worstIndexSeed": 0},
    steps=({"op": "select", "lastBroker": "A", "resetIndex": False},),
)


def _port_violations(case, release):
    publish, observations = observe_trace(lambda clock: reference_strategy("FAULT_STRATEGY", {"clock": clock}, release), case)
    return trace_violations(case, release, publish, list(observations), java_properties("FAULT_STRATEGY", release))


@pytest.mark.once
@pytest.mark.parametrize("release", RELEASES)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_the_ports_hold_every_property_java_has_at_their_release(release, data):
    assert _port_violations(data.draw(traces(release)), release) == []


@pytest.mark.parametrize("release", RELEASES)
def test_the_avoidance_properties_leave_out_a_walk_across_the_ints_end(release):
    assert _port_violations(ACROSS_THE_INTS_END, release) == []


@pytest.mark.parametrize("release", RELEASES)
def test_avoids_last_broker_leaves_out_a_walk_across_the_ints_end(release):
    publish, observations = observe_trace(lambda clock: reference_strategy("FAULT_STRATEGY", {"clock": clock}, release), LAST_BROKER_ACROSS_THE_END)
    assert [observed["queue"] for observed in observations] == [["A", 1]]
    assert _port_violations(LAST_BROKER_ACROSS_THE_END, release) == []


@pytest.mark.once
@pytest.mark.parametrize("release", RELEASES)
def test_no_walk_near_the_ints_end_breaks_avoids_last_broker_for_the_port(release):
    """Every route of two or three brokers of 1-3 queues, every counter within reach of the end,
    every last broker: the property's domain leaves out what Java's own walk does there."""
    found = []
    for counts in itertools.chain(itertools.product((1, 2, 3), repeat=2), itertools.product((1, 2, 3), repeat=3)):
        names = "ABC"[:len(counts)]
        route = {"queueDatas": [[b, n, 6] for b, n in zip(names, counts)], "brokerDatas": [[b, [0]] for b in names], "orderTopicConf": None}
        for counter in range(2**31 - 2 * sum(counts) - 3, 2**31):
            for last in names:
                step = {"op": "select", "lastBroker": last, "resetIndex": False}
                case = replace(LAST_BROKER_ACROSS_THE_END, route=route, initial={**LAST_BROKER_ACROSS_THE_END.initial, "sendIndex": counter}, steps=(step,))
                found += [f"{counts} {counter} {last}: {v}" for v in _port_violations(case, release)]
    assert found == []


def test_the_built_in_keeps_avoids_last_broker_on_the_seed_of_issue_34(pytester):
    """The seed that failed the 5.3.3 port at random (issue 34 item 4), pinned."""
    result = pytester.runpytest("-p", "no:cacheprovider", "--rmq-strategy=FAULT_STRATEGY", "--rmq-reference-version=5.3.3",
                                "--rmq-seed=1647790785", "--rmq-checks=invariants", "-k", "avoids-last-broker")
    assert result.ret == 0, result.stdout.str()
    assert result.parseoutcomes()["passed"] == 1


def test_avoids_last_broker_still_holds_clear_of_the_ints_end():
    clear = replace(LAST_BROKER_ACROSS_THE_END, initial={**LAST_BROKER_ACROSS_THE_END.initial, "sendIndex": 2**31 - 8})
    publish, observations = observe_trace(lambda clock: SticksToLastBroker(clock=clock), clear)
    violations = trace_violations(clear, "5.3.3", publish, list(observations), frozenset({"avoids-last-broker"}))
    assert [v.prop for v in violations] == ["avoids-last-broker"]


@pytest.mark.once
@pytest.mark.parametrize("family", ["FAULT_STRATEGY", "SELECTOR_HASH", "SELECTOR_RANDOM"])
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_a_case_carrying_the_ports_answers_replays_clean_against_the_port(family, data):
    """The answers made from the port's observations are read back as Java's would be."""
    drawn = data.draw(traces("4.7.1") if family == "FAULT_STRATEGY" else selector_cases(family))
    case = with_reference_answers(drawn, "4.7.1")
    if family == "FAULT_STRATEGY":
        found = replay_trace(lambda clock: reference_strategy(family, {"clock": clock}, "4.7.1"), case, "generated")
    else:
        found = replay_selector(lambda: reference_strategy(family, dict(case.params), "4.7.1"), case, "generated")
    assert found is None, str(found)


def test_penalties_follow_the_release_tables():
    assert penalty({}, "4.9.8", 549) == 0 and penalty({}, "4.9.8", 550) == 30000
    assert penalty({}, "5.3.3", 1799) == 2000 and penalty({}, "5.3.3", 1800) == 5000
    assert penalty({"latencyMax": [0, 100, 500], "notAvailableDuration": [1000, 10000]}, "5.3.3", 600) is None  # Java's list index throws


@pytest.mark.parametrize("freedom, quantile", [(1, 3.841), (2, 5.991), (3, 7.815), (15, 24.996)])
def test_the_chi_square_tail_matches_the_tables(freedom, quantile):
    assert chi_square_tail(quantile, freedom) == pytest.approx(0.05, abs=1e-4)
    assert chi_square_bound(freedom + 1, 0.05) == pytest.approx(quantile, abs=1e-3)


def test_the_spread_bound_is_one_in_a_million():
    assert chi_square_bound(2) == pytest.approx(4.8916**2, rel=1e-4)  # one degree: the normal quantile of 1 - 5e-7, squared


@pytest.mark.cross_product
@pytest.mark.parametrize("family, release", [("SELECTOR_HASH", "4.7.1"), ("FAULT_STRATEGY", "5.3.3"), ("FAULT_STRATEGY", "4.7.1"),
                                             ("FAULT_STRATEGY", "4.9.8"), ("SELECTOR_RANDOM", "5.3.3")])
def test_the_reference_ports_pass_their_generated_checks(pytester, family, release):
    """Each property Java has at the release (test_the_ports_hold_... draws more traces, in this process)."""
    result = pytester.runpytest(*Q, f"--rmq-strategy={family}", f"--rmq-reference-version={release}", "--rmq-checks=invariants,reference",
                                "--rmq-examples=15")
    assert result.ret == 0, result.stdout.str()
    assert result.parseoutcomes()["passed"] == len(java_properties(family, release) - {"java-random"})


@pytest.mark.once
@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_each_generated_check_rejects_the_mutant_built_for_it(pytester, name):
    test, release = MUTANTS[name]
    result = pytester.runpytest(*Q, f"--rmq-strategy=producer_mutants:{name}", f"--rmq-reference-version={release}",
                                "--rmq-checks=invariants,reference", "-k", test.replace("[", " and ").replace("]", ""))
    assert result.ret == 1, result.stdout.str()
    result.stdout.fnmatch_lines([f"FAILED *::{literal(test)}*"])
    result.stdout.fnmatch_lines([f"*replay: pytest *{literal(test)}* --rmq-strategy=producer_mutants:{name} *--rmq-seed=1*"])


def test_a_trace_failure_names_the_step_the_property_and_the_trace_as_data(pytester):
    result = pytester.runpytest(*Q, "--rmq-strategy=producer_mutants:IgnoresPenalties", "--rmq-checks=invariants", "-k", "avoids-penalised]")
    assert result.ret == 1
    result.stdout.fnmatch_lines([
        "*MY_FAULT_STRATEGY breaks avoids-penalised (latency on, first attempt: an available broker whenever the list has one (the counter*",
        "*step *: avoids-penalised: returned * penalised until * (now *), while * are available",
        "*trace: route *, latency on, *",
        "*trace as data: {\"strategy\": \"FAULT_STRATEGY\", \"params\": *",
        "*shrinking: *",
    ])


def test_a_java_twin_diverging_on_a_generated_trace_shows_the_state_table(pytester):
    result = pytester.runpytest(*Q, "--rmq-strategy=producer_mutants:OddCounter", "--rmq-checks=reference")
    assert result.ret == 1
    result.stdout.fnmatch_lines([
        "*FAULT_STRATEGY differs from the reference port of RocketMQ 5.5.0 on a generated trace, at step *: *",
        "*step*clock*counter*list*fault table*op*Java*strategy",
        "*(Java: the reference port, which answers every golden vector as Java did)",
    ])


def test_a_random_selector_not_claiming_javas_draws_is_judged_by_its_spread(pytester):
    fair = pytester.runpytest(*Q, "--rmq-strategy=producer_mutants:FairButNotJava", "--rmq-checks=golden,invariants,reference", "-rs")
    assert fair.ret == 0, fair.stdout.str()
    fair.stdout.fnmatch_lines(["*does not claim java-random (declared in FairButNotJava.rmq_properties): judged by the spread check*"])
    java = pytester.runpytest(*Q, "--rmq-strategy=producer_mutants:PythonRandom", "--rmq-checks=golden")
    assert java.ret == 1  # named SELECTOR_RANDOM and claiming nothing: held to Java's draws
