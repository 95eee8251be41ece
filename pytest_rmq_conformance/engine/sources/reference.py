"""The built-in reference port of a family, at the run's release."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pytest_rmq_conformance.engine.properties import parse_properties
from pytest_rmq_conformance.engine.specs import Resolved
from pytest_rmq_conformance.strategies import families, reference_strategy

if TYPE_CHECKING:
    from pytest_rmq_conformance.engine.settings import Settings
    from pytest_rmq_conformance.engine.sources import Claim, Declare

__all__ = ["ReferenceSource"]


class ReferenceSource:
    """``AVG``, ``CONSISTENT_HASH``, ...: the suite's own port, behaving as the selected release."""

    harness = None
    instance = None
    reference = True

    def __init__(self, resolved: Resolved, settings: Settings):
        self.resolved, self.settings = resolved, settings
        self._probed: Any = None

    def probe(self) -> str:
        family = families.get(self.resolved.target)
        self._probed = reference_strategy(family.name, family.probe, self.settings.version)
        return self._probed.name

    def claimed(self, declare: Declare) -> Claim | None:
        said = declare(self._probed, self._probed.name)  # a hook may hold a port to other properties
        return None if said is None else (parse_properties(said, "pytest_rmq_properties"), "declared by the pytest_rmq_properties hook")

    def build(self, family: str | None, params: Mapping[str, Any], case: Any, charset: str) -> Any:
        return reference_strategy(family or self.resolved.target, {**params, "charset": charset}, self.settings.version)

    def portable_spec(self) -> str | None:
        return self.resolved.spec
