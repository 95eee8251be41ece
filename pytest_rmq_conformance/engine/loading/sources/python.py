"""Internal: a strategy of the user's in this process, a class or factory, built per case with the golden
parameters as its family's keywords, or an instance, used as it is."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.loading.specs import BuildHook, Resolved, SpecError, probe_keywords, resolve_spec
from pytest_rmq_conformance.engine.running.timeouts import CallTimeout, StrategyExit, call_with_timeout
from pytest_rmq_conformance.engine.running.tracebacks import user_location

if TYPE_CHECKING:
    from pytest_rmq_conformance.engine.settings import Settings

__all__ = ["PythonSource"]

_NAME_HINT = "`name` must be a str attribute, Java's getName() (AVG, CONSISTENT_HASH, ...)"
_MISSING = object()


def _read_name(strategy: Any) -> tuple[str | None, str]:
    """The strategy's ``name``, or ``None`` and why it has none (a missing attribute, a value that
    is not a non-empty str, or what reading it raised)."""
    try:
        name = strategy.name
    except Exception as exc:
        if isinstance(exc, AttributeError) and inspect.getattr_static(strategy, "name", _MISSING) is _MISSING:
            name = None  # no attribute at all, not a property that failed
        else:
            where = user_location(exc)
            return None, f"reading the strategy's name raised {type(exc).__name__}: {exc}" + (
                f" (at {where})" if where else ""
            )
    if isinstance(name, str) and name:
        return name, ""
    return None, f"the strategy has no name (got {name!r})"


def _described(keywords: Mapping[str, Any]) -> str:
    """How a probe keyword set reads in an error: ``built with no keywords`` or its keyword names."""
    return f"built with {', '.join(keywords)}" if keywords else "built with no keywords"


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
        """The strategy's ``name``, from the first keyword set that builds it with a readable name:
        no keywords first, then each family's probe configuration (a wrapper's name may read what
        only a configuration gives it)."""
        spec = self.settings.spec
        if self.instance is not None:
            name, problem = _read_name(self.instance)
            if name is None:
                raise SpecError(f"--rmq-strategy={spec}: {problem}; {_NAME_HINT}")
            self.probed = self.instance
            return name
        built: list[str] = []  # why each strategy that was built has no name
        failures: list[str] = []  # why each keyword set built nothing
        for keywords in probe_keywords(self.settings.version, self.settings.charset):
            try:
                strategy = call_with_timeout(partial(self._call_factory, keywords, None), self.settings.timeout)
            except (Exception, CallTimeout, StrategyExit) as exc:
                where = user_location(exc)
                failures.append(f"{type(exc).__name__}: {exc}" + (f" (at {where})" if where else ""))
                continue
            name, problem = _read_name(strategy)
            if name is not None:
                self._probe_keywords, self.probed = keywords, strategy
                return name
            built.append(f"{problem} ({_described(keywords)})")
        if built:
            others = f"; {len(built) - 1} other keyword set(s) built it, none with a name" if len(built) > 1 else ""
            raise SpecError(f"--rmq-strategy={spec}: {built[0]}{others}; {_NAME_HINT}")
        raise SpecError(
            f"--rmq-strategy={spec}: cannot build a strategy from {self.resolved.describe()}; "
            f"tried no keywords, then each keyword set of the contract; the first attempt said {failures[0]}"
        )

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
