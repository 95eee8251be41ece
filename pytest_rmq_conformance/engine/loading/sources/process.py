"""A strategy served by another process over the JSON-lines protocol: an ``exec:`` harness, or
a Python strategy isolated in the built-in harness (``--rmq-isolate``).

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.loading.specs import EXEC, Resolved, SpecError
from pytest_rmq_conformance.engine.protocol.client import Harness, HarnessFault

if TYPE_CHECKING:
    from pytest_rmq_conformance.engine.settings import Settings

__all__ = ["HarnessSource", "isolated"]


class HarnessSource:
    """The harness process is started when probed (its hello names it) and serves every build."""

    instance = None
    probed = None
    reference = False

    def __init__(self, resolved: Resolved, settings: Settings, env: Callable[[], dict[str, str]]):
        self.resolved, self.settings, self._env = resolved, settings, env
        self.harness: Harness | None = None

    def probe(self) -> str:
        settings = self.settings
        self.harness = Harness(
            self.resolved.target, timeout=settings.timeout, max_restarts=settings.max_restarts, cwd=os.getcwd(), env=self._env()
        )
        try:
            return self.harness.hello().name
        except HarnessFault as exc:
            raise SpecError(f"--rmq-strategy={settings.spec}: the harness never said hello: {exc}") from None

    def build(self, family: str | None, params: Mapping[str, Any], case: Any, charset: str) -> Any:
        assert self.harness is not None and family is not None, "a harness builds for a known family, once probed"
        return kinds.kind_of(family).remote(self.harness, family, params, self.settings.version)

    def portable_spec(self) -> str | None:
        return f"{EXEC}{self.resolved.target}"


def isolated(resolved: Resolved, portable: str | None) -> Resolved:
    """``resolved``, a Python strategy importable as ``portable``, served by the built-in harness."""
    if portable is None:
        raise SpecError(
            f"--rmq-strategy={resolved.spec} --rmq-isolate: another process cannot import this strategy; "
            "name it as module:attribute or an entry point"
        )
    command = shlex.join([sys.executable, "-m", "pytest_rmq_conformance.harness", portable])
    return Resolved(resolved.spec, "harness", command, f"{resolved.where}, isolated")
