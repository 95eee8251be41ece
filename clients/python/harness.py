"""The real Python client of RocketMQ 5 (PyPI rocketmq-python-client, the version
``requirements.txt`` pins) behind the suite's exec protocol: GROUP_HASH, PUBLISH_ROUND_ROBIN and
SUBSCRIBE_ROUND_ROBIN are answered by the package's own ``QueueSelector`` (its producer and
simple-consumer selectors) on the package's ``TopicRouteData`` of its own protobuf
``MessageQueue`` objects. Nothing of their logic is written here. Run it as

    pip install -r clients/python/requirements.txt
    pytest --rmq-strategy="exec:python clients/python/harness.py"

What this file does besides calling them:

- the selector's index is random in ``[1, 1000]`` at construction; it is set to the case's
  start through the selector's own ``AtomicInteger.set`` (a private attribute), and read back
  with ``get``; the queues it kept are its private list, read;
- the client has no ``takeMessageQueues(excluded, count)``: its producer takes one queue per
  send attempt with ``select_next_queue()``, which is what a publishing ``take`` answers here
  (excluded endpoints and the count are not the client's to honour);
- a group goes to ``select_queue_by_hash_key(group)`` of one producer selector per route, as a
  producer keeps one per topic route; ``update`` is the selector's own (in
  place); a step it raises on is answered with what it raised.

Importing the client makes ``~/logs/rocketmq_python``; ``HOME`` is a temporary folder here.

Another version (the trend, ``clients/trend.py``): ``RMQ_CLIENT_HOME`` names a folder that version
is installed in (``pip install --target``, with its dependencies); it goes first on ``sys.path``
and the version is read from its metadata. What that version lacks is said, not crashed on: a
selector without ``select_queue_by_hash_key`` serves no GROUP_HASH, and a request with a group
step is answered unsupported.
"""

import functools
import importlib.util
import os
import sys
import tempfile
from importlib import metadata
from pathlib import Path

# the harnesses' shared part, by its path (a trend install goes first on sys.path)
_spec = importlib.util.spec_from_file_location("rmq_clients_common", Path(__file__).resolve().parent / "common.py")
common = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(common)

PACKAGE = "rocketmq-python-client"
HOME = os.environ.get("RMQ_CLIENT_HOME")
if HOME:
    if not os.path.isdir(HOME):
        sys.exit(f"clients/python/harness.py: RMQ_CLIENT_HOME={HOME} is not a folder")
    sys.path.insert(0, HOME)

os.environ["HOME"] = tempfile.mkdtemp(prefix="rmq-clients-python-")  # the client logs under ~/logs

# after sys.path has RMQ_CLIENT_HOME first
from rocketmq.grpc_protocol import AddressScheme, Permission, definition_pb2  # noqa: E402
from rocketmq.v5.client.balancer import QueueSelector  # noqa: E402
from rocketmq.v5.model import TopicRouteData  # noqa: E402


def installed_version():
    if not HOME:
        return metadata.version(PACKAGE)
    found = [dist.version for dist in metadata.distributions(name=PACKAGE, path=[HOME])]
    if len(found) != 1:
        sys.exit(f"clients/python/harness.py: RMQ_CLIENT_HOME={HOME} holds {len(found)} installs of {PACKAGE}, not one")
    return found[0]


#: the version has the hash-key selection (GROUP_HASH, and a balance's group steps)
HASHES = hasattr(QueueSelector, "select_queue_by_hash_key")
SCHEMES = {"IPv4": AddressScheme.IPv4, "IPv6": AddressScheme.IPv6, "DOMAIN_NAME": AddressScheme.DOMAIN_NAME}


def route(queues):
    built = []
    for queue in queues:
        mq = definition_pb2.MessageQueue()
        mq.topic.name = "TopicTest"
        mq.id = queue["queueId"]
        mq.permission = Permission.Value(queue["permission"])
        mq.broker.name = queue["broker"]["name"]
        mq.broker.id = queue["broker"]["id"]
        mq.broker.endpoints.scheme = SCHEMES[queue["broker"]["endpoints"]["scheme"]]
        for host, port in queue["broker"]["endpoints"]["addresses"]:
            address = mq.broker.endpoints.addresses.add()
            address.host, address.port = host, port
        built.append(mq)
    return TopicRouteData(built)


def selector(data, publishing):
    return (
        QueueSelector.producer_queue_selector(data)
        if publishing
        else QueueSelector.simple_consumer_queue_selector(data)
    )


def kept(chosen):
    return chosen._QueueSelector__message_queues


def index_of(chosen):
    return chosen._QueueSelector__index


group_route = common.group_routes(route)  # an update that finds the same route keeps the old objects: equal ones


@functools.cache  # a raising build is not kept: the next group asks again, as a new balancer would
def producer_of(count):
    """The producer's balancer for a group route, one per route as a producer keeps one per topic
    route: the group selection reads only its queue list, so one asked for many groups answers
    as a new one for each would."""
    return selector(group_route(count)[0], True)


def group(request):
    _, where = group_route(request["queues"])
    answers = []
    for name in request["groups"]:
        try:
            answers.append({"index": where(producer_of(request["queues"]).select_queue_by_hash_key(name))})
        except Exception as exc:  # what the client raises is its answer
            answers.append(common.error_answer(exc))
    return {"answers": answers}


def balance(request):
    if not HASHES and any(step["op"] == "group" for step in request["steps"]):
        return {"unsupported": f"{PACKAGE} {VERSION} has no select_queue_by_hash_key (a group step)"}
    publishing = request["strategy"] == "PUBLISH_ROUND_ROBIN"
    data = route(request["route"])
    try:
        chosen = selector(data, publishing)
        index_of(chosen).set(request["index"])
    except Exception as exc:
        return common.error_answer(exc)
    where = common.positions(data)
    filtered = [where(queue) for queue in kept(chosen)]
    outcomes = []
    for step in request["steps"]:
        try:
            if step["op"] == "take" and publishing:
                outcomes.append({"queues": [where(chosen.select_next_queue())]})
            elif step["op"] == "take":
                outcomes.append({"queue": where(chosen.select_next_queue())})
            elif step["op"] == "group":
                outcomes.append({"queue": where(chosen.select_queue_by_hash_key(step["group"]))})
            else:
                data = route(step["route"])
                chosen.update(data)
                where = common.positions(data)
                outcomes.append({"filtered": [where(queue) for queue in kept(chosen)]})
        except Exception as exc:
            outcomes.append(common.error_answer(exc))
    return {"filtered": filtered, "outcomes": outcomes, "indexAfter": index_of(chosen).get()}


VERSION = installed_version()
HELLO = common.hello(PACKAGE, VERSION, "https://pypi.org/project/rocketmq-python-client/",
                     ["GROUP_HASH", "PUBLISH_ROUND_ROBIN", "SUBSCRIBE_ROUND_ROBIN"] if HASHES
                     else ["PUBLISH_ROUND_ROBIN", "SUBSCRIBE_ROUND_ROBIN"])


if __name__ == "__main__":
    common.serve(HELLO, group, balance)
