"""The suite's rebalance checks as users run them: the churn table and its numbers."""

import re

import pytest

pytestmark = pytest.mark.once

Q = ["-p", "no:cacheprovider", "-p", "no:randomly", "--rmq-checks=rebalance", "--rmq-seed=1"]


def churn_table(text):
    """case -> (moved, lower bound, own, rebuilt), from the churn table."""
    rows = {}
    for line in text.splitlines():
        match = re.match(r"^(\S+q-\S+c-\S+)\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", line)
        if match:
            rows[match.group(1)] = tuple(int(n) for n in match.groups()[2:])
    return rows


def churn_rows(text):
    """case -> (moved, lower bound, own)."""
    return {case: row[:3] for case, row in churn_table(text).items()}


def test_avg_moves_8_ownerships_when_the_second_of_4_clients_leaves_24_queues(pytester):
    result = pytester.runpytest(*Q, "--rmq-strategy=AVG")
    assert result.ret == 0, result.stdout.str()
    rows = churn_rows(result.stdout.str())
    assert rows["24q-4c-second-leaves"] == (8, 6, 6)
    assert rows["24q-4c-second-crashes"] == (8, 6, 6)
    assert rows["24q-4c-fifth-joins"][1:] == (4, 4)


def test_consistent_hashing_moves_only_the_leavers_queues(pytester):
    result = pytester.runpytest(*Q, "--rmq-strategy=CONSISTENT_HASH")
    assert result.ret == 0, result.stdout.str()
    table = churn_table(result.stdout.str())
    assert len(table) == 4
    for case, (moved, _, own, rebuilt) in table.items():
        assert moved == own == rebuilt, case


@pytest.mark.parametrize("version", ["4.9.8", "5.3.3"])
def test_the_churn_table_reaches_the_controller_under_xdist(pytester, version):
    result = pytester.runpytest(*Q, "--rmq-strategy=AVG", f"--rmq-reference-version={version}", "-n", "2")
    assert result.ret == 0, result.stdout.str()
    assert churn_rows(result.stdout.str())["24q-4c-second-leaves"] == (8, 6, 6)


def test_a_strategy_that_does_not_partition_is_not_held_to_convergence(pytester):
    result = pytester.runpytest(*Q, "--rmq-strategy=CONFIG", "-rs")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*CONFIG does not claim coverage and no-double-assignment*"])
    assert "rebalance churn" not in result.stdout.str()
