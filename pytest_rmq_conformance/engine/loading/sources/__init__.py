"""Internal: where the strategy under test comes from, one :class:`Source` per way a spec can name it,
behind one protocol. The subject asks; each source answers in its own module, named after where
the strategy runs.

===============  ================  ======================================================================
module           resolved as       the strategy
===============  ================  ======================================================================
``reference``    ``reference``     the built-in port of a family (``AVG``, ...) at the run's release
``python``       ``class``,        a class, factory or instance of the user's, called in this process
                 ``factory``,
                 ``instance``
``process``      ``harness``       a harness, another process speaking the JSON-lines protocol:
                                   ``exec:COMMAND``, or a Python spec served by the built-in harness in a
                                   process of its own (``--rmq-isolate``)
===============  ================  ======================================================================

:func:`open_source` picks the source for a resolved spec; nothing else branches on how a spec
resolved.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from pytest_rmq_conformance.engine.loading.specs import BuildHook, Declare, Resolved

if TYPE_CHECKING:
    from pytest_rmq_conformance.engine.protocol.client import Harness
    from pytest_rmq_conformance.engine.settings import Settings

__all__ = ["Source", "BuildHook", "Declare", "open_source"]


class Source(Protocol):
    """One way of getting strategy objects: probed once, then built per golden case or group."""

    #: what the spec resolved to: its kind, target and where it was found
    resolved: Resolved

    @property
    def harness(self) -> Harness | None:
        """The process serving the strategy (a harness source, once probed), else ``None``."""
        ...

    @property
    def instance(self) -> Any:
        """The strategy object itself when the spec named one: it carries its own configuration,
        every build is that very object, and only cases of its configuration can be asked of it;
        else ``None``."""
        ...

    @property
    def reference(self) -> bool:
        """Whether this is the suite's own reference port (its golden replay follows each run's charset)."""
        ...

    def probe(self) -> str:
        """The strategy's ``name`` (Java's ``getName()``), learnt once before any case is known;
        raises :class:`~pytest_rmq_conformance.engine.loading.specs.SpecError` for a strategy that
        cannot be used at all."""
        ...

    @property
    def probed(self) -> Any:
        """The strategy object :meth:`probe` built (``None`` behind a harness): its kind checks it,
        and it may claim properties (``rmq_properties``)."""
        ...

    def build(self, family: str | None, params: Mapping[str, Any], case: Any, charset: str) -> Any:
        """A strategy configured by the golden ``params`` of ``family`` (``None``: configured as
        probed); ``case`` is handed to the build hook."""
        ...

    def portable_spec(self) -> str | None:
        """A spec another process can resolve without pytest's hooks, if there is one."""
        ...


def open_source(
    resolved: Resolved,
    settings: Settings,
    *,
    build_hook: BuildHook,
    env: Callable[[], dict[str, str]],
) -> Source:
    """The source for ``resolved``; with ``settings.isolate``, a Python strategy is served by the
    built-in harness in a process of its own. ``env`` gives a harness process's environment."""
    if resolved.kind == "harness" or settings.isolate:  # the protocol's client is imported only here
        from pytest_rmq_conformance.engine.loading.sources.process import HarnessSource, isolated
    if resolved.kind == "harness":
        return HarnessSource(resolved, settings, env)
    source: Source
    if resolved.kind == "reference":
        from pytest_rmq_conformance.engine.loading.sources.reference import ReferenceSource

        source = ReferenceSource(resolved, settings)
    else:
        from pytest_rmq_conformance.engine.loading.sources.python import PythonSource

        source = PythonSource(resolved, settings, build_hook)
    if settings.isolate:
        return HarnessSource(isolated(resolved, source.portable_spec()), settings, env)
    return source
