"""The quick path of a step's checks says what the full checks say: it gives a step's measures
only where every claimed property holds, and the same measures; and it is the path the
reference ports' answers take."""

import pytest
from hypothesis import event as note
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_rmq_conformance import MessageQueue
from pytest_rmq_conformance.engine.kinds import ports
from pytest_rmq_conformance.kinds.allocation.calls import assign
from pytest_rmq_conformance.kinds.allocation.properties import PROPERTIES, java_properties
from pytest_rmq_conformance.kinds.allocation.quick import quick_measures
from pytest_rmq_conformance.kinds.allocation.scenarios import Event, Scenario, java_ordered
from pytest_rmq_conformance.kinds.allocation.steps import check_step
from pytest_rmq_conformance.pipeline.allocation.evaluate import Evaluator, prepare
from pytest_rmq_conformance.pipeline.allocation.space import SweepSpace, fixed_example
from pytest_rmq_conformance.releases import DEFAULT_RELEASE

BROKERS = ("IDC1@broker-a", "IDC2@broker-b", "broker-c")


class LookAlike(MessageQueue):
    """A subclass: equal fields, yet never the queue Java compares equal."""

    __slots__ = ()

CLIENTS = ("c1", "c2", "c3", "c4")
#: what the Java strategies claim, each property alone, and all of them
CLAIMS = [java_properties(family, DEFAULT_RELEASE) for family in sorted(ports("allocation"))] + [{name} for name in PROPERTIES] + [set(PROPERTIES)]


@st.composite
def steps(draw):
    """A group, an event, and two assignments built to break anything: items that are the group's
    queues, equal copies of them, queues from elsewhere, repeats, several clients with one list."""
    count = draw(st.integers(0, 7))
    mq_all = tuple(MessageQueue("T", draw(st.sampled_from(BROKERS)), i) for i in range(count))
    if count and draw(st.booleans()):
        mq_all += (MessageQueue(mq_all[0].topic, mq_all[0].broker_name, mq_all[0].queue_id),)  # an equal queue twice
    if count and draw(st.integers(0, 3)) == 0:
        mq_all = (LookAlike("T", mq_all[0].broker_name, 0), *mq_all[1:])  # a group holding what Java never matches
    members = tuple(CLIENTS[: draw(st.integers(1, 3))])
    kind = draw(st.sampled_from(["join", "leave", "crash"] if len(members) > 1 else ["join"]))
    client = CLIENTS[len(members)] if kind == "join" else draw(st.sampled_from(members))
    after_members = members + (client,) if kind == "join" else tuple(m for m in members if m != client)
    params = {"consumeridcs": draw(st.lists(st.sampled_from(["IDC1", "IDC2"]), unique=True))}
    before_group = Scenario("AVG", params, "g", mq_all, members)
    order = draw(st.sampled_from(["same", "reversed", "copies", "list"]))
    after_queues = {"same": mq_all, "reversed": tuple(reversed(mq_all)), "list": list(mq_all),
                    "copies": tuple(MessageQueue(mq.topic, mq.broker_name, mq.queue_id) for mq in mq_all)}[order]
    after_group = Scenario("AVG", params, "g", after_queues, after_members)
    item = st.one_of(
        st.sampled_from(mq_all) if mq_all else st.nothing(),
        st.sampled_from(mq_all).map(lambda mq: MessageQueue(mq.topic, mq.broker_name, mq.queue_id)) if mq_all else st.nothing(),
        st.sampled_from(mq_all).map(lambda mq: LookAlike(mq.topic, mq.broker_name, mq.queue_id)) if mq_all else st.nothing(),
        st.builds(MessageQueue, st.just("Other"), st.sampled_from(BROKERS), st.integers(0, 2)),
    )

    def assignment(clients):
        if draw(st.booleans()):  # lists from a pool: several clients may hold one list
            pool = draw(st.lists(st.lists(item, max_size=count + 1), min_size=1, max_size=3))
            return {cid: draw(st.sampled_from(pool)) for cid in clients}
        # a partition of the queues, as a correct strategy answers, then maybe one item changed
        owners = draw(st.lists(st.sampled_from(clients + (None,)), min_size=len(mq_all), max_size=len(mq_all)))
        shares = {cid: [mq for mq, owner in zip(mq_all, owners) if owner == cid] for cid in clients}
        victim = draw(st.sampled_from(clients))
        change = draw(st.sampled_from(["none", "repeat", "add", "replace", "copies"]))
        if change == "repeat" and shares[victim]:
            shares[victim].append(shares[victim][0])
        elif change == "add":
            shares[victim].append(draw(item))
        elif change == "replace" and shares[victim]:
            shares[victim][0] = draw(item)
        elif change == "copies":  # equal plain queues, other objects
            shares[victim] = [MessageQueue(mq.topic, mq.broker_name, mq.queue_id) for mq in shares[victim]]
        return shares

    claimed = draw(st.one_of(st.sets(st.sampled_from(sorted(PROPERTIES))), st.sampled_from(CLAIMS)))
    return claimed, Event(kind, client), before_group, assignment(members), after_group, assignment(after_members)


