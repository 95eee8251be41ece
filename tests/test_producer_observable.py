"""What Java can observe of a fault strategy, held by twins of the port (tests/producer_twins.py):
each passes or fails the golden replay as its rule says, and a counter drift says when it shows."""

import re
from functools import cache
from pathlib import Path

import producer_twins
import pytest
from docs_pages import documentation
from producer_twins import TWINS

from pytest_rmq_conformance.engine.golden.data import load_golden
from pytest_rmq_conformance.engine.resources import golden_dir
from pytest_rmq_conformance.kinds.producer.cases import publish_list
from pytest_rmq_conformance.kinds.producer.drift import next_value, parting_length, when_it_shows
from pytest_rmq_conformance.kinds.producer.trace import replay_trace

Q = ["-p", "no:cacheprovider", "--rmq-checks=golden"]


@cache
def traces():
    return load_golden(golden_dir() / "producer", validate=False).by_strategy("FAULT_STRATEGY")


def divergences(name, release):
    twin = getattr(producer_twins, name.split("@")[0])
    found = (replay_trace(lambda clock: twin(clock=clock, version=release), case, release) for case in traces())
    return [m for m in found if m is not None]


@pytest.mark.once
@pytest.mark.parametrize("name, release", [(name, release) for name, (releases, _) in TWINS.items() for release in releases])
def test_each_twin_passes_or_fails_as_its_rule_says(name, release):
    wanted = TWINS[name][1]
    found = divergences(name, release)
    assert {m.divergence_class for m in found} == wanted, [str(m) for m in found[:5]]
    if name == "OffsetCounter" and release == "5.3.3":  # another queue only where the counter passes the int's end
        # (4.x's fallback also takes a queue id modulo a broker's writeQueueNums: another length)
        wrapping = {case.id for case in traces() if case.category == "counter-wrap" or "near-wrap" in case.flags}
        assert {m.case_id for m in found if m.divergence_class == "wrong-queues"} <= wrapping


@pytest.mark.parametrize("release", ["4.7.1", "5.3.3"])
def test_an_equal_copy_of_the_queue_is_the_queue(release):
    """Item 3: the 5.3.3 port answering equal copies failed 714 of the 736 traces as wrong queues."""
    case = next(case for case in traces() if case.id.startswith("pub-FAULT_STRATEGY-0001-"))
    assert replay_trace(lambda clock: producer_twins.EqualCopy(clock=clock, version=release), case, release) is None


def test_the_fault_tables_order_counts_only_at_4_9_8():
    """Item 2: a table listed by broker name failed 9 detector traces at 5.3.3 as counter drift."""
    detecting = [case for case in traces() if any(step["op"] == "detect" for step in case.steps)]
    assert len(detecting) >= 9
    for case in detecting:
        assert replay_trace(lambda clock: producer_twins.SortedTable(clock=clock, version="5.3.3"), case, "5.3.3") is None, case.id
    case = next(case for case in detecting if case.id.startswith("pub-FAULT_STRATEGY-0428-"))
    at_498 = replay_trace(lambda clock: producer_twins.SortedTable(clock=clock, version="4.9.8"), case, "4.9.8")
    assert at_498 is not None and at_498.divergence_class == "counter-drift" and "(in Java's map order)" in at_498.problem


def test_a_counter_drift_says_when_it_shows():
    """Item 12: the next pick on the route, the first list length on which the two part, the wrap."""
    case = next(case for case in traces() if case.id.startswith("pub-FAULT_STRATEGY-0002-"))
    found = replay_trace(lambda clock: producer_twins.OffsetCounter(clock=clock, version="5.3.3"), case, "5.3.3")
    assert found is not None and found.divergence_class == "counter-drift" and found.index == 0
    assert found.problem == (
        "stored counter 17, Java's 11: the next step on this list of 6 picks Java's position 0 (A/0); "
        "they part first on a list of 4; on this list only at the wrap, 2147483631 counter steps from here"
    )


@pytest.mark.parametrize("release", [(4, 7, 1), (4, 9, 8), (5, 3, 3)])
def test_the_next_value_is_the_releases(release):
    assert next_value(release, 10) == 11
    assert next_value(release, 2**31 - 1) == 0  # past the end: 4.7.1 clamps Math.abs(MIN_VALUE), later releases mask
    if release >= (4, 9, 8):
        assert next_value(release, -5) == 2**31 - 4


