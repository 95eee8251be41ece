# adapter.py
from myclient import Producer

from pytest_rmq_conformance import MASTER_ID, PERM_WRITE, FaultItem


class Counter:  # the contract's counter, over the int the client keeps in its publish info
    def __init__(self, info):
        self.info = info

    stored = property(lambda self: self.info.index, lambda self, value: setattr(self.info, "index", value))

    def pin(self, stored, seed):
        self.info.index, self.info.random = stored, type(self.info.random)(seed)


class PublishInfo:
    def __init__(self, info):
        self.info, self.send_which_queue = info, Counter(info)
        self.queues = info.queues  # the client's own list: what it rewrites, the suite sees

    def select_one_message_queue(self, last_broker_name=None):
        return self.info.next_queue(last_broker_name)


class MyFaultStrategy:
    name = "FAULT_STRATEGY"

    def __init__(self, clock):
        self.producer = Producer(clock.now)

    send_latency_fault_enable = property(lambda self: self.producer.avoid_slow_brokers,
                                         lambda self, on: setattr(self.producer, "avoid_slow_brokers", on))
    latency_max = property(lambda self: self.producer.latency_steps, lambda self, v: setattr(self.producer, "latency_steps", v))
    not_available_duration = property(lambda self: self.producer.penalties, lambda self, v: setattr(self.producer, "penalties", v))

    def publish_info(self, topic, route):
        masters = {broker.broker_name for broker in route.broker_datas if MASTER_ID in broker.broker_addrs}
        datas = [(data.broker_name, data.write_queue_nums, data.perm & PERM_WRITE) for data in route.queue_datas]
        return PublishInfo(self.producer.publish_info(topic, datas, masters, route.order_topic_conf, seed=0))

    def select_one_message_queue(self, info, last_broker_name, reset_index=False):
        return self.producer.choose(info.info, last_broker_name, reset_index)

    def update_fault_item(self, broker_name, latency, isolation, reachable=True):
        self.producer.record(broker_name, latency, isolation, reachable)

    def fault_items(self):
        return [FaultItem(name, h.latency, h.until, h.reachable, h.next_check) for name, h in self.producer.health.items()]

    def detect_by_one_round(self, resolve, detect):
        self.producer.check_brokers(resolve, detect)
