"""PyPI dpyrocketmq (a 2023 copy of the early apache/rocketmq-clients Python client; the version
``isolated.txt`` pins) behind the suite's exec protocol: GROUP_HASH, PUBLISH_ROUND_ROBIN and
SUBSCRIBE_ROUND_ROBIN are answered by the package's own ``PublishingLoadBalancer`` and
``SubscriptionLoadBalancer`` on its own ``TopicRouteData`` of protobuf ``MessageQueue`` objects.
Nothing of their logic is written here. rocketmq-holder, rocketmqPy and rocketmq-yue ship the
same balancer code. Run it as

    python clients/python/isolate.py
    pytest --rmq-strategy="exec:python clients/python/dpyrocketmq.py"

The package's top-level module is ``rocketmq``, as is rocketmq-python-client's, and both register
``apache/rocketmq/v2/definition.proto`` in protobuf's default pool: the two cannot share a
process or a site-packages. So it is installed alone under ``clients/python/.isolated/dpyrocketmq`` (or
``$RMQ_DPYROCKETMQ_PATH``), and ``rocketmq`` is bound to that folder before anything imports it.

What this file does besides calling them:

- a group's queue is ``take_message_queue_by_message_group`` of one publishing balancer per
  route (a producer keeps one per topic route), which takes Python's ``hash()`` of
  the group: a string's hash changes from process to process unless ``PYTHONHASHSEED`` is
  set. Nothing here pins it: the suite's one-answer check restarts the harness and sees the
  groups move; the report's run (``tox -e clients``) sets ``PYTHONHASHSEED=0`` so that its
  counts do not change from run to run. Under any seed it is not Java's SipHash;
- the publishing balancer takes its start index as a constructor argument; the subscription
  balancer draws one in ``[0, 10000]`` and keeps it in ``_index``, which is set to the case's
  start after construction and read back after the steps;
- ``update`` is what the client does on a new route: the producer's
  ``update_publish_load_balancer`` (which keeps the balancer it cached for the topic) and the
  simple consumer's ``update_subscription_load_balancer`` (``update`` in place), each called
  unbound on a stand-in holding only its cache;
- excluded endpoints are handed over as the producer isolates them: the ``Endpoints`` object of
  the route's broker it sent to (the route's own object where the route has one with those
  addresses, else a new one built by the package's own ``Endpoints``);
- anything a step raises is its answer (``other``): the package raises nothing of its own for a
  route with no queue to keep.
"""

import functools
import importlib.util
import os
import sys
import tempfile
import types
from pathlib import Path

# the harnesses' shared part, by its path (a trend install goes first on sys.path)
_spec = importlib.util.spec_from_file_location("rmq_clients_common", Path(__file__).resolve().parent / "common.py")
common = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(common)

# RMQ_CLIENT_PACKAGE: another distribution of the same code (rocketmq-holder.py sets it)
PACKAGE = os.environ.get("RMQ_CLIENT_PACKAGE", "dpyrocketmq")
# RMQ_CLIENT_HOME: another version, installed there with its dependencies (the trend, clients/trend.py)
TREND_HOME = os.environ.get("RMQ_CLIENT_HOME")
HOME = Path(
    TREND_HOME or os.environ.get("RMQ_DPYROCKETMQ_PATH") or Path(__file__).resolve().parent / ".isolated" / PACKAGE
)
if not (HOME / "rocketmq" / "producer.py").is_file():
    sys.exit(f"clients/python/dpyrocketmq.py: {HOME / 'rocketmq'} holds no {PACKAGE}: python clients/python/isolate.py")
if TREND_HOME:
    sys.path.insert(0, TREND_HOME)  # its grpc and protobuf, as that version installed them
# the client logs to ~/logs/rocketmq/rocketmq-client.log, and its early versions fail to import
# where that folder is missing: HOME is a temporary folder holding it
os.environ["HOME"] = tempfile.mkdtemp(prefix="rmq-clients-dpyrocketmq-")
os.makedirs(os.path.join(os.environ["HOME"], "logs", "rocketmq"))
_package = types.ModuleType("rocketmq")
_package.__path__ = [str(HOME / "rocketmq")]
sys.modules["rocketmq"] = _package

from importlib.metadata import distributions  # noqa: E402

VERSION = next(iter(distributions(name=PACKAGE, path=[str(HOME)]))).version
try:
    from rocketmq.definition import TopicRouteData
    from rocketmq.producer import Producer, PublishingLoadBalancer
    from rocketmq.protocol import definition_pb2
    from rocketmq.rpc_client import Endpoints
    from rocketmq.simple_consumer import SimpleConsumer, SubscriptionLoadBalancer
except Exception as exc:  # a version that cannot be imported (0.1.1 imports a module by a name it does not have)
    BROKEN = f"{PACKAGE} {VERSION} does not import: {type(exc).__name__}: {exc}"
    print(f"clients/python/dpyrocketmq.py: {BROKEN}", file=sys.stderr)