@settings(max_examples=300)
@given(steps(), st.booleans())
def test_the_quick_path_agrees_with_the_full_checks(step, members_before):
    claimed, event, before_group, before, after_group, after = step
    full = check_step(claimed, event, before_group, before, after_group, after, members_before=True, quick=False)
    measured = quick_measures(claimed, event, before_group, before, after_group, after)
    event_note = "quick" if measured is not None else "broken" if full.violations else "full checks, nothing broken"
    note(event_note)
    if measured is not None:
        assert full.violations == ()
        assert measured == (full.moved, full.lower_bound, full.own, full.imbalance)
    judged = check_step(claimed, event, before_group, before, after_group, after, members_before=members_before)
    assert judged == check_step(claimed, event, before_group, before, after_group, after, members_before=members_before, quick=False)


def test_queues_equal_in_their_fields_to_a_subclass_in_the_group_are_not_its_queues():
    """A group of MessageQueue subclasses, answered with plain queues of the same fields: Java's
    equals compares classes, so the full checks see gaps and foreign queues, and so must the quick path."""
    group = (LookAlike("T", "b", 0), LookAlike("T", "b", 1))
    plain = [MessageQueue("T", "b", 0), MessageQueue("T", "b", 1)]
    before_group, after_group = Scenario(None, {}, "g", group, ("a", "b")), Scenario(None, {}, "g", group, ("a",))
    step = ({"coverage", "only-from-mq-all"}, Event("leave", "b"), before_group, {"a": plain[:1], "b": plain[1:]}, after_group, {"a": plain})
    assert quick_measures(*step) is None
    assert {v.kind for v in check_step(*step, members_before=True).violations} == {"gap", "foreign"}


@pytest.mark.parametrize("family", sorted(ports("allocation")))
def test_the_reference_ports_take_the_quick_path(family):
    """The sweep judges the ports' answers on the quick path: the full checks are for what is wrong."""
    evaluator = Evaluator(family)
    claimed = java_properties(family, DEFAULT_RELEASE)
    plans = [fixed_example(), fixed_example(leaver=None)] + [SweepSpace(seed=3).plan(index) for index in range(12)]
    for plan in plans:
        prepared = prepare(plan)
        before_group = evaluator._configured(prepared.start)
        after_group = java_ordered(before_group, prepared.after_members)
        before, _ = assign(evaluator.subject.build_for, before_group, None, trusted=True)
        after, _ = assign(evaluator.subject.build_for, after_group, None, trusted=True)
        full = check_step(claimed, plan.events[0], before_group, before, after_group, after, members_before=True, quick=False)
        assert full.violations == ()
        measured = quick_measures(claimed, plan.events[0], before_group, before, after_group, after)
        assert measured == (full.moved, full.lower_bound, full.own, full.imbalance), plan.start.id
