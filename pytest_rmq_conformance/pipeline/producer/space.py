"""Internal: the producer sweep's scenario space.

The producer sweep's scenario space: scenario ``i`` of a seed is the same on any machine and
in any partition, drawn from its own generator seeded by ``(seed, i)``; the fault patterns take
turns (``i % len(patterns)``), so that each gets as many scenarios as the others.

Each scenario is played under every configuration: the three releases' reference ports, with
``sendLatencyFaultEnable`` off and on.

    >>> space = ProducerSpace(brokers=(3, 3), queues=(2, 2), count=10)
    >>> scenario = space.scenario(2)
    >>> (scenario.pattern, scenario.brokers, scenario.queues), scenario == space.scenario(2)
    (('failing', 3, 2), True)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_rmq_conformance.pipeline.producer.sim import PATTERNS, Scenario
from pytest_rmq_conformance.releases import RELEASES

__all__ = ["ProducerSpace", "CONFIGURATIONS", "parse_patterns"]

#: every (release, sendLatencyFaultEnable) a scenario is played under
CONFIGURATIONS: tuple[tuple[str, bool], ...] = tuple((release, on) for release in RELEASES for on in (False, True))
#: seconds: when the fault starts, how long it lasts, a flapping half-period
ONSET = (5, 15)
DURATION = (30, 120)
FLAP_PERIOD = (2, 10)
#: ms a healthy broker takes to answer (below latencyMax[0] = 50 ms: never a penalty)
HEALTHY_LATENCY = (2, 30)


def parse_patterns(text: str) -> tuple[str, ...]:
    """``"failing,slow"`` as a checked tuple of patterns, in the order given."""
    patterns = tuple(dict.fromkeys(p.strip() for p in text.split(",") if p.strip()))
    unknown = [p for p in patterns if p not in PATTERNS]
    if not patterns:
        raise ValueError(f"--patterns names no pattern (among {', '.join(PATTERNS)}): {text!r}")
    if unknown:
        named = ", ".join(repr(p) for p in unknown)
        raise ValueError(f"--patterns: {named} {'is' if len(unknown) == 1 else 'are'} not among {', '.join(PATTERNS)}")
    return patterns


@dataclass(frozen=True)
class ProducerSpace:
    """Brokers and queues per broker (inclusive ranges), the fault patterns, the seed, how many
    scenarios, the interval between sends (ms) and the slow broker's latency (ms)."""

    brokers: tuple[int, int] = (2, 4)
    queues: tuple[int, int] = (1, 8)
    patterns: Sequence[str] = PATTERNS
    seed: int = 0
    count: int = 500
    interval: int = 100
    slow_latency: int = 600

    def __post_init__(self) -> None:
        parse_patterns(",".join(self.patterns))
        if self.brokers[0] < 2:
            raise ValueError("--brokers must start at 2 at least: with one broker there is nowhere else to send")
        if self.count < 0:
            raise ValueError(f"--scenarios must be 0 or more, not {self.count}")

    def scenario(self, index: int) -> Scenario:
        """Scenario ``index``: a route, a degraded broker and its fault."""
        rng = random.Random(f"rmq-producer-sweep:{self.seed}:{index}")
        brokers = rng.randint(*self.brokers)
        queues = rng.randint(*self.queues)
        degraded = rng.randrange(brokers)
        onset = rng.randint(*ONSET) * 1000
        duration = rng.randint(*DURATION) * 1000
        return Scenario(
            index,
            self.patterns[index % len(self.patterns)],
            brokers=brokers,
            queues=queues,
            degraded=degraded,
            onset=onset,
            duration=duration,
            interval=self.interval,
            slow_latency=self.slow_latency,
            flap_period=rng.randint(*FLAP_PERIOD) * 1000,
            drop_at=onset + duration * rng.randint(25, 75) // 100,
            latencies=tuple(rng.randint(*HEALTHY_LATENCY) for _ in range(brokers)),
            seed=rng.getrandbits(31),
        )

    def describe(self) -> dict:
        return {
            "brokers": list(self.brokers),
            "queues": list(self.queues),
            "patterns": list(self.patterns),
            "seed": self.seed,
            "scenarios": self.count,
            "interval_ms": self.interval,
            "slow_latency_ms": self.slow_latency,
            "onset_s": list(ONSET),
            "duration_s": list(DURATION),
            "flap_period_s": list(FLAP_PERIOD),
        }