else:
    BROKEN = None
    SCHEMES = {"IPv4": definition_pb2.IPv4, "IPv6": definition_pb2.IPv6, "DOMAIN_NAME": definition_pb2.DOMAIN_NAME}
TOPIC = "TopicTest"


def endpoints_pb(data):
    built = definition_pb2.Endpoints()
    built.scheme = SCHEMES[data["scheme"]]
    for host, port in data["addresses"]:
        address = built.addresses.add()
        address.host, address.port = host, port
    return built


def route(queues):
    built = []
    for queue in queues:
        mq = definition_pb2.MessageQueue()
        mq.topic.name = TOPIC
        mq.id = queue["queueId"]
        mq.permission = definition_pb2.Permission.Value(queue["permission"])
        mq.broker.name = queue["broker"]["name"]
        mq.broker.id = queue["broker"]["id"]
        mq.broker.endpoints.CopyFrom(endpoints_pb(queue["broker"]["endpoints"]))
        built.append(mq)
    return TopicRouteData(built)


def same_queue(queue):
    """What a queue is compared by where it is not the route's own object: its broker, queue id and
    permission (a balancer the client kept across an update holds the old route's objects)."""
    return (queue.broker.name, queue.broker.id, queue.queue_id, queue.permission)


def excluded_set(data, listed):
    """The isolated endpoints as the producer holds them: its route's own objects."""
    chosen = set()
    for item in listed:
        wanted = [(host, port) for host, port in item["addresses"]]
        same = [
            q.broker.endpoints
            for q in data.message_queues
            if [(a.host, a.port) for a in q.broker.endpoints.Addresses] == wanted
        ]
        chosen.add(same[0] if same else Endpoints(endpoints_pb(item)))
    return chosen


def kept(balancer):
    if isinstance(balancer, SubscriptionLoadBalancer):
        return balancer._message_queues
    return balancer._PublishingLoadBalancer__message_queues


def index_of(balancer):
    return balancer._index if isinstance(balancer, SubscriptionLoadBalancer) else balancer.index


group_route = common.group_routes(route, same_queue)


@functools.cache  # a raising build is not kept: the next group asks again, as a new balancer would
def producer_of(count):
    """The producer's balancer for a group route, one per route as a producer keeps one per topic
    route: the group selection reads only its queue list, so one asked for many groups answers
    as a new one for each would."""
    return PublishingLoadBalancer(group_route(count)[0], 0)


def group(request):
    _, where = group_route(request["queues"])
    answers = []
    for name in request["groups"]:
        try:
            answers.append({"index": where(producer_of(request["queues"]).take_message_queue_by_message_group(name))})
        except Exception as exc:  # what the client raises is its answer
            answers.append(common.error_answer(exc))
    return {"answers": answers}


def update(balancer, data):
    """The client's own reaction to a new route of the topic."""
    if isinstance(balancer, SubscriptionLoadBalancer):
        holder = types.SimpleNamespace(_subscription_route_data_cache={TOPIC: balancer})
        return SimpleConsumer.update_subscription_load_balancer(holder, TOPIC, data)
    holder = types.SimpleNamespace(publish_routedata_cache={TOPIC: balancer})
    return Producer.update_publish_load_balancer(holder, TOPIC, data)


def balance(request):
    publishing = request["strategy"] == "PUBLISH_ROUND_ROBIN"
    try:
        data = route(request["route"])
        if publishing:
            balancer = PublishingLoadBalancer(data, request["index"])
        else:
            balancer = SubscriptionLoadBalancer(data)
            balancer._index = request["index"]
    except Exception as exc:
        return common.error_answer(exc)
    where = common.positions(data, same_queue)
    filtered = [where(queue) for queue in kept(balancer)]
    outcomes = []
    for step in request["steps"]:
        try:
            if step["op"] == "take" and publishing:
                taken = balancer.take_message_queues(excluded_set(data, step["excluded"]), step["count"])
                outcomes.append({"queues": [where(queue) for queue in taken]})
            elif step["op"] == "take":
                outcomes.append({"queue": where(balancer.take_message_queue())})
            elif step["op"] == "group":
                outcomes.append({"queue": where(balancer.take_message_queue_by_message_group(step["group"]))})
            else:
                data = route(step["route"])
                balancer = update(balancer, data)
                where = common.positions(data, same_queue)
                outcomes.append({"filtered": [where(queue) for queue in kept(balancer)]})
        except Exception as exc:
            outcomes.append(common.error_answer(exc))
    return {"filtered": filtered, "outcomes": outcomes, "indexAfter": index_of(balancer)}


# a version that does not import serves nothing: every family not implemented
HELLO = common.hello(PACKAGE, VERSION, f"https://pypi.org/project/{PACKAGE}/",
                     [] if BROKEN else ["GROUP_HASH", "PUBLISH_ROUND_ROBIN", "SUBSCRIBE_ROUND_ROBIN"])


if __name__ == "__main__":
    common.serve(HELLO, group, balance, BROKEN)
