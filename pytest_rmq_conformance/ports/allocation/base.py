"""What every reference strategy shares: the argument check, the base class.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pytest_rmq_conformance.model import MessageQueue
from pytest_rmq_conformance.releases import PORT_RELEASE, parse_release

__all__ = [
    "AllocateMessageQueueStrategy",
    "MachineRoomResolver",
    "check_arguments",
]


class MachineRoomResolver(Protocol):
    """Tells in which machine room a broker and a consumer are deployed."""

    def broker_deploy_in(self, mq: MessageQueue) -> str | None: ...

    def consumer_deploy_in(self, cid: str) -> str | None: ...


def check_arguments(
    current_cid: str | None,
    mq_all: Sequence[MessageQueue] | None,
    cid_all: Sequence[str] | None,
) -> bool:
    """The argument check the Java strategies make before allocating.

    Raises ``ValueError`` (Java's IllegalArgumentException) for a missing
    caller, queue list or client list, in that order; returns ``False`` when
    the caller is not in ``cid_all`` (the caller then gets no queues).
    """
    if not current_cid:
        raise ValueError("currentCID is empty")
    if not mq_all:
        raise ValueError("mqAll is null or mqAll empty")
    if not cid_all:
        raise ValueError("cidAll is null or cidAll empty")
    return current_cid in cid_all


class AllocateMessageQueueStrategy:
    """Base of the reference ports: a Java ``getName()`` and ``allocate``.

    ``version`` selects the RocketMQ release whose behaviour is reproduced.
    """

    name: str = ""

    def __init__(self, *, version: str = PORT_RELEASE) -> None:
        self.version = version
        self._release = parse_release(version)

    def allocate(
        self,
        consumer_group: str | None,
        current_cid: str | None,
        mq_all: Sequence[MessageQueue] | None,
        cid_all: Sequence[str] | None,
    ) -> list[MessageQueue] | None:
        """The queues ``current_cid`` takes, in Java's order."""
        raise NotImplementedError

    def _settings(self) -> dict:
        return {}

    def __repr__(self) -> str:
        settings = {**self._settings(), "version": self.version}
        args = ", ".join(f"{key}={value!r}" for key, value in settings.items())
        return f"{type(self).__name__}({args})"
