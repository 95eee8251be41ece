"""Twins of the producer reference ports for the protocol's additions (issue 34, item 10).

Imported, the fault strategies without latency fault tolerance: :class:`NoLatencyTolerance`
is the port's round robin alone (it differs from Java only where latency is on, which it
declares it never is); :class:`NoLatencyToleranceOneAhead` also picks one queue past Java's.

Run as ``python producer_protocol_twins.py MODE [LONGEST]``, a harness that answers as the
built-in one serving the reference ports, and then changes one thing, per ``MODE``:

- ``not-run``: a select call over more than ``LONGEST`` queues (65,536) is answered ``notRun``;
- ``not-run-wrong``: the same, and in a request with a call not made, the first call it makes
  over two queues or more answers the next position;
- ``wide-item``: the first fault item it reports starts at 2^64 - 1 (a Rust ``u64``);
- ``wide-counter``: the first stored counter it reports is Java's plus 2^32 (one that never wraps);
- ``no-latency``: its hello says ``"latencyFaultTolerance": false``, and it writes garbage in
  answer to a trace that turns latency on (the suite must never send one);
- ``plain``: nothing.
"""

import json
import sys

from pytest_rmq_conformance.ports.producer import MQFaultStrategy
from pytest_rmq_conformance.ports.producer.counter import ThreadLocalIndex

#: the longest list the ``not-run`` harness's client can build
LONGEST = 65536


class NoLatencyTolerance(MQFaultStrategy):
    """A fault strategy with no latency fault tolerance: the round robin that avoids the last
    broker, whatever ``send_latency_fault_enable`` says; updates leave nothing."""

    rmq_latency_fault_tolerance = False

    def select_one_message_queue(self, info, last_broker_name, reset_index=False):
        enabled, self.send_latency_fault_enable = self.send_latency_fault_enable, False
        try:
            return super().select_one_message_queue(info, last_broker_name, reset_index)
        finally:
            self.send_latency_fault_enable = enabled

    def update_fault_item(self, broker_name, latency, isolation, reachable=True):
        return None


class _OneAhead(ThreadLocalIndex):
    def increment_and_get(self):
        return super().increment_and_get() + 1


class NoLatencyToleranceOneAhead(NoLatencyTolerance):
    """:class:`NoLatencyTolerance` whose round robin picks one queue past Java's (its stored counter is Java's)."""

    def publish_info(self, topic, route):
        info = super().publish_info(topic, route)
        info.send_which_queue = _OneAhead(version=self.version)
        return info


def _turns_latency_on(request):
    return request["params"]["sendLatencyFaultEnable"] or any(s["op"] == "set_latency" and s["enable"] for s in request["steps"])


def _changed(mode, request, answer, longest):
    """``answer``, the built-in harness's, with the change ``mode`` makes."""
    if mode.startswith("not-run") and request["cmd"] == "select":
        wrong = mode == "not-run-wrong" and max(request["queueCounts"]) > longest  # only beside a call not made
        for item, count in zip(answer["answers"], request["queueCounts"]):
            if count > longest:
                item.clear()
                item["notRun"] = f"this client cannot build a list of {count} queues"
            elif wrong and count >= 2 and isinstance(item.get("index"), int):
                item["index"], wrong = (item["index"] + 1) % count, False
    elif mode == "wide-item" and request["cmd"] == "trace":
        item = next((o["item"] for o in answer["outcomes"] if isinstance(o, dict) and o.get("item")), None)
        if item is not None:
            item["startTimestamp"] = 2**64 - 1
    elif mode == "wide-counter" and request["cmd"] == "trace":
        found = next((o for o in answer["outcomes"] if isinstance(o, dict) and isinstance(o.get("storedIndexAfter"), int)), None)
        if found is not None:
            found["storedIndexAfter"] += 2**32
    return answer


def main(argv):
    from pytest_rmq_conformance.harness import Server

    mode, longest = argv[0], int(argv[1]) if len(argv) > 1 else LONGEST
    server = Server(["FAULT_STRATEGY", "SELECTOR_HASH"], f"twin {mode}")
    for line in sys.stdin:
        request = json.loads(line)
        if request["cmd"] == "trace" and mode == "no-latency" and _turns_latency_on(request):
            print("a trace that turns latency on, sent to a client that said it has none", flush=True)
            continue
        answer = server.answer(line)
        if answer is None:
            return
        if request["cmd"] == "hello" and mode == "no-latency":
            answer["latencyFaultTolerance"] = False
        elif request["cmd"] != "hello":
            answer = _changed(mode, request, answer, longest)
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
