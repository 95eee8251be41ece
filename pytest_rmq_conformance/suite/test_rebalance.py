"""The strategy inside a simulated group: convergence after every membership change, and churn.

Each client runs its own instance of the strategy under test in the
rebalance model of the selected client release; clients hear of a change
after their own delay (or not at all, and wait for their periodic run).
"""

import json

import pytest
from hypothesis import strategies as st

from pytest_rmq_conformance.engine.generated.generation import PropertyFailure
from pytest_rmq_conformance.engine.running.hangs import Hang
from pytest_rmq_conformance.engine.running.timeouts import CallTimeout, StrategyFault
from pytest_rmq_conformance.kinds.allocation.calls import TimedStrategy
from pytest_rmq_conformance.kinds.allocation.failures import format_generated
from pytest_rmq_conformance.kinds.allocation.layouts import broker_names, client_ids, needs_rooms, queue_layout
from pytest_rmq_conformance.kinds.allocation.properties import coverage_target
from pytest_rmq_conformance.kinds.allocation.scenarios import Event, Plan, Scenario, default_params, java_ordered
from pytest_rmq_conformance.kinds.allocation.steps import check_step
from pytest_rmq_conformance.plugin.verdicts import fail_generated, run_generated
from pytest_rmq_conformance.processqueue.group import GroupSimulation

pytestmark = pytest.mark.rmq_check("rebalance", kinds=("allocation",))

#: how long a group may take to reach one owner per queue after a change (ms of simulated time)
SETTLE_LIMIT = 60000
#: notification delays a client may have (``None``: the notification is lost)
NOTIFY_DELAYS = st.sampled_from([0, 0, 0, 150, 2500, 19000, None])


def _partitions(conformance) -> str | None:
    """Why convergence to one owner per queue is not expected of this strategy, if it is not."""
    claimed = conformance.properties
    if not {"coverage", "eligible-coverage"} & claimed or "no-double-assignment" not in claimed:
        return (
            f"{conformance.name} does not claim coverage and no-double-assignment "
            f"({conformance.properties_origin}): a group need not converge to one owner per queue"
        )
    return None


def _skip_unless_partitioning(conformance, groups) -> None:
    reason = groups.skip_reason() or _partitions(conformance)
    if reason is not None:
        pytest.skip(reason)


def _simulate(conformance, start: Scenario, client_version: str, notify_delay) -> GroupSimulation:
    timeout = conformance.settings.timeout
    return GroupSimulation(
        lambda: TimedStrategy(conformance.build_for(start), timeout),
        queues=tuple(dict.fromkeys(start.mq_all)),
        clients=start.clients,
        consumer_group=start.consumer_group,
        version=client_version,
        notify_delay=notify_delay,
    )


def _apply(sim: GroupSimulation, event) -> None:
    if event.kind == "join":
        sim.join(event.client)
    elif event.kind == "leave":
        sim.leave(event.client)
    else:
        sim.crash(event.client)


class NotSettled(Exception):
    """The group still had gaps or overlaps ``SETTLE_LIMIT`` ms after a change."""

    def __init__(self, sim: GroupSimulation, queues, where: str):
        self.headline = f"the group did not converge to one owner per queue within {SETTLE_LIMIT} ms after {where}"
        self.details = [*sim.problems(queues), "last events:", *sim.log[-12:]]
        super().__init__(self.headline)


def _settle(sim: GroupSimulation, queues, start: Scenario, where: str) -> None:
    try:
        took = sim.settle(SETTLE_LIMIT, queues=queues)
    except CallTimeout as exc:
        raise Hang(start, None, exc.seconds, "allocate() during a rebalance") from None
    if took is None:
        raise NotSettled(sim, queues, where)


