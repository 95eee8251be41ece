"""The producer ports on the verified scenarios S1-S10 of the producer-selection spec (section 10)
and on the rules around them. Queues are written ``broker/queueId``; ``idx k`` pins the counter."""

import pytest

from pytest_rmq_conformance.javalang import INT_MAX, INT_MIN, JavaInteger, JavaLong, JavaRandom
from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.ports.producer import (
    BrokerData,
    Counter,
    FaultStrategy,
    MQFaultStrategy,
    PublishInfo,
    QueueData,
    SelectMessageQueueByHash,
    SelectMessageQueueByRandom,
    Selector,
    ThreadLocalIndex,
    TopicPublishInfo,
    TopicRouteData,
    topic_route_data_to_topic_publish_info,
)

RELEASES = ("4.7.1", "4.9.8", "5.3.3")


class FixedClock:
    def __init__(self, ms: int) -> None:
        self.ms = ms

    def now(self) -> int:
        return self.ms


def route(spec: str) -> TopicRouteData:
    """``"A:2,B:2"``: writable brokers with a master."""
    pairs = [entry.split(":") for entry in spec.split(",")]
    return TopicRouteData(
        queue_datas=[QueueData(name, int(count)) for name, count in pairs],
        broker_datas=[BrokerData(name, {0: f"{name}:10911"}) for name, _ in pairs],
    )


def shown(mq: MessageQueue | None) -> str | None:
    return None if mq is None else f"{mq.broker_name}/{mq.queue_id}"


class Producer:
    """One MQFaultStrategy sending to one topic, as the scenarios drive it."""

    def __init__(self, version, spec="A:2,B:2,C:2", *, clock=0, idx=0, latency=True, seed=1):
        self.clock = FixedClock(clock)
        self.strategy = MQFaultStrategy(clock=self.clock, version=version)
        self.strategy.send_latency_fault_enable = latency
        self.info = self.strategy.publish_info("TopicTest", route(spec))
        self.info.send_which_queue.pin(idx, seed)

    def sel(self, last=None, reset=False, times=1):
        picked = [shown(self.strategy.select_one_message_queue(self.info, last, reset)) for _ in range(times)]
        return picked[0] if times == 1 else picked

    def upd(self, broker, latency, isolation=False, reachable=True):
        self.strategy.update_fault_item(broker, latency, isolation, reachable)

    @property
    def stored(self):
        return self.info.send_which_queue.stored

    def listing(self):
        return [shown(mq) for mq in self.info.queues]


def by_release(*answers):
    """Parameters ``(version, answer)``, one answer for all releases or one per release."""
    if len(answers) == 1:
        answers = answers * 3
    return pytest.mark.parametrize("version, expected", list(zip(RELEASES, answers)))


# --- section 10 ------------------------------------------------------------------------------


@pytest.mark.parametrize("version", RELEASES)
def test_s1_latency_off_is_round_robin_avoiding_the_last_broker(version):
    p = Producer(version, idx=10, latency=False)
    assert p.sel(times=7) == ["C/1", "A/0", "A/1", "B/0", "B/1", "C/0", "C/1"]
    p.info.send_which_queue.stored = 10
    assert [p.sel("A"), p.sel("B")] == ["C/1", "A/0"]
    assert p.stored == 12


@by_release(13, 14, 14)
def test_s1_publish_info_avoiding_a_broker_uses_the_counter_per_release(version, expected):
    p = Producer(version, idx=12, latency=False)
    assert shown(p.info.select_one_message_queue("A")) == "B/0"
    assert p.stored == expected


@by_release(
    ["A/0", "A/1", "C/0", "C/0", "B/0", "A/1", "C/0", "B/1", "C/0"],
    ["A/0", "A/1", "C/0", "C/0", "C/0", "C/1", "A/0", "A/1", "B/0"],
    ["A/0", "A/1", "C/0", "C/1", "A/0", "C/0", "C/1", "A/0", "A/1"],
)
def test_s2_latency_on_skips_a_penalised_broker(version, expected):
    p = Producer(version, clock=1_000_000, idx=10)
    assert p.sel() == "C/1"
    p.upd("B", 600)
    out = p.sel(times=4) + [p.sel("B"), p.sel("A")]
    p.clock.ms = 1_029_999
    out.append(p.sel())
    p.clock.ms = 1_030_000
    out += p.sel(times=2)
    assert out == expected
    if version == "4.7.1":  # "sel B" rewrote the last list entry to B/0 in place
        assert p.listing() == ["A/0", "A/1", "B/0", "B/1", "C/0", "B/0"]


