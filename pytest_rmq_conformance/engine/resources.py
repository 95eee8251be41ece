"""Where the shipped data lives: ``golden/`` and ``schemas/``.

In a wheel both sit inside the package, under ``data/``; in a checkout or an
editable install they are the top-level folders of the project.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin

__all__ = ["data_dir", "golden_dir", "schemas_dir", "schema_path", "schema_validator"]

_PACKAGE = Path(__file__).resolve().parent.parent


@cache
def data_dir(name: str) -> Path:
    """The folder ``name`` (``"golden"`` or ``"schemas"``) of this installation (found once: every
    harness message asks for the schemas' folder)."""
    for candidate in (_PACKAGE / "data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"pytest-rmq-conformance data folder {name!r} not found next to {_PACKAGE}; "
        "the installation is incomplete (reinstall the package)"
    )


def golden_dir() -> Path:
    return data_dir("golden")


def schemas_dir() -> Path:
    return data_dir("schemas")


@cache
def _registry():
    from referencing import Registry, Resource

    resources = []
    for path in sorted(schemas_dir().glob("*.schema.json")):
        resource = Resource.from_contents(json.loads(path.read_text(encoding="utf-8")))
        resources.append((resource.id() or path.name, resource))
    return Registry().with_resources(resources)


def schema_path(name: str | Path) -> Path:
    """``schemas/<name>.schema.json`` of this installation, or ``name`` itself when it is a path."""
    return name if isinstance(name, Path) else schemas_dir() / f"{name}.schema.json"


@cache
def schema_validator(name: str | Path):
    """A jsonschema validator for ``schemas/<name>.schema.json``, or the schema file ``name`` when it
    is a path (``$ref`` to the shipped schemas resolved)."""
    from jsonschema import Draft202012Validator
    from referencing import Resource
    from referencing.jsonschema import DRAFT202012

    path = schema_path(name)
    schema: dict = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    registry = _registry()
    resolver = registry.resolver_with_root(Resource.from_contents(schema, default_specification=DRAFT202012))
    return Draft202012Validator(_inlined(schema, resolver, schema.get("$id", ""), ()), registry=registry)


def _inlined(node: Any, resolver: Any, base: str, within: tuple[str, ...]) -> Any:
    """``node`` with each ``$ref`` replaced by the subschema it names, looked up once here rather
    than at every instance validated (a harness's trace answers validate in two thirds of the
    time). A reference back into a subschema being inlined stays a reference, made absolute."""
    if isinstance(node, list):
        return [_inlined(item, resolver, base, within) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if not isinstance(ref, str):
        return {key: _inlined(value, resolver, base, within) for key, value in node.items()}
    rest = {key: _inlined(value, resolver, base, within) for key, value in node.items() if key != "$ref"}
    target = urljoin(base, ref)
    if target in within:
        return {**rest, "$ref": target}
    resolved = resolver.lookup(ref)
    inlined = _inlined(resolved.contents, resolved.resolver, urldefrag(target).url, (*within, target))
    if isinstance(inlined, dict):
        inlined = {key: value for key, value in inlined.items() if key not in ("$id", "$schema", "$defs")}
    return inlined if not rest else {**rest, "allOf": [*rest.get("allOf", []), inlined]}
