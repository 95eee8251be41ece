"""``reference_strategy``: a reference port built from the golden files' own vocabulary."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pytest_rmq_conformance.javalang import normalize_charset
from pytest_rmq_conformance.strategies import families
from pytest_rmq_conformance.strategies.base import DEFAULT_RELEASE, parse_release
from pytest_rmq_conformance.strategies.families import build_resolver

__all__ = ["REFERENCE_CLASSES", "reference_strategy", "build_resolver"]


class _PortClasses(Mapping):
    """Java ``getName()`` -> the class that ports it, for every registered family with a port
    (``MACHINE_ROOM_NEARBY`` wraps an inner one)."""

    def _ported(self) -> dict[str, type]:
        return {family.name: family.port for family in families.all_families() if family.port is not None}

    def __getitem__(self, name: str) -> type:
        return self._ported()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._ported())

    def __len__(self) -> int:
        return len(self._ported())


REFERENCE_CLASSES: Mapping[str, type] = _PortClasses()


def reference_strategy(name: str, params: Mapping[str, Any] | None = None, version: str = DEFAULT_RELEASE) -> Any:
    """Build the reference port of strategy ``name`` configured by ``params``,
    behaving like RocketMQ release ``version``.

    >>> reference_strategy("CONSISTENT_HASH", {"virtualNodeCnt": 10}).name
    'CONSISTENT_HASH'
    >>> reference_strategy("MACHINE_ROOM_NEARBY", {
    ...     "inner": {"strategy": "AVG", "params": {}},
    ...     "resolver": {"kind": "split", "separator": "-"}}, "4.9.8").name
    'MACHINE_ROOM_NEARBY-AVG'

    ``params`` may also hold ``"charset"``, the JVM default charset a 4.x
    consistent hash reads key bytes in (``"UTF-8"`` when absent; a nearby
    strategy hands it to its inner one; other strategies do not hash).
    Raises ``ValueError`` for an unknown name or parameter and wherever
    Java's constructor refuses.
    """
    parse_release(version)
    family = families.get(name)
    if params is None:
        params = {}
    if not isinstance(params, Mapping):
        raise ValueError(f"{name}: params must be an object, not {params!r}")
    params = dict(params)
    charset = normalize_charset(params.pop("charset", "UTF-8"))
    return family.build(params, version, charset)
