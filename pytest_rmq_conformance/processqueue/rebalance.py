"""``RebalanceImpl`` for push, pull and lite-pull consumers: one client's process-queue table.

A rebalance asks the strategy for this client's share of each subscribed
topic and updates ``process_queue_table``: queues no longer assigned (and,
for push consumers, pull-expired ones) are dropped and removed if removal
succeeds, else stay as zombies; newly assigned queues get a fresh
:class:`ProcessQueue` (an orderly push consumer only with the broker's lock).

    >>> from pytest_rmq_conformance import MessageQueue
    >>> from pytest_rmq_conformance.engine.kinds import reference_strategy
    >>> from pytest_rmq_conformance.processqueue import Broker, ManualClock
    >>> clock = ManualClock(); broker = Broker(clock)
    >>> queues = [MessageQueue("T", "broker-a", i) for i in range(4)]
    >>> broker.register("g", "c1"); broker.register("g", "c2")
    >>> impl = RebalancePushImpl("g", "c1", reference_strategy("AVG"), broker, clock=clock)
    >>> impl.subscribe("T", queues)
    >>> impl.do_rebalance()
    True
    >>> sorted(mq.queue_id for mq in impl.process_queue_table)
    [0, 1]

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pytest_rmq_conformance.javalang import java_sorted_strings
from pytest_rmq_conformance.model import MessageQueue, java_sorted_queues
from pytest_rmq_conformance.processqueue.broker import Broker, BrokerUnavailable
from pytest_rmq_conformance.processqueue.clock import Timers, as_clock
from pytest_rmq_conformance.processqueue.config import ClientConfig, client_version
from pytest_rmq_conformance.processqueue.offset_store import (
    CONSUME_FROM_FIRST_OFFSET,
    CONSUME_FROM_LAST_OFFSET,
    CONSUME_FROM_TIMESTAMP,
    MEMORY_FIRST_THEN_STORE,
    READ_FROM_STORE,
    RETRY_GROUP_TOPIC_PREFIX,
    OffsetStore,
)
from pytest_rmq_conformance.processqueue.process_queue import ProcessQueue

__all__ = [
    "CLUSTERING",
    "BROADCASTING",
    "CONSUME_PASSIVELY",
    "CONSUME_ACTIVELY",
    "MQClientException",
    "PullRequest",
    "RebalanceImpl",
    "RebalancePushImpl",
    "RebalancePullImpl",
    "RebalanceLitePullImpl",
    "REBALANCE_KINDS",
]

CLUSTERING = "CLUSTERING"
BROADCASTING = "BROADCASTING"
CONSUME_PASSIVELY = "CONSUME_PASSIVELY"  # push
CONSUME_ACTIVELY = "CONSUME_ACTIVELY"  # pull and lite pull


@lru_cache(maxsize=256)
def _java_order(mq_set: frozenset[MessageQueue]) -> tuple[MessageQueue, ...]:
    """``Collections.sort`` of a route's queues (remembered: routes rarely change)."""
    return tuple(java_sorted_queues(mq_set))


def _queue_key(mq: MessageQueue) -> tuple:
    """A fixed order for walking a set of queues (not Java's: nothing observable depends on it)."""
    return (mq.topic, mq.broker_name, mq.queue_id)


class MQClientException(Exception):
    """Java's ``MQClientException``: a start offset could not be computed."""


@dataclass
class PullRequest:
    """The first pull of a newly added queue: where it starts."""

    consumer_group: str
    message_queue: MessageQueue
    process_queue: ProcessQueue
    next_offset: int
    previously_locked: bool = False


