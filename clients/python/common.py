"""What the Python harnesses (``harness.py``, ``dpyrocketmq.py``, ``rocketmq-ctypes.py``)
share: errors as answers, the hello, a queue's position in a route, the group requests' routes and the
protocol loop. They run as scripts and load this file by its path, so that no module named alike
on ``sys.path`` (a trend install goes first there) is taken for it.
"""

import json
import sys

#: the one broker of a group request's route
GROUP_BROKER = {"name": "broker-a", "id": 0, "endpoints": {"scheme": "IPv4", "addresses": [["10.0.0.1", 8081]]}}


def error_answer(exc):
    """What a client raised, as the answer ``other``."""
    return {"error": "other", "message": f"{type(exc).__name__}: {exc}"}


def positions(data, key=None):
    """A queue's position in ``data``: by identity, else the one entry equal to it (compared by
    ``key`` when given): a balancer kept across an update may hold the old route's objects."""
    by_id = {id(queue): position for position, queue in enumerate(data.message_queues)}
    same = (lambda a, b: a == b) if key is None else (lambda a, b: key(a) == key(b))

    def where(queue):
        if id(queue) in by_id:
            return by_id[id(queue)]
        equal = [position for position, entry in enumerate(data.message_queues) if same(entry, queue)]
        return equal[0] if len(equal) == 1 else None

    return where


def group_routes(route, key=None):
    """A group request's route and its positions by queue count (it depends on nothing else),
    each built once with ``route`` (a harness's queues-to-route) and ``positions(data, key)``."""
    built = {}

    def get(count):
        if count not in built:
            data = route([{"queueId": i, "permission": "READ_WRITE", "broker": GROUP_BROKER} for i in range(count)])
            built[count] = (data, positions(data, key))
        return built[count]

    return get


def hello(name, version, homepage, strategies):
    """A harness's hello: a Python client of PyPI, the families it serves, no sort."""
    return {
        "protocol": 1,
        "implementation": {"name": name, "language": "Python", "version": version, "homepage": homepage},
        "strategies": strategies,
        "sort": False,
    }


def serve(hello, group=None, balance=None, broken=None, *, select=None, unsupported="a request of the gRPC balancers"):
    """Answers the exec protocol on stdin/stdout with the handlers given (``group``, ``balance``,
    ``select``); ``broken`` (a reason) answers every group and balance request unsupported, and a
    request of no handler is unsupported as not ``unsupported``."""
    handlers = {"group": group, "balance": balance, "select": select}
    out = sys.stdout
    sys.stdout = sys.stderr  # what the client prints must not garble the protocol
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        command = request.get("cmd")
        if command == "bye":
            return
        if command == "hello":
            answer = hello
        elif broken and command in ("group", "balance"):
            answer = {"id": request["id"], "unsupported": broken}
        elif handlers.get(command) is not None:
            answer = {"id": request["id"], **handlers[command](request)}
        else:
            answer = {"id": request.get("id"), "unsupported": f"{command} is not {unsupported}"}
        out.write(json.dumps(answer) + "\n")
        out.flush()
