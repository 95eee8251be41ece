"""The release the producer models follow for a release the golden vectors cover.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from pytest_rmq_conformance.engine.golden.modelled import modelled_release, not_modelled
from pytest_rmq_conformance.ports.producer import counter

__all__ = ["port_release", "producer_release"]


def port_release(version: str, family: str = "FAULT_STRATEGY") -> str:
    """The release the producer ports reproduce ``version``'s ``family`` as: itself, or the one
    whose answers it gives (:func:`~pytest_rmq_conformance.engine.golden.modelled.modelled_release`);
    :class:`~pytest_rmq_conformance.engine.runs.NotModelled`, a ``ValueError``, where none's are."""
    modelled = modelled_release(family, version)
    if modelled is None:
        raise not_modelled(family, version)
    return modelled


def producer_release(version: str, family: str = "FAULT_STRATEGY") -> tuple[int, int, int]:
    """``parse_release`` of :func:`port_release`."""
    return counter.producer_release(port_release(version, family))