class RebalanceImpl:
    """The part every consumer type shares; see the subclasses.

    ``strategy`` has Java's ``allocate(consumer_group, current_cid, mq_all, cid_all)``;
    ``broker`` is a :class:`Broker`; ``timers`` runs delayed calls (the delayed unlock,
    ``rebalance_later``); ``version`` is one of ``CLIENT_VERSIONS`` (``"4.9.8"``, ``"5.3.3"``, ``"5.5.0"``).
    """

    CONSUME_TYPE = CONSUME_ACTIVELY

    def __init__(
        self,
        consumer_group: str,
        client_id: str,
        strategy: Any,
        broker: Broker,
        *,
        clock=None,
        timers: Timers | None = None,
        version: str = "5.3.3",
        config: ClientConfig = ClientConfig(),
        message_model: str = CLUSTERING,
        consume_orderly: bool = False,
        consume_from_where: str = CONSUME_FROM_LAST_OFFSET,
        consume_timestamp: int = 0,
        offset_store: OffsetStore | None = None,
    ):
        if message_model not in (CLUSTERING, BROADCASTING):
            raise ValueError(f"message_model must be {CLUSTERING} or {BROADCASTING}, not {message_model!r}")
        self.consumer_group = consumer_group
        self.client_id = client_id
        self.allocate_message_queue_strategy = strategy
        self.broker = broker
        self.clock = as_clock(clock) if clock is not None else broker.clock
        self.timers = timers if timers is not None else Timers(self.clock)
        self.version = client_version(version)
        self.config = config
        self.message_model = message_model
        self.consume_orderly = consume_orderly
        self.consume_from_where = consume_from_where
        self.consume_timestamp = consume_timestamp
        self.offset_store = offset_store if offset_store is not None else OffsetStore(broker, consumer_group)
        self.process_queue_table: dict[MessageQueue, ProcessQueue] = {}
        self.topic_subscribe_info_table: dict[str, set[MessageQueue]] = {}
        self.subscription_inner: dict[str, int] = {}  # topic -> sub version
        #: pull requests handed to the pull service: ``(due time, request)``
        self.pull_requests: list[tuple] = []
        #: called with ``(requests, delay)`` instead of recording them, when set
        self.on_pull_requests: Callable[[list[PullRequest], int], None] | None = None
        #: 5.3.3 ``rebalanceLater`` delays asked for
        self.rebalance_later_requests: list[int] = []
        self.allocate_errors: list[tuple] = []
        self.balanced: dict[str, bool] = {}
        self.paused = False
        #: false once the client has shut down or crashed: its delayed calls do nothing
        self.running = True

    # -- Java's accessors ----------------------------------------------------

    def consume_type(self) -> str:
        """``CONSUME_PASSIVELY`` (push) or ``CONSUME_ACTIVELY`` (pull, lite pull)."""
        return self.CONSUME_TYPE

    def get_process_queue_table(self) -> dict[MessageQueue, ProcessQueue]:
        return self.process_queue_table

    def get_topic_subscribe_info_table(self) -> dict[str, set[MessageQueue]]:
        return self.topic_subscribe_info_table

    def get_subscription_inner(self) -> dict[str, int]:
        return self.subscription_inner

    def get_allocate_message_queue_strategy(self) -> Any:
        return self.allocate_message_queue_strategy

    def set_allocate_message_queue_strategy(self, strategy: Any) -> None:
        self.allocate_message_queue_strategy = strategy

    # -- subscriptions ------------------------------------------------------

    def subscribe(self, topic: str, mq_set: Iterable[MessageQueue] | None) -> None:
        """Subscribe to ``topic`` whose route holds ``mq_set`` (``None``: no route known)."""
        self.subscription_inner.setdefault(topic, self.clock.now())
        self.update_topic_route(topic, mq_set)

    def update_topic_route(self, topic: str, mq_set: Iterable[MessageQueue] | None) -> None:
        if mq_set is None:
            self.topic_subscribe_info_table.pop(topic, None)
        else:
            self.topic_subscribe_info_table[topic] = set(mq_set)

    def unsubscribe(self, topic: str) -> None:
        self.subscription_inner.pop(topic, None)

    # -- rebalancing -----------------------------------------------------------

    def do_rebalance(self, is_order: bool = False) -> bool | None:
        """Rebalance every subscribed topic; 5.3.3 returns whether all are balanced, 4.9.8 ``None``."""
        balanced = True
        for topic in list(self.subscription_inner):
            try:
                if not self.rebalance_by_topic(topic, is_order):
                    balanced = False
            except Exception:
                if not topic.startswith(RETRY_GROUP_TOPIC_PREFIX):
                    balanced = False
        self.truncate_message_queue_not_my_topic()
        return balanced if self.version != "4.9.8" else None

    def _working_message_queues(self, topic: str) -> set[MessageQueue]:
        return {mq for mq, pq in self.process_queue_table.items() if mq.topic == topic and not pq.dropped}

    def allocate(self, topic: str, mq_all: list[MessageQueue], cid_all: list[str]) -> set[MessageQueue]:
        """The strategy's answer as a set (raises what the strategy raises)."""
        result = self.allocate_message_queue_strategy.allocate(self.consumer_group, self.client_id, mq_all, cid_all)
        return set(result) if result is not None else set()

    def rebalance_by_topic(self, topic: str, is_order: bool) -> bool:
        mq_set = self.topic_subscribe_info_table.get(topic)
        if self.message_model == BROADCASTING:
            if mq_set is None:
                if self.version != "4.9.8" and not topic.startswith(RETRY_GROUP_TOPIC_PREFIX):
                    self.message_queue_changed(topic, set(), set())
                return True
            need_lock = is_order if self.version == "4.9.8" else False
            if self.update_process_queue_table_in_rebalance(topic, set(mq_set), need_lock):
                self.message_queue_changed(topic, set(mq_set), set(mq_set))
            self.balanced[topic] = set(mq_set) == self._working_message_queues(topic)
            return self.balanced[topic]
        if self.version == "5.5.0":  # an empty route or consumer list ends the rebalance, balanced
            if not mq_set:
                if not topic.startswith(RETRY_GROUP_TOPIC_PREFIX):
                    self.message_queue_changed(topic, set(), set())
                return True
            cid_all = self.broker.find_consumer_id_list(topic, self.consumer_group)
            if not cid_all:
                return True
        else:
            cid_all = self.broker.find_consumer_id_list(topic, self.consumer_group)
            if mq_set is None and self.version != "4.9.8" and not topic.startswith(RETRY_GROUP_TOPIC_PREFIX):
                self.message_queue_changed(topic, set(), set())
            if mq_set is None or cid_all is None:
                return True
        mq_all = list(_java_order(frozenset(mq_set)))
        cid_all = java_sorted_strings(cid_all)
        try:
            allocated = self.allocate(topic, mq_all, cid_all)
        except Exception as exc:  # Java logs it and leaves the table as it is
            self.allocate_errors.append((self.clock.now(), topic, exc))
            return False
        if self.update_process_queue_table_in_rebalance(topic, allocated, is_order):
            self.message_queue_changed(topic, set(mq_set), allocated)
        self.balanced[topic] = allocated == self._working_message_queues(topic)
        return self.balanced[topic]

    def update_process_queue_table_in_rebalance(self, topic: str, mq_set: set[MessageQueue], need_lock: bool) -> bool:
        """Drop what is no longer ours (or pull-expired, push only), add what is new; ``changed``."""
        changed = False
        candidates = []
        for mq, pq in list(self.process_queue_table.items()):
            if mq.topic != topic:
                continue
            if mq not in mq_set or (pq.is_pull_expired() and self.consume_type() == CONSUME_PASSIVELY):
                pq.dropped = True
                candidates.append((mq, pq))
        for mq, pq in candidates:
            if self.remove_unnecessary_message_queue(mq, pq):
                del self.process_queue_table[mq]
                changed = True
        all_locked = True
        requests = []
        for mq in sorted(mq_set, key=_queue_key):
            if mq in self.process_queue_table:
                continue
            if need_lock and not self.lock(mq):
                all_locked = False
                continue
            self.remove_dirty_offset(mq)
            pq = self.create_process_queue()
            pq.locked = True
            if self.version == "4.9.8":
                try:
                    next_offset = self.compute_pull_from_where_with_exception(mq)
                except MQClientException:
                    continue
            else:
                next_offset = self.compute_pull_from_where(mq)
            if next_offset < 0:
                continue
            if mq not in self.process_queue_table:
                self.process_queue_table[mq] = pq
                requests.append(PullRequest(self.consumer_group, mq, pq, next_offset))
                changed = True
        if self.version != "4.9.8" and not all_locked:
            self.rebalance_later(500)
        self.dispatch_pull_request(requests, 500)
        return changed

    def create_process_queue(self) -> ProcessQueue:
        return ProcessQueue(self.clock, self.config, self.version)

    def remove_dirty_offset(self, mq: MessageQueue) -> None:
        self.offset_store.remove_offset(mq)

    def rebalance_later(self, delay: int) -> None:
        """Ask for another rebalance ``delay`` ms from now (recorded in ``rebalance_later_requests``)."""
        self.rebalance_later_requests.append(delay)

    def rebalance_immediately(self) -> None:
        self.rebalance_later(0)

    def dispatch_pull_request(self, requests: list[PullRequest], delay: int) -> None:
        """Lite pull and pull consumers start no pull chain here."""

    def _hand_over(self, requests: list[PullRequest], delay: int) -> None:
        if not requests:
            return
        if self.on_pull_requests is not None:
            self.on_pull_requests(requests, delay)
        else:
            self.pull_requests.extend((self.clock.now() + delay, request) for request in requests)

    def remove_unnecessary_message_queue(self, mq: MessageQueue, pq: ProcessQueue) -> bool:
        """Persist and forget the queue's offset; whether the queue may leave the table."""
        self.offset_store.persist(mq)
        self.offset_store.remove_offset(mq)
        return True

    def message_queue_changed(self, topic: str, mq_all: set[MessageQueue], mq_divided: set[MessageQueue]) -> None:
        """Hook run after a change of this client's share of ``topic``."""

    # -- offsets ---------------------------------------------------------------

    def compute_pull_from_where_with_exception(self, mq: MessageQueue) -> int:
        raise NotImplementedError

    def compute_pull_from_where(self, mq: MessageQueue) -> int:
        """The start offset, -1 when it cannot be computed."""
        try:
            return self.compute_pull_from_where_with_exception(mq)
        except MQClientException:
            return -1

    def _max_offset(self, mq: MessageQueue) -> int:
        try:
            return self.broker.max_offset(mq)
        except BrokerUnavailable as exc:
            raise MQClientException(str(exc)) from exc

    def _search_offset(self, mq: MessageQueue) -> int:
        try:
            return self.broker.search_offset(mq, self.consume_timestamp)
        except BrokerUnavailable as exc:
            raise MQClientException(str(exc)) from exc

    # -- locks -------------------------------------------------------------------

    def lock(self, mq: MessageQueue) -> bool:
        """Ask the broker for ``mq``'s lock; a granted queue in the table is marked locked now.
        A refusal or failure leaves the table's flags alone."""
        try:
            granted = self.broker.lock_batch_mq(self.consumer_group, self.client_id, [mq])
        except BrokerUnavailable:
            return False
        for locked_mq in granted:
            pq = self.process_queue_table.get(locked_mq)
            if pq is not None:
                pq.locked = True
                pq.last_lock_timestamp = self.clock.now()
        return mq in granted

    def _by_broker(self) -> dict[str, list[MessageQueue]]:
        table: dict[str, list[MessageQueue]] = {}
        for mq, pq in self.process_queue_table.items():
            if self.version != "4.9.8" and pq.dropped:
                continue
            table.setdefault(mq.broker_name, []).append(mq)
        return table

    def lock_all(self) -> None:
        """Renew every queue's lock, one batch per broker (4.9.8 renews zombies too):
        granted -> locked and renewed; refused -> unlocked; a failed call changes nothing."""
        for _, mqs in sorted(self._by_broker().items()):
            try:
                granted = self.broker.lock_batch_mq(self.consumer_group, self.client_id, mqs)
            except BrokerUnavailable:
                continue
            for mq in mqs:
                pq = self.process_queue_table.get(mq)
                if pq is None:
                    continue
                if mq in granted:
                    pq.locked = True
                    pq.last_lock_timestamp = self.clock.now()
                else:
                    pq.locked = False

    def unlock(self, mq: MessageQueue, oneway: bool = True) -> None:
        """Only the RPC: the queue's ``locked`` flag stays."""
        try:
            self.broker.unlock_batch_mq(self.consumer_group, self.client_id, [mq])
        except BrokerUnavailable:
            pass

    def unlock_all(self, oneway: bool = True) -> None:
        """Release every lock (orderly shutdown) and clear ``locked``."""
        for _, mqs in sorted(self._by_broker().items()):
            try:
                self.broker.unlock_batch_mq(self.consumer_group, self.client_id, mqs)
            except BrokerUnavailable:
                continue
            for mq in mqs:
                pq = self.process_queue_table.get(mq)
                if pq is not None:
                    pq.locked = False

    # -- other drops ---------------------------------------------------------------

    def truncate_message_queue_not_my_topic(self) -> None:
        """Drop and remove the queues of topics no longer subscribed (no persist, no unlock)."""
        for mq in list(self.process_queue_table):
            if mq.topic not in self.subscription_inner:
                self.process_queue_table.pop(mq).dropped = True

    def remove_process_queue(self, mq: MessageQueue) -> None:
        """After OFFSET_ILLEGAL: remove, drop, then the removal steps (their answer ignored)."""
        pq = self.process_queue_table.pop(mq, None)
        if pq is not None:
            pq.dropped = True
            self.remove_unnecessary_message_queue(mq, pq)

    def destroy(self) -> None:
        for pq in self.process_queue_table.values():
            pq.dropped = True
        self.process_queue_table.clear()

    def reset_offset(self, topic: str, offset_table: dict[MessageQueue, int]) -> None:
        """``MQClientInstance.resetOffset``: pause, drop and clear the topic's queues named in
        ``offset_table``; 10 s later set their offsets, run the removal steps, take them out of
        the table and resume (the next rebalance adds them afresh)."""
        self.paused = True
        for mq, pq in self.process_queue_table.items():
            if mq.topic == topic and mq in offset_table:
                pq.dropped = True
                pq.clear()

        def apply() -> None:
            for mq in list(self.process_queue_table):
                if mq.topic == topic and mq in offset_table:
                    self.offset_store.update_offset(mq, offset_table[mq], False)
                    self.remove_unnecessary_message_queue(mq, self.process_queue_table[mq])
                    del self.process_queue_table[mq]
            self.paused = False

        self.timers.schedule(10000, apply, f"reset offset {topic}")


