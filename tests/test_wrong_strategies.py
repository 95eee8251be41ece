"""The replay rejects each deliberately wrong strategy (test_golden_replay.py shows that the same
replay accepts the reference ports on every vector)."""

from functools import partial

import pytest
from miniatures import MINIATURES, ORDER_ONLY

from pytest_rmq_conformance.kinds.allocation.replay import replay_case


def mismatches_of(golden, family, build, strict_order):
    """The mismatches of the first case-run that has any (all of them: [] when it conforms)."""
    for case in golden.by_strategy(family):
        for run_id in case.runs:
            run = golden.runs[run_id]
            params = case.params_for(run)
            found = replay_case(partial(build, params, run.rocketmq), case, run_id, strict_order=strict_order)
            if found:
                return found
    return []


@pytest.mark.parametrize("name", sorted(MINIATURES))
def test_replay_rejects_wrong_strategy(golden, name):
    family, build = MINIATURES[name]
    assert mismatches_of(golden, family, build, strict_order=True), f"{name} passed every {family} vector"


@pytest.mark.parametrize("name", sorted(set(MINIATURES) - ORDER_ONLY))
def test_set_comparison_still_rejects_wrong_shares(golden, name):
    family, build = MINIATURES[name]
    assert mismatches_of(golden, family, build, strict_order=False)


@pytest.mark.parametrize("name", sorted(ORDER_ONLY))
def test_order_only_mistakes_pass_set_comparison(golden, name):
    family, build = MINIATURES[name]
    assert not mismatches_of(golden, family, build, strict_order=False)
