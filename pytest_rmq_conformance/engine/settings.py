"""The choices of one run: which strategy, which release, how hard the generated checks look,
and the time limits. Built once per run (the plugin from its options, the commands from theirs).

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_rmq_conformance.defaults import CHARSET, MAX_HANGS, MAX_RESTARTS, PROFILE, SHRINK_TIME, STRATEGY, TIMEOUT
from pytest_rmq_conformance.releases import DEFAULT_RELEASE

__all__ = ["Settings", "DEFAULT_STRATEGY", "PROFILES", "CHECK_TIME", "profile_examples", "check_seconds"]

#: RocketMQ's own default strategy, used when the suite runs with no strategy chosen
DEFAULT_STRATEGY = STRATEGY

#: how hard the generated checks look: examples per check; for the subprocess checks (``process``,
#: ``time``), batches of groups (hypothesis draws the simplest batch first, so one batch alone
#: would test only trivial groups)
PROFILES = {
    "quick": {"examples": 40, "batches": 3, "batch": 8},
    "thorough": {"examples": 1000, "batches": 12, "batch": 40},
}
#: seconds a generated check may spend drawing examples before it settles for those it tried
#: (``--rmq-check-time``), per profile
CHECK_TIME = {"quick": 60.0, "thorough": 900.0}


@dataclass(frozen=True)
class Settings:
    """The choices of one run, with where the strategy and release choices came from."""

    spec: str = DEFAULT_STRATEGY
    origin: str = "default"
    version: str = DEFAULT_RELEASE
    version_origin: str = "default"
    charset: str = CHARSET
    strict_order: bool = False
    timeout: float | None = TIMEOUT
    max_hangs: int = MAX_HANGS
    max_restarts: int = MAX_RESTARTS  # of a harness process, after faults
    isolate: bool = False  # run a Python strategy through the built-in harness, in its own process
    profile: str = PROFILE
    seed: int = 0
    examples: int | None = None  # overrides the profile's example count
    check_time: float | None = None  # overrides the profile's time for drawing examples, per check
    shrink_time: float = SHRINK_TIME  # seconds a check may spend shrinking a failure
    search_path: tuple[str, ...] = ()  # folders a module:attribute spec's module is looked for in, if not installed


def profile_examples(settings: Settings) -> int:
    """Examples per generated check: ``--rmq-examples``, else the profile's."""
    return settings.examples if settings.examples is not None else PROFILES[settings.profile]["examples"]


def check_seconds(settings: Settings) -> float:
    """Seconds a generated check may spend drawing examples: ``--rmq-check-time``, else the profile's."""
    return settings.check_time if settings.check_time is not None else CHECK_TIME[settings.profile]