def s2_then_s3(version):
    p = Producer(version, clock=1_000_000, idx=10)
    p.sel()
    p.upd("B", 600)
    p.sel(times=4)
    p.sel("B"), p.sel("A")
    p.clock.ms = 1_029_999
    p.sel()
    p.clock.ms = 1_030_000
    p.sel(times=2)
    p.upd("A", 600)
    p.upd("B", 700)
    p.upd("C", 3000)
    return p


@by_release(
    (["A/1", "A/0", "A/1", "A/0"], 34),
    (["A/1", "A/0", "A/1", "A/0"], 32),
    (["B/0", "B/1", "C/0", "C/1"], 53),
)
def test_s3_every_broker_penalised(version, expected):
    p = s2_then_s3(version)
    assert (p.sel(times=4), p.stored) == expected


def test_s3_4_7_1_rewrites_the_publish_list():
    p = s2_then_s3("4.7.1")
    p.sel(times=4)
    assert p.listing() == ["A/1", "A/1", "B/0", "A/0", "C/0", "B/0"]


@by_release(
    ["B/0", "B/0", "B/1", "C/0", "C/1", "B/0", "A/1"],
    ["B/0", "B/0", "B/1", "C/0", "C/1", "B/0", "A/1"],
    ["B/0", "B/1", "C/0", "C/1", "A/0", "A/1", "B/0"],
)
def test_s4_isolation(version, expected):
    p = Producer(version, clock=5_000_000, idx=0)
    p.upd("A", 10, isolation=True)
    out = p.sel(times=3)
    for ms in (5_009_999, 5_010_000, 5_599_999, 5_600_000):
        p.clock.ms = ms
        out.append(p.sel())
    assert out == expected


@pytest.mark.parametrize("version", RELEASES)
def test_s5_counter_wrap_is_not_round_robin(version):
    p = Producer(version, "A:1,B:1,C:1", idx=INT_MAX - 1)
    assert p.sel(times=4) == ["B/0", "A/0", "B/0", "C/0"]


@by_release(
    ("A/0", 1170105036, "A/1", 1170105037),
    ("A/0", 1170105036, "A/1", 1170105037),
    ("B/1", 1562431131, "B/0", 117392766),
)
def test_s6_reset_index_restarts_the_counter_in_5x(version, expected):
    p = Producer(version, "A:2,B:2", idx=None, seed=42)
    first = p.sel(reset=True)
    stored = p.stored
    assert (first, stored, p.sel("A", reset=True), p.stored) == expected


def s7(version):
    p = Producer(version, "A:2,B:2", clock=100_000, idx=0)
    p.upd("A", 600, reachable=False)
    out = p.sel(times=2)
    p.clock.ms = 102_000
    out += p.sel(times=2)
    p.upd("A", 600, reachable=False)
    p.upd("B", 600)
    out += p.sel(times=3)
    p.upd("B", 600, reachable=False)
    out += [p.sel(), p.sel("B"), p.sel("B")]
    return p, out


def test_s7_5x_falls_back_on_reachable_brokers_then_on_any():
    p, out = s7("5.3.3")
    assert out == ["B/0", "B/1", "A/0", "A/1", "B/0", "B/1", "B/0", "B/1", "A/0", "A/1"]
    assert p.stored == 49


def test_s7_4_9_8_breaks_ties_by_map_order():
    _, out = s7("4.9.8")
    assert out[-3:] == ["A/0", "A/1", "A/0"]


def test_s7_4_7_1_tie_depends_on_the_shuffle():
    outcomes = set()
    seeds = JavaRandom(1)
    for seed in [seeds.next_int() for _ in range(8)]:  # adjacent seeds start alike
        p = Producer("4.7.1", "A:2,B:2", clock=100_000, idx=0)
        p.strategy.shuffle_random.set_seed(seed)
        p.upd("A", 600, reachable=False)
        p.sel(times=2)
        p.clock.ms = 102_000
        p.sel(times=2)
        p.upd("A", 600, reachable=False)
        p.upd("B", 600)
        outcomes.add(p.sel())
    assert outcomes == {"A/1", "B/1"}


@by_release("A/1", "A/1", "B/0")
def test_s8_a_fast_success_ends_the_isolation_in_4x_only(version, expected):
    p = Producer(version, "A:2,B:2", clock=200_000, idx=0)
    p.upd("A", 10, isolation=True)
    p.upd("A", 10)
    assert p.sel() == expected


