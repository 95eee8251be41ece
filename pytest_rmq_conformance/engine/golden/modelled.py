"""Internal: which release the reference ports are asked to behave as, for a family at a release
(:func:`~pytest_rmq_conformance.engine.runs.modelled_release` over the shipped vectors).

    >>> modelled_release("AVG", "4.5.0")
    '5.3.3'
    >>> modelled_release("MACHINE_ROOM", "4.8.0") is None
    True
"""

from __future__ import annotations

from pytest_rmq_conformance.engine import kinds, runs
from pytest_rmq_conformance.engine.runs import NotModelled, not_modelled

__all__ = ["NotModelled", "modelled_release", "not_modelled"]


def modelled_release(family: str, version: str, charset: str = "UTF-8") -> str | None:
    """The release of ``RELEASES`` the reference port of ``family`` reproduces ``version`` as,
    by the shipped vectors; ``None`` when it reproduces none of its answers."""
    return runs.modelled_release(family, version, charset, tuple(kinds.shipped_dirs()))
