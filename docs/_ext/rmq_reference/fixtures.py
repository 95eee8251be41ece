"""``rmq-fixtures``: the fixtures the plugin registers, found in its module's namespace (what pytest
collects from a plugin), with their scope, the fixtures they use and their docstrings."""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from typing import Any

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from rmq_reference.rst import parse_rst

PLUGIN = "pytest_rmq_conformance.plugin"


@dataclass
class Fixture:
    name: str
    scope: str
    function: Any  # the undecorated function

    @property
    def module(self) -> str:
        return self.function.__module__

    @property
    def uses(self) -> list[str]:
        return [name for name in inspect.signature(self.function).parameters if name != "request"]

    @property
    def doc(self) -> str:
        return inspect.getdoc(self.function) or ""


def _fixture(name: str, value: Any) -> Fixture | None:
    """``value`` as a fixture when it is one: pytest 8.4+ wraps the function in a
    ``FixtureFunctionDefinition``; before, the function carries ``_pytestfixturefunction``."""
    marker = getattr(value, "_fixture_function_marker", None)
    if marker is not None:
        return Fixture(marker.name or name, str(marker.scope), value._get_wrapped_function())
    marker = getattr(value, "_pytestfixturefunction", None)
    if marker is not None:
        return Fixture(marker.name or name, str(marker.scope), getattr(value, "__wrapped__", value))
    return None


def registered(plugin: str = PLUGIN) -> list[Fixture]:
    """The fixtures of ``plugin``'s namespace, by name."""
    module = importlib.import_module(plugin)
    found = [fixture for name, value in vars(module).items() if (fixture := _fixture(name, value)) is not None]
    if not found:
        raise ValueError(f"{plugin} registers no fixture")
    return sorted(found, key=lambda fixture: fixture.name)


def fixtures_rst(fixtures: list[Fixture]) -> str:
    names = {fixture.name for fixture in fixtures}
    lines = []
    for fixture in fixtures:
        lines += [f".. py:currentmodule:: {fixture.module}", "", f".. fixture:: {fixture.name}", ""]
        fields = [f"Scope: ``{fixture.scope}``"]
        if fixture.uses:
            fields.append(
                "uses: " + ", ".join(f":fixture:`{name}`" if name in names else f"``{name}``" for name in fixture.uses)
            )
        fields.append(f"defined in ``{fixture.module}``")
        lines += ["   " + " · ".join(fields), ""]
        lines += [("   " + line).rstrip() for line in fixture.doc.splitlines()]
        lines.append("")
    lines += [".. py:currentmodule:: None", ""]
    return "\n".join(lines)


class FixturesDirective(SphinxDirective):
    has_content = False
    option_spec = {"plugin": str}

    def run(self) -> list[nodes.Node]:
        plugin = self.options.get("plugin", PLUGIN)
        try:
            fixtures = registered(plugin)
        except Exception as exc:
            raise self.error(f"rmq-fixtures: {plugin}: {type(exc).__name__}: {exc}") from None
        missing = [fixture.name for fixture in fixtures if not fixture.doc.strip()]
        if missing:
            raise self.error(f"rmq-fixtures: fixtures without a docstring: {', '.join(missing)}")
        return parse_rst(self, fixtures_rst(fixtures))
