"""Internal: the configurations the producer sweep plays.

What the producer sweep plays each scenario under: the reference ports of every release, and a
user's own fault strategies (``--strategy SPEC``), each with ``sendLatencyFaultEnable`` off and on.

A user's strategy is a spec as ``--rmq-strategy`` takes it (``module:attribute``, an entry point,
a built-in name) of the ``FAULT_STRATEGY`` family, built per run as ``factory(clock=...)``, and
played through the send loop of :data:`USER_RELEASE`. An ``exec:`` harness answers whole traces,
never one call at a time, so it cannot be swept send by send.

    >>> [c.label for c in configurations(["adapter:Mine"]) if c.latency_fault]
    ['4.7.1', '4.9.8', '5.3.3', 'adapter:Mine']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.pipeline.producer.sim import Factory, reference_factory
from pytest_rmq_conformance.releases import PORT_RELEASE, RELEASES

__all__ = ["Configuration", "configurations", "load_problem", "user_factory", "FAMILY", "REFERENCE", "USER_RELEASE"]

#: the family a swept strategy must be of
FAMILY = "FAULT_STRATEGY"
#: the ``strategy`` of a reference port's configuration
REFERENCE = "reference"
#: the release whose send loop (``sendDefaultImpl``) plays a user's strategy
USER_RELEASE = PORT_RELEASE


@dataclass(frozen=True)
class Configuration:
    """One way a scenario is played: ``strategy`` (:data:`REFERENCE`, or a user's spec), the
    ``release`` of the send loop (and of the reference port), ``sendLatencyFaultEnable``."""

    strategy: str
    release: str
    latency_fault: bool

    @property
    def label(self) -> str:
        """What tables and plots call it: a reference port by its release, a user's strategy by its spec."""
        return self.release if self.strategy == REFERENCE else self.strategy

    def as_dict(self) -> dict[str, Any]:
        return {"strategy": self.strategy, "release": self.release, "latency_fault": self.latency_fault}


def configurations(specs: Sequence[str] = ()) -> list[Configuration]:
    """The reference ports of every release, then each spec once, each off and on."""
    subjects = [(REFERENCE, release) for release in RELEASES]
    subjects += [(spec, USER_RELEASE) for spec in dict.fromkeys(specs)]
    return [Configuration(strategy, release, on) for strategy, release in subjects for on in (False, True)]


def _subject(spec: str) -> Any:
    from pytest_rmq_conformance.engine.loading.subject import Subject
    from pytest_rmq_conformance.engine.settings import Settings

    return Subject(Settings(spec=spec, origin="--strategy", version=USER_RELEASE, search_path=(str(Path.cwd()),)))


def load_problem(spec: str) -> str | None:
    """Why ``spec`` cannot be swept (checked before Spark starts), or ``None``."""
    from pytest_rmq_conformance.engine.loading.specs import SpecError, resolve_spec

    try:
        resolved = resolve_spec(spec, {}, [Path.cwd()])
    except SpecError as exc:
        return str(exc).replace(f"--rmq-strategy={spec}", f"--strategy {spec}", 1)
    if resolved.kind == "harness":
        return (f"--strategy {spec}: an exec: harness answers whole traces, never one send at a time, so the producer "
                "sweep cannot drive it; pass a Python fault strategy (module:attribute, built as factory(clock=...))")
    subject = _subject(spec)
    try:
        error = subject.load_error
        if error is not None:
            return error.replace(f"--rmq-strategy={spec}", f"--strategy {spec}", 1)
        if subject.family != FAMILY:
            what = f"of the {subject.family} family" if subject.family else f"named {subject.name!r}, of no Java family"
            return (f"--strategy {spec}: the producer sweep plays fault strategies ({FAMILY}, built as "
                    f"factory(clock=...)); this strategy is {what}")
        return None
    finally:
        if subject.harness is not None:
            subject.harness.stop()


def user_factory(spec: str) -> Factory:
    """``factory(clock=...)`` building a new ``spec`` strategy each time; a spec that does not load
    raises when called (and so is recorded as each run's error)."""
    subject = _subject(spec)

    def build(*, clock: Any) -> Any:
        error = subject.load_error
        if error is not None:
            raise RuntimeError(error)
        return subject.build(FAMILY, {"clock": clock})

    return build


def factory_of(configuration: Configuration) -> Factory:
    """The factory a configuration's runs build their strategy with."""
    if configuration.strategy == REFERENCE:
        return reference_factory(configuration.release)
    return user_factory(configuration.strategy)
