"""A small producer client, written the way a client is (not to the suite's contract): RocketMQ
5.3.3's queue selection, with the round-robin counter kept inside the publish info as a plain
``int`` (``PublishInfo.index``). ``adapter.py`` shows the few lines that hand it to the suite."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_rmq_conformance import (
    INT_MAX,
    JavaConcurrentHashMap,
    JavaRandom,
    MessageQueue,
    java_int,
    java_long,
    java_string_key,
    mask31,
)

LATENCY_STEPS = [50, 100, 550, 1800, 3000, 5000, 15000]
PENALTIES = [0, 0, 2000, 5000, 6000, 10000, 30000]


class PublishInfo:
    """A topic's queues, the counter (``index``: ``None`` until the first send) and its random start."""

    def __init__(self, queues: list[MessageQueue], seed: int):
        self.queues, self.index, self.random = queues, None, JavaRandom(seed)

    def step(self) -> int:
        """The next position: one counter step (``ZeroDivisionError`` when there is no queue)."""
        self.index = java_int((self.random.next_int() if self.index is None else self.index) + 1)
        return mask31(self.index) % len(self.queues)

    def probe(self, *accepts) -> MessageQueue | None:
        """Up to one round of steps for a queue every test accepts."""
        for _ in range(len(self.queues)):
            queue = self.queues[self.step()]
            if all([accept(queue) for accept in accepts]):
                return queue
        return None

    def next_queue(self, avoid: str | None = None) -> MessageQueue:
        found = None if avoid is None else self.probe(lambda queue: queue.broker_name != avoid)
        return found if found is not None else self.queues[self.step()]


@dataclass
class Health:
    latency: int = 0
    until: int = 0  # unavailable before this time
    reachable: bool = True
    next_check: int = 0


class Producer:
    def __init__(self, now):
        self.now = now  # a callable: milliseconds
        self.avoid_slow_brokers = False
        self.latency_steps, self.penalties = list(LATENCY_STEPS), list(PENALTIES)
        self.health: JavaConcurrentHashMap[Health] = JavaConcurrentHashMap(16)

    def publish_info(self, topic: str, queue_datas, brokers_with_master: set[str], order_conf: str | None, seed: int) -> PublishInfo:
        if order_conf:
            pairs = [entry.split(":") for entry in order_conf.split(";")]
            return PublishInfo([MessageQueue(topic, name, i) for name, count in pairs for i in range(int(count))], seed)
        queues = [
            MessageQueue(topic, name, i)
            for name, count, writable in sorted(queue_datas, key=lambda data: java_string_key(data[0]))
            if writable and name in brokers_with_master
            for i in range(count)
        ]
        return PublishInfo(queues, seed)

    def choose(self, info: PublishInfo, last_broker: str | None, retry: bool) -> MessageQueue | None:
        def elsewhere(queue):
            return last_broker is None or queue.broker_name != last_broker

        if not self.avoid_slow_brokers:
            return info.probe(elsewhere) or info.queues[info.step()]
        if retry:
            info.index = info.random.next_int(INT_MAX)
        now = self.now()
        for usable in (lambda q: self._health(q).until <= now, lambda q: self._health(q).reachable):
            found = info.probe(usable, elsewhere)
            if found is not None:
                return found
        return info.queues[info.step()]

    def _health(self, queue: MessageQueue) -> Health:
        return self.health.get(queue.broker_name) or Health()

    def record(self, broker: str, latency: int, failed_hard: bool, reachable: bool) -> None:
        if not self.avoid_slow_brokers:
            return
        priced = 10000 if failed_hard else latency
        penalty = next((self.penalties[i] for i in reversed(range(len(self.latency_steps))) if priced >= self.latency_steps[i]), 0)
        health = self.health.get(broker) or Health()
        until = java_long(self.now() + penalty)
        self.health.put(broker, Health(latency, until if penalty > 0 and until > health.until else health.until, reachable, health.next_check))

    def check_brokers(self, address_of, responds) -> None:
        for broker, health in list(self.health.items()):
            now = self.now()
            if java_long(now - health.next_check) < 0:
                continue
            health = Health(health.latency, health.until, health.reachable, java_long(now + 2000))
            self.health.put(broker, health)
            address = address_of(broker)
            if address is None:
                self.health.remove(broker)
            elif responds(address, 200):
                health.reachable = True