@by_release(["B/0", "B/0", "B/1"], ["B/0", "B/0", "B/1"], ["B/0", "B/1", "A/0"])
def test_s9_5x_keeps_the_longer_penalty(version, expected):
    p = Producer(version, "A:2,B:2", clock=300_000, idx=0)
    p.upd("A", 3000)
    p.upd("A", 600)
    out = []
    for ms in (302_000, 305_999, 306_000):
        p.clock.ms = ms
        out.append(p.sel())
    assert out == expected


@by_release(("A/2", 2), ("A/1", 4), ("A/1", 4))
def test_s10_single_broker_latency_off(version, expected):
    p = Producer(version, "A:3", idx=0, latency=False)
    assert (p.sel("A"), p.stored) == expected


@pytest.mark.parametrize("version", RELEASES)
def test_s10_single_broker_latency_on(version):
    p = Producer(version, "A:3", idx=0)
    assert p.sel("A", times=2) == ["A/1", "A/2"]


# --- the parts ------------------------------------------------------------------------------


@pytest.mark.parametrize("version", RELEASES)
def test_the_ports_fit_the_contract(version):
    strategy = MQFaultStrategy(clock=FixedClock(0), version=version)
    info = strategy.publish_info("T", route("A:1"))
    assert isinstance(strategy, FaultStrategy)
    assert isinstance(info, PublishInfo)
    assert isinstance(info.send_which_queue, Counter)
    assert isinstance(SelectMessageQueueByHash(version=version), Selector)
    assert isinstance(SelectMessageQueueByRandom(version=version, seed=1), Selector)
    assert [MQFaultStrategy.name, SelectMessageQueueByHash.name, SelectMessageQueueByRandom.name] == [
        "FAULT_STRATEGY",
        "SELECTOR_HASH",
        "SELECTOR_RANDOM",
    ]


@pytest.mark.parametrize("version", ["4.9.7", "5.0.0", "3.2.6", "latest"])
def test_only_the_three_releases_are_ported(version):
    with pytest.raises(ValueError):
        MQFaultStrategy(version=version)


@by_release(
    [0, 1, INT_MAX, 0, 1],  # 4.7.1 clamps every stored value to [0, INT_MAX]
    [0, 1, INT_MAX, 0, 1],
    [0, 1, INT_MAX, 0, 1],
)
def test_counter_values_are_consecutive_modulo_2_31(version, expected):
    index = ThreadLocalIndex(version=version, seed=1)
    index.pin(-1)
    out = [index.increment_and_get(), index.increment_and_get()]
    index.pin(INT_MAX - 1)
    out += [index.increment_and_get() for _ in range(3)]
    assert out == expected


@by_release(0, INT_MIN, INT_MIN)
def test_counter_stored_value_after_int_max(version, expected):
    index = ThreadLocalIndex(version=version, seed=1)
    index.pin(INT_MAX)
    assert index.increment_and_get() == 0
    assert index.stored == expected


@by_release(1170105036, 1170105036, -1170105034)
def test_counter_first_value_from_the_random(version, expected):
    index = ThreadLocalIndex(version=version)
    index.pin(None, seed=42)
    index.increment_and_get()
    assert index.stored == expected


def test_counter_reset_is_5x_only():
    index = ThreadLocalIndex(version="5.3.3")
    index.pin(7, seed=42)
    index.reset()
    assert index.stored == 1562431130
    with pytest.raises(NotImplementedError):
        ThreadLocalIndex(version="4.9.8").reset()


@pytest.mark.parametrize("version", RELEASES)
def test_route_to_publish_list(version):
    topic_route = TopicRouteData(
        queue_datas=[
            QueueData("broker-c", 2),
            QueueData("B", 1),
            QueueData("broker-b", 2, perm=4),  # read only
            QueueData("A", 2),
            QueueData("\uff21", 1),  # after a surrogate pair in Java's order
            QueueData("\U0001F600", 1),
            QueueData("D", 3),  # no master
            QueueData("E", 3),  # not in the broker datas
        ],
        broker_datas=[
            BrokerData(name, {0: "addr"}) for name in ["A", "B", "broker-b", "broker-c", "\uff21", "\U0001F600"]
        ]
        + [BrokerData("D", {1: "slave"})],
    )
    info = topic_route_data_to_topic_publish_info("T", topic_route, version=version)
    assert [shown(mq) for mq in info.queues] == [
        "A/0", "A/1", "B/0", "broker-c/0", "broker-c/1", "\U0001F600/0", "\uff21/0"
    ]  # fmt: skip
    assert all(mq.topic == "T" for mq in info.queues)
    assert [data.broker_name for data in info.queue_datas][:4] == ["A", "B", "D", "E"]