def test_when_a_drift_shows():
    queues = [("A", 0), ("A", 1), ("B", 0)]
    release = (5, 3, 3)
    assert parting_length(12, 18) == 4 and parting_length(5, 5) is None
    assert when_it_shows(release, 11, 12, queues) == "the next step on this list of 3 differs: position 1 (A/1), Java's 0 (A/0)"
    assert when_it_shows(release, 3, 2**32 + 3, queues).startswith("4294967299 is Java's 3 modulo 2^32 but no Java int")
    assert when_it_shows(release, 5, 5 - 2**31, queues).endswith("the stored ints differ by 2^31")
    four = [("A", i) for i in range(4)]
    assert when_it_shows(release, 1, 9, four).endswith("on this list never (its length divides 2^31)")
    assert when_it_shows(release, 2**31 - 10, 2**31 - 7, queues).endswith("on this list only at the wrap, 7 counter steps from here")


def test_a_drift_report_through_the_plugin_says_when_it_shows(pytester):
    """The README's counter-drift report is what the suite prints for the offset twin."""
    readme = documentation()
    shown = re.search(r"^(pub-FAULT_STRATEGY-0002-spec-example .*? counter steps from here)$", readme, re.MULTILINE)
    assert shown is not None, "the README lost its counter-drift report"
    pytester.makepyfile(twins=Path(producer_twins.__file__).read_text())
    result = pytester.runpytest(*Q, "--rmq-strategy=twins:OffsetCounter", "-k", "pub-FAULT_STRATEGY-0002-")
    assert result.ret == 1
    assert shown.group(1) in result.stdout.str()


@pytest.mark.once
@pytest.mark.parametrize("name", ["EqualCopy", "SortedTable", "UnboundedCounter"])
def test_a_twin_that_differs_unobservably_passes_the_generated_checks(pytester, name):
    """Built as a user's class (``clock=`` only), a twin is 5.3.3's port."""
    pytester.makepyfile(twins=Path(producer_twins.__file__).read_text())
    result = pytester.runpytest("-p", "no:cacheprovider", f"--rmq-strategy=twins:{name}", "--rmq-checks=invariants,reference",
                                "--rmq-examples=15", "--rmq-seed=1")
    assert result.ret == 0, result.stdout.str()


def _cut(case, release, steps, answers):
    """``case`` at ``release`` with only ``steps`` and Java's ``answers`` to them."""
    from dataclasses import replace

    java = case.answers_for(release)
    return replace(case, steps=tuple(steps), expect=(replace(java, runs=(release,), answers=tuple(answers), nondeterministic_step=None),))


def test_a_counter_that_a_set_index_replaces_before_any_pick_reads_it_passes():
    """Trace 0001 pins the counter again (set_index) after seven selects: the offset twin's
    counter, six past Java's on a list of six, picked Java's queues until then, and no later pick
    can read it. Trace 0002, which ends on it, is counter drift."""
    first = next(case for case in traces() if case.id.startswith("pub-FAULT_STRATEGY-0001-"))
    assert [step["op"] for step in first.steps][7] == "set_index"
    assert replay_trace(lambda clock: producer_twins.OffsetCounter(clock=clock, version="5.3.3"), first, "5.3.3") is None
    second = next(case for case in traces() if case.id.startswith("pub-FAULT_STRATEGY-0002-"))
    assert replay_trace(lambda clock: producer_twins.OffsetCounter(clock=clock, version="5.3.3"), second, "5.3.3") is not None


@pytest.mark.parametrize("name", ["RawCounter", "HalfTurnCounter"])
def test_a_stored_counter_past_the_wrap_or_half_a_turn_away_passes_where_it_stores_another_number(name):
    """Each stores what Java's int never holds at that step (2^31 for -2^31, or 2^31 away),
    and every value its steps return is Java's: the traces where its number differs pass."""
    from pytest_rmq_conformance.kinds.producer.trace import observe_trace

    twin = getattr(producer_twins, name)
    differs = []
    for case in traces():
        java = case.answers_for("5.3.3")
        if java.nondeterministic_step is not None:
            continue
        _, seen = observe_trace(lambda clock: twin(clock=clock, version="5.3.3"), case)
        for got, answer in zip(seen, java.answers):
            want = ((answer or {}).get("expect") or {}).get("storedIndexAfter")
            if isinstance(got, dict) and type(want) is int and got.get("storedIndexAfter") != want:
                differs.append(case)
                break
        if len(differs) == 5:
            break
    assert len(differs) == 5
    assert [replay_trace(lambda clock: twin(clock=clock, version="5.3.3"), case, "5.3.3") for case in differs] == [None] * 5


