"""Where the shipped data lives: ``golden/`` and ``schemas/``.

In a wheel both sit inside the package, under ``data/``; in a checkout or an
editable install they are the top-level folders of the project.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

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

    path = schema_path(name)
    schema: dict = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, registry=_registry())
