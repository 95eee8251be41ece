"""The harness protocol, declared once: ``schemas/protocol-*.schema.json``, one JSON Schema per
message, shipped with the package. This module reads the declaration; the client
(:mod:`~pytest_rmq_conformance.engine.remote`) and the built-in harness
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
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from pytest_rmq_conformance.engine.resources import schema_validator, schemas_dir
from pytest_rmq_conformance.model import MessageQueue

__all__ = ["VERSION", "Message", "declared", "message", "problems", "queue_to_json"]

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

    @property
    def schema(self) -> str:
        return f"{PREFIX}{self.name}"


@cache
def declared() -> dict[str, Message]:
    """Every message of the protocol, by name, as the schemas declare it."""
    found = {}
    for path in sorted(schemas_dir().glob(f"{PREFIX}*.schema.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        name = path.name.removeprefix(PREFIX).removesuffix(".schema.json")
        found[name] = Message(
            name,
            frozenset(schema.get("properties", {})),
            frozenset(schema.get("required", ())),
            schema.get("additionalProperties", True) is False,
        )
    return found


def message(name: str, fields: Mapping[str, Any]) -> dict[str, Any]:
    """The message ``name`` with ``fields``, checked against its declaration (field names only:
    values are the schemas' business, :func:`problems` checks them)."""
    declaration = declared()[name]
    where = f"declared in schemas/{declaration.schema}.schema.json"
    missing = sorted(declaration.required - set(fields))
    if missing:
        raise ValueError(f"{name}: {', '.join(missing)} is required ({where})")
    extra = sorted(set(fields) - declaration.fields)
    if extra and declaration.closed:
        raise ValueError(f"{name}: {', '.join(extra)} is not a field of it ({where})")
    return dict(fields)


def problems(name: str, document: Any) -> list[str]:
    """Every way ``document`` breaks the declaration of message ``name`` (empty: it conforms)."""
    validator = schema_validator(declared()[name].schema)
    return [f"at {'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message}" for error in validator.iter_errors(document)]


def queue_to_json(mq: MessageQueue) -> list:
    """A queue as the protocol writes it: ``[topic, brokerName, queueId]``."""
    return [mq.topic, mq.broker_name, mq.queue_id]
