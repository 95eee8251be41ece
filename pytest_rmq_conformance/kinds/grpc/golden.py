"""One golden case of the gRPC balancers asked of the strategy under test, and judged.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_rmq_conformance.engine.golden.cases import CaseOutcome
from pytest_rmq_conformance.engine.running.timeouts import CallTimeout
from pytest_rmq_conformance.kinds.grpc.play import compare
from pytest_rmq_conformance.kinds.grpc.play import replay as play_case

if TYPE_CHECKING:
    from pytest_rmq_conformance.engine.golden.data import Run
    from pytest_rmq_conformance.engine.loading.subject import Subject

__all__ = ["replay", "index_offset", "run_label"]

#: the attribute a balancer declares its index's offset from Java's by
OFFSET_ATTRIBUTE = "rmq_index_offset"
#: the hello field a harness declares them in, per family
HELLO_FIELD = "indexOffsets"
#: run id -> the client whose classes answered it, as the runs replayed in this process say
_CLIENTS: dict[str, str] = {}


def run_label(run: str) -> str:
    """How a report names the Java behind ``run``: its client (``rocketmq-client-java
    5.2.0``) where the run names one, else the run."""
    return _CLIENTS.get(run, run)


def index_offset(subject: Subject, family: str) -> int:
    """How the strategy's index relates to Java's (its index = Java's + offset), as it declares
    in ``rmq_index_offset``, or a harness in its hello's ``indexOffsets`` (0 by default; the
    hello was checked by the kind's ``hello_problem``)."""
    hello = subject.hello
    if hello is not None:
        return int(hello.declared.get(HELLO_FIELD, {}).get(family, 0))
    source = subject.source
    probed = None if source is None else source.probed
    offset = getattr(probed, OFFSET_ATTRIBUTE, 0) if probed is not None else 0
    if type(offset) is not int:
        raise TypeError(f"{type(probed).__name__}.{OFFSET_ATTRIBUTE} is {offset!r}, not an int")
    return offset


def replay(subject: Subject, case: Any, run: Run) -> CaseOutcome:
    """Play ``case`` against a fresh balancer of the strategy under test (in this process, or a
    harness's in one request), and compare."""
    if run.client is not None:
        _CLIENTS[run.id] = run.client
    offset = index_offset(subject, case.strategy)
    harness = subject.harness
    if harness is not None:
        from pytest_rmq_conformance.engine.protocol.client import HarnessFault, HarnessGaveUp, Unsupported
        from pytest_rmq_conformance.kinds.grpc.protocol import ask

        try:
            mismatch = compare(case, run.id, ask(harness, case, offset),
                               lambda: ask(harness, case, offset, probe=True).get("probes"))
        except Unsupported as exc:
            return CaseOutcome(case, run.id, subject.name, skipped=f"not implemented: {exc}")
        except HarnessGaveUp as exc:
            return CaseOutcome(case, run.id, subject.name, skipped=str(exc), not_run=True)
        except HarnessFault as exc:
            return CaseOutcome(case, run.id, subject.name, error=str(exc))
    else:
        params: dict[str, Any] = {}

        def build(route, index):
            params.update(route=route, index=index)
            return subject.build(case.strategy, params, case)

        mismatch = play_case(build, case, run.id, offset, subject.settings.timeout)
    if mismatch is None:
        return CaseOutcome(case, run.id, subject.name)
    if isinstance(mismatch.raised, CallTimeout):
        subject.hangs.record()  # --rmq-max-hangs: a balancer that keeps hanging is given up
    return CaseOutcome(case, run.id, subject.name, (mismatch,), impact=mismatch.divergence_class)
