"""Module paths of release 0.1, kept importable after the engine/plugin split.

``import pytest_rmq_conformance.calls`` gives the very module object
``pytest_rmq_conformance.engine.calls`` (not a copy), so classes keep one
identity whichever path imported them.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["MOVED", "install"]

_PACKAGE = __name__.rpartition(".")[0]

#: old module (relative to the package) -> where it lives now
MOVED: dict[str, str] = {
    "calls": "engine.calls",
    "conformance": "engine.cases",
    "consistency": "engine.one_answer",
    "differential": "engine.differential",
    "generated": "engine.generation",
    "golden": "engine.golden",
    "golden_import": "engine.golden_import",
    "groups": "engine.groups",
    "hookspecs": "plugin.hookspecs",
    "invariants": "engine.invariants",
    "loading": "engine.specs",
    "properties": "engine.properties",
    "replay": "engine.replay",
    "reporting": "engine.reports",
    "resources": "engine.resources",
    "ring_collisions": "engine.ring_collisions",
    "scenarios": "engine.scenarios",
    "selection": "plugin.divergences",
    "timeouts": "engine.timeouts",
    "worker": "engine.answerer",
}


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path and loads it as the module that now holds its code."""

    def find_spec(self, fullname, path=None, target=None):
        package, _, name = fullname.rpartition(".")
        if package != _PACKAGE or name not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        module = importlib.import_module(f"{_PACKAGE}.{MOVED[spec.name.rpartition('.')[2]]}")
        spec.loader_state = module.__spec__
        return module

    def exec_module(self, module):
        # the import system stamped the old name's spec on the module: give it its own back
        module.__spec__ = module.__spec__.loader_state


def install() -> None:
    """Put the finder on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, _Alias) for finder in sys.meta_path):
        sys.meta_path.append(_Alias())
