"""A toy strategy family, registered in one place, to show that a family is one record.

``ROTATE`` hands queue ``i`` of ``mq_all`` to client ``(i + offset) % n`` of ``cid_all``.
Its golden vectors (``data/toy-golden/ROTATE.jsonl``) were worked out by hand.
``RotateIgnoringOffset`` is its deliberately wrong twin.
"""

from hypothesis import strategies as st

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.kinds.allocation.family import PARTITION, AllocationFamily


class Rotate:
    name = "ROTATE"

    def __init__(self, offset=0):
        self.offset = offset

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if current_cid not in cid_all:
            return []
        index = cid_all.index(current_cid)
        return [mq for i, mq in enumerate(mq_all) if (i + self.offset) % len(cid_all) == index]


class RotateIgnoringOffset(Rotate):
    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        return Rotate(0).allocate(consumer_group, current_cid, mq_all, cid_all)


def _draw_offset(draw, queues, adversarial):
    return {"offset": draw(st.integers(0, 5))}


kinds.register_family(
    AllocationFamily(
        "ROTATE",
        build=lambda params, version, charset: Rotate(params.get("offset", 0)),
        properties=lambda version: PARTITION | {"balance"},
        keywords=lambda params, version, charset: {"offset": params.get("offset", 0)},
        params=lambda keywords: {"offset": keywords["offset"]},
        keyword_names=("offset",),
        probe={"offset": 1},
        default_params=lambda mq_all: {"offset": 1},
        draw_params=_draw_offset,
        port=Rotate,
    )
)
