"""What a fault strategy declares of itself beyond its family: whether it has latency fault
tolerance at all (``rmq_latency_fault_tolerance`` on a Python strategy, ``latencyFaultTolerance``
in a harness's hello; ``True`` when absent). One without is judged on the traces that never turn
latency on: the golden traces that do are skipped, and generated traces are drawn with it off.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from typing import Any

from pytest_rmq_conformance.kinds.producer.cases import TraceCase

__all__ = ["LATENCY_ATTRIBUTE", "HELLO_FIELD", "latency_fault_tolerance", "hello_says", "turns_latency_on", "without_latency"]

#: the attribute a Python fault strategy declares it by
LATENCY_ATTRIBUTE = "rmq_latency_fault_tolerance"
#: the hello field a harness declares it in
HELLO_FIELD = "latencyFaultTolerance"


def hello_says(hello: Any) -> bool:
    """Whether a harness's hello (:class:`~pytest_rmq_conformance.engine.protocol.client.Hello`)
    says its fault strategy has latency fault tolerance."""
    return bool(hello.declared.get(HELLO_FIELD, True))


def latency_fault_tolerance(subject: Any) -> bool:
    """Whether the strategy under test has latency fault tolerance, as it declares."""
    hello = subject.hello
    if hello is not None:
        return hello_says(hello)
    source = subject.source
    probed = None if source is None else source.probed
    declared = True if probed is None else getattr(probed, LATENCY_ATTRIBUTE, True)
    if type(declared) is not bool:
        raise TypeError(f"{type(probed).__name__}.{LATENCY_ATTRIBUTE} is {declared!r}, not True or False")
    return declared


def turns_latency_on(case: TraceCase) -> bool:
    """Whether ``case`` starts with latency fault tolerance on, or turns it on at a step."""
    return bool(case.params["sendLatencyFaultEnable"]) or any(step["op"] == "set_latency" and step["enable"] for step in case.steps)


def without_latency(subject: Any) -> str:
    """Why a trace that turns latency on is not asked of ``subject``."""
    where = f"its hello's {HELLO_FIELD}" if subject.hello is not None else LATENCY_ATTRIBUTE
    return f"{subject.name} has no latency fault tolerance ({where} is false): judged on the traces that never turn latency on"
