"""``TopicPublishInfo``: a topic's publish list with its counter, and how a route becomes one.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from pytest_rmq_conformance.javalang import (
    INT_MAX,
    INT_MIN,
    java_abs,
    java_int,
    java_list_get,
    java_rem,
    java_split,
    java_string_key,
)
from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.ports.producer.contract import MASTER_ID, PERM_WRITE, QueueData, TopicRouteData
from pytest_rmq_conformance.ports.producer.counter import ThreadLocalIndex, producer_release
from pytest_rmq_conformance.releases import PORT_RELEASE

__all__ = ["TopicPublishInfo", "QueueFilter", "topic_route_data_to_topic_publish_info"]

#: 5.x ``QueueFilter``: accepts a queue or not
QueueFilter = Callable[[MessageQueue], bool]


class TopicPublishInfo:
    """Java ``TopicPublishInfo``: ``queues`` (the publish list itself, entries replaceable),
    its counter ``send_which_queue`` and the route's ``queue_datas`` (sorted as Java sorted
    them in place).

    >>> info = TopicPublishInfo([MessageQueue("T", b, q) for b in "AB" for q in (0, 1)], version="4.9.8")
    >>> info.send_which_queue.pin(0, seed=1)
    >>> info.select_one_message_queue("A").label(), info.send_which_queue.stored
    ('T@B@0', 2)
    """

    def __init__(
        self,
        queues: Iterable[MessageQueue] = (),
        *,
        version: str = PORT_RELEASE,
        queue_datas: Iterable[QueueData] = (),
        order_topic: bool = False,
        send_which_queue: ThreadLocalIndex | None = None,
    ) -> None:
        self.version = version
        self._release = producer_release(version)
        self.queues: list[MessageQueue] = list(queues)
        self.queue_datas: list[QueueData] = list(queue_datas)
        self.order_topic = order_topic
        self.send_which_queue = ThreadLocalIndex(version=version) if send_which_queue is None else send_which_queue

    def ok(self) -> bool:
        """Whether there is a queue to send to."""
        return bool(self.queues)

    def next_position(self) -> int:
        """One counter step and the position it picks (the core of ``selectOneMessageQueue()``);
        ``ZeroDivisionError`` for an empty list, after the step."""
        value = self.send_which_queue.increment_and_get()
        if self._release >= (5, 0, 0):
            return java_rem(value, len(self.queues))
        return max(java_rem(java_abs(value), len(self.queues)), 0)

    def walk(self, index: int) -> Iterator[int]:
        """4.x: the positions probed from counter value ``index`` on a local copy, one per
        queue; past ``INT_MAX`` the copy wraps and ``Math.abs`` walks it backwards."""
        size = len(self.queues)
        for _ in range(size):
            if 0 <= index < INT_MAX:  # the usual: Math.abs and % change nothing, the copy does not wrap
                yield index % size
                index += 1
                continue
            yield max(java_rem(java_abs(index), size), 0)
            index = java_int(index + 1)

    def select_one_message_queue(self, last_broker_name: str | None = None) -> MessageQueue:
        """Round robin; with ``last_broker_name`` the first probed queue of another broker, else
        one more plain step. 4.7.1 takes one counter step and walks locally; later releases
        take one step per probe."""
        if last_broker_name is not None:
            if self._release < (4, 9, 8):
                probes: Iterable[int] = self.walk(self.send_which_queue.increment_and_get())
            else:
                probes = (self.next_position() for _ in range(len(self.queues)))
            for pos in probes:
                mq = self.queues[pos]
                if mq.broker_name != last_broker_name:
                    return mq
        return self.queues[self.next_position()]

    def select_one_message_queue_filtered(self, *filters: QueueFilter) -> MessageQueue | None:
        """5.x ``selectOneMessageQueue(QueueFilter...)``: up to one probe per queue, every filter
        asked every time; ``None`` when none passes or the list is empty."""
        self._require_5x("selectOneMessageQueue(QueueFilter...)")
        if not self.queues:
            return None
        if not filters:
            return self.queues[self.next_position()]
        for _ in range(len(self.queues)):
            mq = self.queues[self.next_position()]
            if all([accepts(mq) for accepts in filters]):  # no short circuit, as in Java
                return mq
        return None

    def reset_index(self) -> None:
        """5.x: restart the counter at a random value."""
        self._require_5x("resetIndex()")
        self.send_which_queue.reset()

    def get_queue_id_by_broker(self, broker_name: str | None) -> int:
        """The ``writeQueueNums`` of the first queue data of ``broker_name`` (4.9.8: of the first
        writable one), ``-1`` if none. 5.x calls it ``getWriteQueueNumsByBroker``."""
        writable_only = self._release == (4, 9, 8)
        for data in self.queue_datas:
            if data.broker_name == broker_name and (not writable_only or data.perm & PERM_WRITE):
                return data.write_queue_nums
        return -1

    get_write_queue_nums_by_broker = get_queue_id_by_broker

    def _require_5x(self, what: str) -> None:
        if self._release < (5, 0, 0):
            raise NotImplementedError(f"TopicPublishInfo.{what} is new in 5.x, not in {self.version}")

    def __repr__(self) -> str:
        return f"TopicPublishInfo(version={self.version!r}, queues={[mq.label() for mq in self.queues]})"


_JAVA_INT = re.compile(r"[+-]?[0-9]+")


def _parse_int(text: str) -> int:
    """``Integer.parseInt``: ``ValueError`` (NumberFormatException) for anything but an int."""
    if _JAVA_INT.fullmatch(text) is None or not INT_MIN <= int(text) <= INT_MAX:
        raise ValueError(f'For input string: "{text}"')
    return int(text)


def topic_route_data_to_topic_publish_info(
    topic: str, route: TopicRouteData, *, version: str = PORT_RELEASE
) -> TopicPublishInfo:
    """Java ``MQClientInstance.topicRouteData2TopicPublishInfo`` (same in all three releases).

    A non-empty ``order_topic_conf`` (``"brokerA:4;brokerB:4"``) gives its queues in the
    written order. Otherwise the queue datas are sorted by broker name (Java string order,
    stable) and every writable one whose broker has a master (id 0) in the first broker data
    of its name gives ``broker/0 .. broker/n-1``.
    """
    conf = route.order_topic_conf
    if conf:
        queues = []
        for entry in java_split(conf, ";"):
            item = java_split(entry, ":")
            count = _parse_int(java_list_get(item, 1))
            queues += [MessageQueue(topic, item[0], i) for i in range(count)]
        return TopicPublishInfo(queues, version=version, queue_datas=route.queue_datas, order_topic=True)
    queue_datas = sorted(route.queue_datas, key=lambda data: java_string_key(data.broker_name))
    queues = []
    for data in queue_datas:
        if not data.perm & PERM_WRITE:
            continue
        broker = next((b for b in route.broker_datas if b.broker_name == data.broker_name), None)
        if broker is None or MASTER_ID not in broker.broker_addrs:
            continue
        queues += [MessageQueue(topic, data.broker_name, i) for i in range(data.write_queue_nums)]
    return TopicPublishInfo(queues, version=version, queue_datas=queue_datas)
