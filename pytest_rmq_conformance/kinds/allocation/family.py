"""The record of a consumer-allocation family: what the suite knows of one Java strategy.

Besides what every family record says
(:class:`~pytest_rmq_conformance.engine.kinds.Family`: the reference port, golden ``params``
to a factory's keywords and back, the probe configuration, Java's properties per release), an
:class:`AllocationFamily` says which parameters suit a queue layout, how hypothesis draws its
parameters, the edge configurations every seed asks, how to explain where Java placed a queue,
and whether its brokers need machine rooms. The six Java families are in :mod:`.families`.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.model import MessageQueue

__all__ = ["KIND", "PARTITION", "AllocationFamily", "get"]

#: the name of the kind these families belong to
KIND = "allocation"

#: a partition of mq_all that every client computes alike
PARTITION: frozenset[str] = frozenset({"coverage", "no-double-assignment", "only-from-mq-all", "one-answer"})

Params = Mapping[str, Any]
Keywords = dict[str, Any]


def _draw_nothing(draw, queues: Sequence[MessageQueue], adversarial: bool) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class AllocationFamily(kinds.Family):
    """A family of consumer allocation: a :class:`~pytest_rmq_conformance.engine.kinds.Family`
    (its ``properties`` default to a :data:`PARTITION`), and

    - ``default_params(mq_all)``: params that suit a queue layout (the churn cases, the sweep);
    - ``draw_params(draw, queues, adversarial)``: hypothesis-drawn params for a group;
    - ``draw_group(draw, consumer_group, adversarial)``: for a family whose params shape the whole
      group (names carrying rooms), a drawn :class:`~pytest_rmq_conformance.kinds.allocation.scenarios.Scenario`;
    - ``edge_params``: configurations at the edges of what Java takes (or refuses), which the
      checks that compare with the reference see at every seed;
    - ``needs_rooms``: its brokers must be named ``<room>@<name>`` for it to serve them;
    - ``hashes``: it places queues on a hash ring (groups then plant ring-key collisions);
    - ``covers_nothing(params)``: whether that configuration hands out no queue at all (a ring
      with no virtual node), so that coverage cannot hold;
    - ``explain(reference, group, mq, holders)``: for a queue the strategy under test placed
      otherwise than Java, one line saying why Java's strategy (``reference``, the port built for
      the generated ``group``) places it where it does; ``holders`` are the callers the strategy
      under test gave it to. ``None`` when there is nothing to add.
    """

    kind: str = KIND
    properties: Callable[[str], frozenset[str]] = lambda version: PARTITION
    default_params: Callable[[Sequence[MessageQueue]], dict[str, Any]] = lambda mq_all: {}
    draw_params: Callable[..., dict[str, Any]] = _draw_nothing
    draw_group: Callable[..., Any] | None = None
    explain: Callable[[Any, Any, MessageQueue, Sequence[str]], str | None] | None = None
    edge_params: tuple[Params, ...] = ()
    needs_rooms: bool = False
    hashes: bool = False
    covers_nothing: Callable[[Params], bool] = lambda params: False


def get(name: str) -> AllocationFamily:
    """The allocation family called ``name`` (``ValueError`` for an unknown name, or one of another kind)."""
    family = kinds.get(name)
    if not isinstance(family, AllocationFamily):
        raise ValueError(f"{name} is a family of kind {family.kind!r}, not of consumer allocation")
    return family