class RebalancePushImpl(RebalanceImpl):
    """A push consumer (``CONSUME_PASSIVELY``): pull-expired queues are dropped, orderly queues
    need the broker's lock, and removal of an orderly queue may fail (a zombie stays)."""

    CONSUME_TYPE = CONSUME_PASSIVELY
    #: Java's default (the instance's own is ``config.unlock_delay_time_mills``)
    UNLOCK_DELAY_TIME_MILLS = ClientConfig.unlock_delay_time_mills

    def __init__(self, *args, pull_threshold_for_queue: int = 1000, pull_threshold_for_topic: int = -1,
                 pull_threshold_size_for_queue: int = 100, pull_threshold_size_for_topic: int = -1, **kwargs):
        super().__init__(*args, **kwargs)
        self.pull_threshold_for_queue = pull_threshold_for_queue
        self.pull_threshold_for_topic = pull_threshold_for_topic
        self.pull_threshold_size_for_queue = pull_threshold_size_for_queue
        self.pull_threshold_size_for_topic = pull_threshold_size_for_topic
        #: ``MessageQueueListener`` of 5.3.3: called with ``(topic, mq_all, mq_divided)``
        self.message_queue_listener: Callable[[str, set[MessageQueue], set[MessageQueue]], None] | None = None
        self.listener_errors: list[tuple] = []
        self.heartbeats = 0

    def do_rebalance(self, is_order: bool | None = None) -> bool | None:
        """``is_order`` defaults to ``consume_orderly``; a paused consumer skips the run."""
        if self.paused:
            return False if self.version != "4.9.8" else None
        return super().do_rebalance(self.consume_orderly if is_order is None else is_order)

    def _orderly_clustering(self) -> bool:
        return self.consume_orderly and self.message_model == CLUSTERING

    def remove_unnecessary_message_queue(self, mq: MessageQueue, pq: ProcessQueue) -> bool:
        """Persist and forget the offset; an orderly CLUSTERING queue also gives its broker lock
        back, which needs its consume lock (4.9.8: within 1 s; 5.3.3: see
        :meth:`try_remove_order_message_queue`). ``False`` leaves a zombie in the table."""
        if self.version == "4.9.8":
            self.offset_store.persist(mq)
            self.offset_store.remove_offset(mq)
            if not self._orderly_clustering():
                return True
            if pq.consume_lock.try_lock(self.clock.now(), 1000):
                return self.unlock_delay(mq, pq)
            pq.try_unlock_times += 1
            return False
        if not self._orderly_clustering():
            return super().remove_unnecessary_message_queue(mq, pq)
        self.offset_store.persist(mq)
        return self.try_remove_order_message_queue(mq, pq)

    def unlock_delay(self, mq: MessageQueue, pq: ProcessQueue) -> bool:
        """4.9.8: release the broker lock now, or ``UNLOCK_DELAY_TIME_MILLS`` later when messages
        are cached (a client that stopped meanwhile sends nothing)."""
        if pq.has_temp_message():

            def later() -> None:
                if self.running:
                    self.unlock(mq)

            self.timers.schedule(self.config.unlock_delay_time_mills, later, f"unlock {mq}")
        else:
            self.unlock(mq)
        return True

    def try_remove_order_message_queue(self, mq: MessageQueue, pq: ProcessQueue) -> bool:
        """5.3.3: forced when the dropped queue's lock is older than 20 s, else only if the
        consume (write) lock comes within 500 ms: persist, forget the offset, clear ``locked``,
        unlock."""
        now = self.clock.now()
        force = pq.dropped and now > pq.last_lock_timestamp + self.config.unlock_delay_time_mills
        if force or pq.consume_lock.try_lock(now, 500):
            self.offset_store.persist(mq)
            self.offset_store.remove_offset(mq)
            pq.locked = False
            self.unlock(mq)
            return True
        pq.try_unlock_times += 1
        return False

    def dispatch_pull_request(self, requests: list[PullRequest], delay: int) -> None:
        """4.9.8 pulls at once; 5.3.3 after ``delay`` (500 ms)."""
        self._hand_over(requests, 0 if self.version == "4.9.8" else delay)

    def message_queue_changed(self, topic: str, mq_all: set[MessageQueue], mq_divided: set[MessageQueue]) -> None:
        """New sub version, per-queue flow thresholds from the topic's, a heartbeat."""
        self.subscription_inner[topic] = self.clock.now()
        count = len(self.process_queue_table)
        if count:
            if self.pull_threshold_for_topic != -1:
                self.pull_threshold_for_queue = max(1, self.pull_threshold_for_topic // count)
            if self.pull_threshold_size_for_topic != -1:
                self.pull_threshold_size_for_queue = max(1, self.pull_threshold_size_for_topic // count)
        self.heartbeats += 1
        if self.version != "4.9.8" and self.message_queue_listener is not None:
            try:
                self.message_queue_listener(topic, mq_all, mq_divided)
            except Exception as exc:  # Java logs what the user's listener throws
                self.listener_errors.append((self.clock.now(), topic, exc))

    def compute_pull_from_where_with_exception(self, mq: MessageQueue) -> int:
        last = self.offset_store.read_offset(mq, READ_FROM_STORE)
        retry = mq.topic.startswith(RETRY_GROUP_TOPIC_PREFIX)
        if last >= 0:
            result = last
        elif last == -1:
            if self.consume_from_where == CONSUME_FROM_FIRST_OFFSET:
                result = 0
            elif self.consume_from_where == CONSUME_FROM_TIMESTAMP:
                result = self._max_offset(mq) if retry else self._search_offset(mq)
            else:
                result = 0 if retry else self._max_offset(mq)
        elif self.version == "4.9.8":
            result = -1
        else:
            raise MQClientException(f"Failed to query consume offset of {mq} from offset store")
        if self.version != "4.9.8" and result < 0:
            raise MQClientException(f"Found unexpected result {result}")
        return result



class RebalancePullImpl(RebalanceImpl):
    """A pull consumer: removal always succeeds and every queue starts at offset 0."""

    def compute_pull_from_where_with_exception(self, mq: MessageQueue) -> int:
        return 0


class RebalanceLitePullImpl(RebalanceImpl):
    """A lite-pull consumer. Its ``assigned_message_queue`` (Java's ``AssignedMessageQueue``)
    shares the table's ProcessQueue objects and drops the ones no longer assigned."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.assigned_message_queue: dict[MessageQueue, ProcessQueue] = {}

    def compute_pull_from_where_with_exception(self, mq: MessageQueue) -> int:
        last = self.offset_store.read_offset(mq, MEMORY_FIRST_THEN_STORE)
        if last >= 0:
            return last
        if last != -1:
            return -1
        retry = mq.topic.startswith(RETRY_GROUP_TOPIC_PREFIX)
        try:
            if self.consume_from_where == CONSUME_FROM_FIRST_OFFSET:
                return 0
            if self.consume_from_where == CONSUME_FROM_TIMESTAMP:
                return self._max_offset(mq) if retry else self._search_offset(mq)
            return 0 if retry else self._max_offset(mq)
        except MQClientException:
            return -1

    def message_queue_changed(self, topic: str, mq_all: set[MessageQueue], mq_divided: set[MessageQueue]) -> None:
        """``updateAssignedMessageQueue``: drop this topic's queues not in ``mq_divided``, add the new."""
        for mq in list(self.assigned_message_queue):
            if mq.topic == topic and mq not in mq_divided:
                self.assigned_message_queue.pop(mq).dropped = True
        for mq in sorted(mq_divided, key=_queue_key):
            if mq not in self.assigned_message_queue:
                pq = self.process_queue_table.get(mq)
                self.assigned_message_queue[mq] = pq if pq is not None else self.create_process_queue()


REBALANCE_KINDS = {"push": RebalancePushImpl, "pull": RebalancePullImpl, "lite-pull": RebalanceLitePullImpl}

