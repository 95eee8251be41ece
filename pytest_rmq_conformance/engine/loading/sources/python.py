"""A strategy of the user's in this process: a class or factory, built per case with the golden
parameters as its family's keywords, or an instance, used as it is."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.loading.specs import Resolved, SpecError, probe_keywords, resolve_spec
from pytest_rmq_conformance.engine.running.timeouts import CallTimeout, StrategyExit, call_with_timeout
from pytest_rmq_conformance.engine.running.tracebacks import user_location

if TYPE_CHECKING:
    from pytest_rmq_conformance.engine.loading.sources import BuildHook
    from pytest_rmq_conformance.engine.settings import Settings

__all__ = ["PythonSource"]


class PythonSource:
    """A class, factory or instance; the build hook may build each case's strategy instead."""

    harness = None
    reference = False

    def __init__(self, resolved: Resolved, settings: Settings, build_hook: BuildHook):
        self.resolved, self.settings, self._build_hook = resolved, settings, build_hook
        self.instance = resolved.target if resolved.kind == "instance" else None
        self._probe_keywords: dict[str, Any] = {}
        self.probed: Any = None

    def _call_factory(self, keywords: dict[str, Any], case: Any) -> Any:
        factory = self.resolved.target
        built = self._build_hook(factory, keywords, case)
        return factory(**keywords) if built is None else built

    def probe(self) -> str:
        spec, settings = self.settings.spec, self.settings
        if self.instance is not None:
            strategy = self.instance
        else:
            strategy, failures = None, []
            for keywords in probe_keywords(settings.version, settings.charset):
                try:
                    strategy = call_with_timeout(partial(self._call_factory, keywords, None), settings.timeout)
                    self._probe_keywords = keywords
                    break
                except (Exception, CallTimeout, StrategyExit) as exc:
                    where = user_location(exc)
                    failures.append(f"{type(exc).__name__}: {exc}" + (f" (at {where})" if where else ""))
            if strategy is None:
                raise SpecError(
                    f"--rmq-strategy={spec}: cannot build a strategy from {self.resolved.describe()}; "
                    f"tried no keywords, then each keyword set of the contract; the first attempt said {failures[0]}"
                )
        try:
            name = getattr(strategy, "name", None)
        except Exception as exc:
            raise SpecError(
                f"--rmq-strategy={spec}: reading the strategy's name raised {type(exc).__name__}: {exc}; "
                "`name` must be a str attribute, Java's getName() (AVG, CONSISTENT_HASH, ...)"
            ) from None
        if not isinstance(name, str) or not name:
            raise SpecError(
                f"--rmq-strategy={spec}: the strategy has no name (got {name!r}); "
                "give it a str attribute `name`, Java's getName() (AVG, CONSISTENT_HASH, ...)"
            )
        self.probed = strategy
        return name

    def build(self, family: str | None, params: Mapping[str, Any], case: Any, charset: str) -> Any:
        if self.instance is not None:
            return self.instance
        if family is None:
            keywords = dict(self._probe_keywords)
        else:
            keywords = kinds.get(family).keywords(params, self.settings.version, charset)
        return self._call_factory(keywords, case)

    def portable_spec(self) -> str | None:
        resolved = self.resolved
        if resolved.where == resolved.spec or resolved.where.startswith("entry point"):
            return resolved.spec
        if self.instance is not None:  # an object a hook made: nothing to import it by
            return None
        module, qualname = getattr(resolved.target, "__module__", None), getattr(resolved.target, "__qualname__", None)
        if not module or not qualname or "<" in qualname:
            return None
        spec = f"{module}:{qualname}"
        try:
            found = resolve_spec(spec)
        except SpecError:
            return None
        return spec if found.target is resolved.target else None
