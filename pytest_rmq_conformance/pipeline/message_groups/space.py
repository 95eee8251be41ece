"""Internal: the message-group sweep's space.

The message-group sweep's space: ``groups`` message groups, named by a format from their index, spread
over every queue count ``K`` of a range, each ``K`` compared with ``K - 1`` and ``K + 1``.

Group ``i`` is the same text on any machine and in any partition.

    >>> space = GroupSpace(groups=1000, queues=(2, 4))
    >>> space.group(7), list(space.counts())
    ('order-7', [1, 2, 3, 4, 5])
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GroupSpace", "parse_group_format", "MAX_QUEUES"]

#: the largest queue count swept (a topic of the golden vectors has at most 65,536 queues)
MAX_QUEUES = 65536


def parse_group_format(text: str) -> str:
    """``text`` checked as a group name format: ``{i}`` (the group's index, format spec allowed:
    ``{i:08d}``) must appear, nothing else may be named."""
    try:
        sample = text.format(i=12345)
    except (KeyError, IndexError, ValueError) as exc:
        raise ValueError(f"--group-format must name only {{i}}, the group's index (as in 'order-{{i}}'), not {text!r}: {exc}") from None
    if sample == text.format(i=54321):
        raise ValueError(f"--group-format must contain {{i}}, the group's index (as in 'order-{{i}}'), not {text!r}")
    return text


@dataclass(frozen=True)
class GroupSpace:
    """``groups`` message groups named ``name_format.format(i=index)``, over every queue count of
    ``queues`` (an inclusive range)."""

    groups: int = 100_000
    queues: tuple[int, int] = (1, 64)
    name_format: str = "order-{i}"

    def __post_init__(self) -> None:
        parse_group_format(self.name_format)
        if self.groups < 1:
            raise ValueError(f"--groups must be 1 or more, not {self.groups}")
        low, high = self.queues
        if not 1 <= low <= high <= MAX_QUEUES:
            raise ValueError(f"--queues must be MIN:MAX with 1 <= MIN <= MAX <= {MAX_QUEUES}, not {low}:{high}")

    def group(self, index: int) -> str:
        return self.name_format.format(i=index)

    def measured(self) -> range:
        """The queue counts the report has a row for."""
        return range(self.queues[0], self.queues[1] + 1)

    def counts(self) -> range:
        """Every queue count a group is mapped over: the measured ones and their neighbours."""
        return range(max(1, self.queues[0] - 1), self.queues[1] + 2)

    def as_dict(self) -> dict[str, object]:
        return {"groups": self.groups, "queues": list(self.queues), "group_format": self.name_format}