def test_rebalance_converges(rmq_conformance, rmq_groups, rmq_client_version, request):
    """A generated group through joins, leaves and crashes, every client on its own schedule:
    after each change the group reaches exactly one owner per queue."""
    _skip_unless_partitioning(rmq_conformance, rmq_groups)
    examples = st.tuples(rmq_groups.plans(), st.lists(NOTIFY_DELAYS, min_size=1, max_size=6))

    def check(example):
        plan, delays = example
        everyone = dict.fromkeys(list(plan.start.clients) + [e.client for e in plan.events])
        notify = {cid: delays[i % len(delays)] for i, cid in enumerate(everyone)}
        sim = _simulate(rmq_conformance, plan.start, rmq_client_version, notify)
        for step, (event, members) in enumerate(plan.groups()):
            where = "the start" if event is None else f"step {step} ({event})"
            if event is not None:
                _apply(sim, event)
            group = java_ordered(plan.start, members)
            try:
                _settle(sim, coverage_target(rmq_conformance.properties, group), plan.start, where)
            except NotSettled as failure:
                details = [f"notification delays (ms, None = lost): {notify}", *failure.details]
                raise PropertyFailure(
                    format_generated(f"{rmq_conformance.name}: {failure.headline}", details, group, _plan_data(plan, notify))
                ) from None

    run_generated(request, rmq_conformance, examples, check)


def _plan_data(plan: Plan, notify: dict[str, int | None]) -> str:
    return json.dumps({**plan.to_json(), "notifyDelay": notify}, ensure_ascii=False)


#: the fixed changes whose churn is reported: (id, queues, clients, event kind, which client)
CHURN_CASES = [
    ("24q-4c-second-leaves", 24, 4, "leave", 1),
    ("24q-4c-second-crashes", 24, 4, "crash", 1),
    ("24q-4c-fifth-joins", 24, 4, "join", None),
    ("100q-10c-first-leaves", 100, 10, "leave", 0),
]


@pytest.mark.parametrize(
    "case_id, queue_count, client_count, kind, which", CHURN_CASES, ids=[case[0] for case in CHURN_CASES]
)
def test_rebalance_churn(
    case_id, queue_count, client_count, kind, which, rmq_conformance, rmq_groups, rmq_client_version, record_property, request
):
    """Queues moved by one change, reported against the fewest moves a balanced assignment
    needs and beside the ProcessQueues the clients rebuilt; a strategy claiming stability moves
    only the leaver's (or joiner's) queues."""
    _skip_unless_partitioning(rmq_conformance, rmq_groups)
    family = rmq_conformance.family
    queues = queue_layout(queue_count, brokers=broker_names(2, rooms=needs_rooms(family)))
    members = client_ids(client_count)
    start = Scenario(family, rmq_conformance.fixed_params() or default_params(family, queues), "group", tuple(queues), tuple(members))
    claimed = rmq_conformance.properties
    if kind == "join":
        event = Event("join", client_ids(client_count + 1)[-1])
        after_members = members + [event.client]
    else:
        event = Event(kind, members[which])
        after_members = [m for m in members if m != event.client]
    try:
        sim = _simulate(rmq_conformance, start, rmq_client_version, 0)
        _settle(sim, coverage_target(claimed, start), start, "the start")
        sim.advance(5000)
        before, since = sim.assignment(), sim.now()
        _apply(sim, event)
        _settle(sim, coverage_target(claimed, start), start, str(event))
        stopped = None
    except NotSettled as stuck:
        stopped = "\n".join([stuck.headline, *stuck.details])
    except (Hang, StrategyFault) as stop:
        stopped = f"{rmq_conformance.name}: {stop}"
    if stopped is not None:
        fail_generated(request, rmq_conformance, stopped)
    after_group = java_ordered(start, after_members)
    step = check_step(claimed, event, java_ordered(start, members), before, after_group, sim.assignment())
    rebuilt = sim.churn(since=since)
    record_property(
        "rmq_churn",
        {"case": case_id, "strategy": rmq_conformance.name, "kind": kind, "moved": step.moved,
         "lower_bound": step.lower_bound, "own": step.own, "rebuilt": rebuilt},
    )
    stable = {"leave": "stable-on-leave", "crash": "stable-on-leave", "join": "stable-on-join"}[kind]
    if stable in claimed and (step.violations or rebuilt != step.own):
        details = [str(v) for v in step.violations]
        fail_generated(
            request,
            rmq_conformance,
            "\n".join(
                [f"{rmq_conformance.name} claims {stable}, yet {event} moved {step.moved} queue(s) and rebuilt "
                 f"{rebuilt} ProcessQueue(s) where only its own {step.own} should move (lower bound {step.lower_bound})",
                 *details]
            ),
        )