def test_a_rewritten_entry_is_a_divergence_unless_a_route_replaces_the_list_before_a_pick_reads_it():
    """4.7.1 rewrites a list entry at step 6 of trace 0002; a port that keeps the entry differs
    from Java in its list. Where the trace ends there, a later pick would read the entry:
    counter drift. Where a route then makes a new list, no pick can: it passes. Where a pick
    reads it, the report says so."""
    case = next(case for case in traces() if case.id.startswith("pub-FAULT_STRATEGY-0002-"))
    java = case.answers_for("4.7.1")
    keeps = lambda cut: replay_trace(lambda clock: producer_twins.KeepsTheList(clock=clock, version="4.7.1"), cut, "4.7.1")
    whole = keeps(_cut(case, "4.7.1", case.steps, java.answers))
    assert whole is not None and whole.index == 6 and "list entries changed [], Java's [[5, 'B', 0]]" in whole.problem
    ends = keeps(_cut(case, "4.7.1", case.steps[:7], java.answers[:7]))
    assert ends is not None and ends.divergence_class == "counter-drift" and ends.index == 6
    route = {"op": "route", "route": case.route, "sendIndex": case.initial["sendIndex"], "sendIndexSeed": case.initial["sendIndexSeed"]}
    renewed = _cut(case, "4.7.1", [*case.steps[:7], route], [*java.answers[:7], {"expect": {"publishListRuns": [list(r) for r in java.publish_list_runs]}}])
    assert keeps(renewed) is None
    assert replay_trace(lambda clock: producer_twins.KeepsTheList.__mro__[1](clock=clock, version="4.7.1"), renewed, "4.7.1") is None


def test_a_counter_stored_unlike_java_yet_leading_to_javas_next_value_is_judged_by_the_picks_it_leads_to():
    """The trace ends on a select whose counter the strategy reports as Java's plus 2^32: by
    Java's rule its next value is Java's, so the suite asks the picks it leads to, one per entry
    of the list, and compares them with the reference port's from Java's counter. The port's own
    picks pass; picks one place on (a counter that reports what it does not use) do not; picks
    not asked are no proof."""
    from dataclasses import replace

    from pytest_rmq_conformance.kinds.producer.trace import compare_trace, observe_trace, probe_steps
    from pytest_rmq_conformance.ports.producer import MQFaultStrategy

    case = next(case for case in traces() if case.id.startswith("pub-FAULT_STRATEGY-0002-"))
    java = case.answers_for("5.3.3")
    cut = _cut(case, "5.3.3", case.steps[:3], java.answers[:3])
    length = len(publish_list(java.publish_list_runs))
    assert cut.steps[-1]["op"] == "select" and 2**31 % length

    def port(steps):
        return observe_trace(lambda clock: MQFaultStrategy(clock=clock, version="5.3.3"), replace(cut, steps=tuple(steps)))

    publish, seen = port(cut.steps)
    seen = list(seen)
    seen[-1] = {**seen[-1], "storedIndexAfter": seen[-1]["storedIndexAfter"] + 2**32}
    picks = list(port([*cut.steps, *probe_steps(length)])[1])[len(cut.steps):]
    assert len(picks) == length

    def judged(probe):
        return compare_trace(cut, "5.3.3", publish, iter(seen), probe)

    assert judged(lambda steps: picks) is None
    on = judged(lambda steps: [*picks[1:], picks[0]])
    assert on is not None and on.divergence_class == "counter-drift" and on.index == 2
    assert on.problem.startswith(f"stored counter {seen[-1]['storedIndexAfter']}, Java's {seen[-1]['storedIndexAfter'] - 2**32}; "
                                 f"the picks it leads to are not Java's: pick 1 of {length} after the trace answers ")
    assert "were not asked" in judged(None).problem
