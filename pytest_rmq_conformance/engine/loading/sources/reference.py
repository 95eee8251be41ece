"""The built-in reference port of a family, at the run's release.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.loading.specs import Resolved

if TYPE_CHECKING:
    from pytest_rmq_conformance.engine.settings import Settings

__all__ = ["ReferenceSource"]


class ReferenceSource:
    """``AVG``, ``CONSISTENT_HASH``, ...: the suite's own port, behaving as the selected release."""

    harness = None
    instance = None
    reference = True

    def __init__(self, resolved: Resolved, settings: Settings):
        self.resolved, self.settings = resolved, settings
        self.probed: Any = None
        self._last: tuple[Mapping[str, Any], tuple[str | None, str], Any] | None = None

    def probe(self) -> str:
        family = kinds.get(self.resolved.target)
        self.probed = kinds.reference_strategy(family.name, family.probe, self.settings.version)
        return self.probed.name

    def build(self, family: str | None, params: Mapping[str, Any], case: Any, charset: str) -> Any:
        # the ports keep no state between calls: the callers of one case (the very same params
        # object, held here so that it cannot be another one at the same address) share one port
        last = self._last
        if last is not None and last[0] is params and last[1] == (family, charset):
            return last[2]
        built = kinds.reference_strategy(family or self.resolved.target, {**params, "charset": charset}, self.settings.version)
        self._last = (params, (family, charset), built)
        return built

    def portable_spec(self) -> str | None:
        return self.resolved.spec