def test_order_topic_conf_gives_the_written_order():
    topic_route = TopicRouteData(queue_datas=[QueueData("A", 8)], broker_datas=[], order_topic_conf="B:2;A:1")
    info = topic_route_data_to_topic_publish_info("T", topic_route, version="4.9.8")
    assert [shown(mq) for mq in info.queues] == ["B/0", "B/1", "A/0"]
    assert info.order_topic


@by_release(7, 7, 6)
def test_empty_list_divides_by_zero_after_the_counter_moved(version, expected):
    """4.x: a step for the walk, then the failed fallback's remove(null), then the last step."""
    p = Producer(version, "A:0", idx=5)
    with pytest.raises(ZeroDivisionError, match="/ by zero"):
        p.sel()
    assert p.stored == expected
    with pytest.raises(ZeroDivisionError):
        p.info.select_one_message_queue("A")


@by_release(2, 1, 2)
def test_4_9_8_looks_up_writable_queue_datas_only(version, expected):
    info = TopicPublishInfo(queue_datas=[QueueData("A", 2, perm=4), QueueData("A", 1)], version=version)
    assert info.get_queue_id_by_broker("A") == expected
    assert info.get_queue_id_by_broker("Z") == info.get_queue_id_by_broker(None) == -1


def test_4_7_1_fallback_replaces_the_list_entry_it_returns():
    p = Producer("4.7.1", "A:2,B:2", clock=0, idx=0)
    p.upd("A", 600)
    p.upd("B", 700)
    before = list(p.info.queues)
    mq = p.strategy.select_one_message_queue(p.info, None)
    assert shown(mq) == "A/1"
    position = next(i for i, entry in enumerate(p.info.queues) if entry is mq)
    assert shown(before[position]) == "B/0"
    assert [entry is old for entry, old in zip(p.info.queues, before)].count(False) == 1


def test_4_9_8_fallback_returns_a_queue_outside_the_list():
    p = Producer("4.9.8", "A:2,B:2", clock=0, idx=0)
    p.upd("A", 600)
    p.upd("B", 700)
    before = list(p.info.queues)
    mq = p.strategy.select_one_message_queue(p.info, None)
    assert shown(mq) == "A/1"
    assert all(entry is not mq for entry in p.info.queues)
    assert p.info.queues == before


def test_4x_fallback_forgets_a_broker_that_is_not_in_the_route():
    p = Producer("4.9.8", "A:2", clock=0, idx=0)
    p.upd("A", 600)
    p.upd("ghost", 550)  # picked first: lower latency, then not in the route
    assert p.sel() == "A/0"  # the walk's step, then a plain one after the failed fallback
    assert p.stored == 2
    assert [item.name for item in p.strategy.fault_items()] == ["A"]


@pytest.mark.parametrize(
    "version, table",
    [
        ("4.7.1", [(-1, 0), (549, 0), (550, 30000), (999, 30000), (1000, 60000), (2000, 120000), (3000, 180000), (14999, 180000), (15000, 600000)]),
        ("5.3.3", [(-1, 0), (549, 0), (550, 2000), (1799, 2000), (1800, 5000), (3000, 6000), (5000, 10000), (14999, 10000), (15000, 30000)]),
    ],
)
def test_not_available_duration_tables(version, table):
    strategy = MQFaultStrategy(clock=FixedClock(0), version=version)
    assert [(latency, strategy.compute_not_available_duration(latency)) for latency in dict(table)] == table


def test_a_short_duration_table_fails_like_java():
    strategy = MQFaultStrategy(clock=FixedClock(0), version="4.9.8")
    strategy.send_latency_fault_enable = True
    strategy.not_available_duration = strategy.not_available_duration[:-1]
    with pytest.raises(IndexError, match="Index 6 out of bounds for length 6"):
        strategy.update_fault_item("A", 20000, False)
    assert strategy.fault_items() == []


@pytest.mark.parametrize("version", RELEASES)
def test_updates_are_lost_while_latency_fault_is_off(version):
    p = Producer(version, latency=False)
    p.upd("A", 20000)
    assert p.strategy.fault_items() == []


@pytest.mark.parametrize("version", RELEASES)
def test_a_null_broker_update_raises(version):
    p = Producer(version)
    with pytest.raises(TypeError):
        p.upd(None, 10)


