"""The harness protocol, declared once: ``schemas/protocol-*.schema.json``, one JSON Schema per
message, shipped with the package (a kind of strategy may keep its messages' schemas in folders
of its own, :attr:`~pytest_rmq_conformance.engine.kinds.Kind.schema_dirs`). This module reads
the declaration; the client
(:mod:`~pytest_rmq_conformance.engine.protocol.client`) and the built-in harness
(:mod:`pytest_rmq_conformance.harness`) build every message they send through :func:`message`,
which refuses a missing required field, and a field the declaration does not have where the
message is closed (every request is); the answers' variants (``oneOf``) are the schemas'
business, and the tests validate both directions of real conversations against them.

    >>> message("hello-request", {"cmd": "hello", "protocol": VERSION})
    {'cmd': 'hello', 'protocol': 1}
    >>> message("sort-request", {"cmd": "sort", "id": 1, "mqAll": None})
    Traceback (most recent call last):
    ...
    ValueError: sort-request: cidAll is required (declared in schemas/protocol-sort-request.schema.json)

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.resources import schema_validator, schemas_dir

__all__ = ["VERSION", "Message", "declared", "message", "problems"]

#: the protocol version both sides name in the hello exchange
VERSION = 1
#: schema file names are ``protocol-<message>.schema.json``
PREFIX = "protocol-"


@dataclass(frozen=True)
class Message:
    """One message of the protocol: its name (``allocate-request``) and top-level fields."""

    name: str
    fields: frozenset[str]
    required: frozenset[str]
    closed: bool  # no fields beyond the declared ones
    path: Path  # its schema file

    @property
    def schema(self) -> str:
        return f"{PREFIX}{self.name}"


def declared() -> dict[str, Message]:
    """Every message of the protocol, by name, as the schemas declare it: the shipped ones and
    those of every registered kind."""
    folders = [schemas_dir()] + [folder for kind in kinds.all_kinds() for folder in kind.schema_dirs]
    return _declared(tuple(folders))


@cache
def _declared(folders: tuple[Path, ...]) -> dict[str, Message]:
    found = {}
    for folder in folders:
        for path in sorted(folder.glob(f"{PREFIX}*.schema.json")):
            schema = json.loads(path.read_text(encoding="utf-8"))
            name = path.name.removeprefix(PREFIX).removesuffix(".schema.json")
            found[name] = Message(
                name,
                frozenset(schema.get("properties", {})),
                frozenset(schema.get("required", ())),
                schema.get("additionalProperties", True) is False,
                path,
            )
    return found


def message(name: str, fields: Mapping[str, Any]) -> dict[str, Any]:
    """The message ``name`` with ``fields``, checked against its declaration (field names only:
    values are the schemas' business, :func:`problems` checks them)."""
    declaration = declared()[name]
    where = f"declared in {_shown(declaration)}"
    missing = sorted(declaration.required - set(fields))
    if missing:
        raise ValueError(f"{name}: {', '.join(missing)} is required ({where})")
    extra = sorted(set(fields) - declaration.fields)
    if extra and declaration.closed:
        raise ValueError(f"{name}: {', '.join(extra)} is not a field of it ({where})")
    return dict(fields)


def problems(name: str, document: Any) -> list[str]:
    """Every way ``document`` breaks the declaration of message ``name`` (empty: it conforms)."""
    declaration = declared()[name]
    validator = schema_validator(declaration.schema if declaration.path.parent == schemas_dir() else declaration.path)
    return [f"at {'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message}" for error in validator.iter_errors(document)]


def _shown(declaration: Message) -> str:
    """Where a message is declared: ``schemas/...`` for the shipped ones, else the file's path."""
    if declaration.path.parent == schemas_dir():
        return f"schemas/{declaration.path.name}"
    return str(declaration.path)
