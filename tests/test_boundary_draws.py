"""Generated producer traces reach the boundaries where Java's behaviour turns (issue 34 item 11):
broker names Java orders unlike Python, the clock at a penalty's last and first millisecond,
counters near both ends of the int. Each breaker of producer_breakers.GENERATED_BREAKERS is
caught by the generated differential alone, on a pinned seed; its twin that differs only in what
Java cannot observe (producer_boundary_twins) passes on the same seed."""

from random import Random

import pytest
from hypothesis import Phase, find, settings
from producer_boundary_twins import TWINS
from producer_breakers import GENERATED_BREAKERS

from pytest_rmq_conformance.javalang import INT_MAX, INT_MIN, java_string_key
from pytest_rmq_conformance.kinds.producer.draws import traces
from pytest_rmq_conformance.kinds.producer.invariants import penalty
from pytest_rmq_conformance.producer.fault_strategy import ISOLATION_LATENCY

SEARCH = settings(database=None, max_examples=400, phases=[Phase.generate])  # the first one found: no shrinking


def _found(version, condition):
    return find(traces(version), condition, settings=SEARCH, random=Random(0))


def _routes(case):
    yield case.route
    yield from (step["route"] for step in case.steps if step["op"] == "route")


def _ordered_unlike_python(case):
    """A route, sorted by Java (its queue datas, no orderTopicConf), that Python's str order would sort otherwise."""
    return any(
        not route["orderTopicConf"] and sorted(names := [name for name, _, _ in route["queueDatas"]]) != sorted(names, key=java_string_key)
        for route in _routes(case)
    )


def _edges_met(case, version):
    """Whether a select runs at a penalty's last millisecond and another at its first free one
    (the clock moved by the trace's own steps from the update that set the penalty)."""
    if not case.params["sendLatencyFaultEnable"]:
        return False
    clock, until, selected = case.initial["clockMs"], {}, set()
    major = int(version[0])
    for step in case.steps:
        op = step["op"]
        if op == "advance":
            clock += step["ms"]
        elif op == "update":
            priced = ISOLATION_LATENCY[major] if step["isolation"] else step["latency"]
            duration = penalty(case.params, version, priced)
            if duration:
                until[step["broker"]] = clock + duration
        elif op == "select":
            selected.update((broker, clock - end) for broker, end in until.items() if clock - end in (-1, 0))
    return any((broker, -1) in selected and (broker, 0) in selected for broker in until)


def test_routes_are_drawn_that_java_orders_unlike_python():
    case = _found("5.3.3", _ordered_unlike_python)
    assert _ordered_unlike_python(case)


@pytest.mark.parametrize("version", ["4.9.8", "5.3.3"])
def test_selects_are_drawn_at_a_penaltys_last_and_first_millisecond(version):
    assert _edges_met(_found(version, lambda case: _edges_met(case, version)), version)


def test_counters_are_drawn_near_the_bottom_of_the_int():
    def low(case):
        values = [case.initial["sendIndex"], *(step.get("value", step.get("sendIndex")) for step in case.steps)]
        return any(value is not None and value <= INT_MIN + 50 for value in values)

    assert low(_found("5.3.3", low))


def test_which_item_worst_is_drawn_near_the_top_of_the_int():
    case = _found("4.9.8", lambda case: (case.initial["worstIndex"] or 0) >= INT_MAX - 3)
    assert case.initial["worstIndex"] >= INT_MAX - 3


@pytest.mark.parametrize("name", sorted(GENERATED_BREAKERS))
def test_the_generated_differential_alone_catches_each_boundary_breaker(pytester, name):
    release, seed = GENERATED_BREAKERS[name]
    result = pytester.runpytest("-p", "no:cacheprovider", f"--rmq-strategy=producer_breakers:{name}", f"--rmq-reference-version={release}",
                                f"--rmq-seed={seed}", "--rmq-checks=reference", "--rmq-shrink-time=1")
    assert result.ret == 1, result.stdout.str()
    result.stdout.fnmatch_lines([f"*FAULT_STRATEGY differs from the reference port of RocketMQ {release} on a generated trace, at *"])


@pytest.mark.parametrize("name", sorted(TWINS))
def test_a_twin_differing_only_in_what_java_cannot_observe_passes_where_its_breaker_fails(pytester, name):
    release, breaker = TWINS[name]
    seed = GENERATED_BREAKERS[breaker][1]
    result = pytester.runpytest("-p", "no:cacheprovider", f"--rmq-strategy=producer_boundary_twins:{name}", f"--rmq-reference-version={release}",
                                f"--rmq-seed={seed}", "--rmq-checks=golden,reference")
    assert result.ret == 0, result.stdout.str()