@by_release(False, False, True)
def test_an_overflowing_penalty(version, expected):
    """4.x stores the wrapped timestamp and stays unavailable; 5.x never records it."""
    clock = 2**63 - 10_000
    p = Producer(version, "A:1,B:1", clock=clock, idx=0)
    p.upd("A", 15000)
    assert p.strategy.latency_fault_tolerance.is_available("A") is expected
    p.clock.ms += 5000
    assert p.strategy.latency_fault_tolerance.is_available("A") is expected


def test_5x_items_and_detector():
    p = Producer("5.3.3", "A:1,B:1,C:1", clock=1000, idx=0)
    p.upd("A", 600, reachable=False)
    p.upd("B", 600, reachable=False)
    p.upd("C", 10)
    items = {item.name: item for item in p.strategy.fault_items()}
    assert (items["A"].start_timestamp, items["A"].reachable, items["A"].check_stamp) == (3000, False, 0)
    assert (items["C"].start_timestamp, items["C"].reachable) == (0, True)
    addresses = {"A": "a:1", "C": "c:1"}
    p.strategy.detect_by_one_round(addresses.get, lambda addr, timeout: addr == "a:1")
    items = {item.name: item for item in p.strategy.fault_items()}
    assert sorted(items) == ["A", "C"]  # B could not be resolved
    assert (items["A"].reachable, items["A"].check_stamp, items["A"].start_timestamp) == (True, 3000, 3000)
    p.upd("A", 10, reachable=False)
    p.clock.ms = 2999  # not due yet: nothing changes
    p.strategy.detect_by_one_round(addresses.get, lambda addr, timeout: True)
    assert not p.strategy.latency_fault_tolerance.is_reachable("A")


def test_5x_pick_one_at_least_takes_a_reachable_item():
    p = Producer("5.3.3", "A:1,B:1", clock=0, idx=0)
    p.upd("A", 600, reachable=False)
    p.upd("B", 700)
    tolerance = p.strategy.latency_fault_tolerance
    assert tolerance.pick_one_at_least(p.strategy.shuffle_random) == "B"


def test_4x_pick_one_at_least_takes_the_better_half():
    p = Producer("4.9.8", clock=0)
    p.upd("A", 1001)
    p.upd("B", 1000)
    tolerance = p.strategy.latency_fault_tolerance
    assert tolerance.pick_one_at_least() == "B"
    for name, latency in [("C", 2000), ("D", 3000)]:
        p.upd(name, latency)
    p.strategy.which_item_worst.pin(0, seed=1)
    assert [tolerance.pick_one_at_least() for _ in range(3)] == ["A", "B", "A"]  # 1 % 2, 2 % 2, 3 % 2


@pytest.mark.parametrize(
    "arg, n, expected",
    [("123", 10, 0), ("234", 10, 3), ("order-1", 10, 0), ("\U0001F600x", 10, 9), (JavaInteger(-7), 5, 2), (JavaLong(-1), 3, 0)],
)
@pytest.mark.parametrize("version", RELEASES)
def test_hash_selector(version, arg, n, expected):
    mqs = [MessageQueue("TopicTest", "broker-a", q) for q in range(n)]
    assert SelectMessageQueueByHash(version=version).select(mqs, None, arg) is mqs[expected]


@pytest.mark.parametrize("arg", ["polygenelubricants", "GydZG_", "DESIGNING WORKHOUSES", JavaLong(2**31)])
def test_hash_selector_on_int_min(arg):
    mqs = [MessageQueue("TopicTest", "broker-a", q) for q in range(10)]
    with pytest.raises(IndexError, match="Index -8 out of bounds for length 10"):
        SelectMessageQueueByHash(version="4.7.1").select(mqs, None, arg)
    assert SelectMessageQueueByHash(version="4.7.1").select(mqs[:8], None, arg) is mqs[0]
    assert SelectMessageQueueByHash(version="4.9.8").select(mqs, None, arg) is mqs[8]


def test_hash_selector_failures():
    selector = SelectMessageQueueByHash(version="5.3.3")
    with pytest.raises(TypeError):
        selector.select([MessageQueue("T", "b", 0)], None, None)
    with pytest.raises(ZeroDivisionError):
        selector.select([], None, "x")


def test_random_selector():
    mqs = [MessageQueue("TopicTest", "broker-a", q) for q in range(5)]
    selector = SelectMessageQueueByRandom(version="4.7.1", seed=0)
    assert [selector.select(mqs, None, None).queue_id for _ in range(5)] == [0, 3, 4, 2, 0]
    with pytest.raises(ValueError, match="bound must be positive"):
        selector.select([], None, None)
