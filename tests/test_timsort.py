"""Replay Java 17 reference vectors through ``java_sort``.

The vectors in ``data/timsort_vectors.jsonl`` come from
``java/TimSortVectors.java`` (see its header to regenerate); Java is not
needed to run these tests.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_rmq_conformance._timsort import CONTRACT_VIOLATION, java_sort

DATA = Path(__file__).parent / "data" / "timsort_vectors.jsonl"


def wrap_int32(x: int) -> int:
    """Java ``int`` arithmetic: wrap to the signed 32-bit range."""
    return ((x + 2**31) % 2**32) - 2**31


def java_int_compare(a: int, b: int) -> int:
    """``this.v - other.v`` as Java evaluates it (may overflow)."""
    return wrap_int32(a - b)


def _load():
    with DATA.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


VECTORS = _load()


def test_vector_file_covers_interesting_cases():
    errors = [v for v in VECTORS if "error" in v]
    non_monotone = [
        v
        for v in VECTORS
        if "output" in v and any(x > y for x, y in zip(v["output"], v["output"][1:]))
    ]
    assert len(VECTORS) >= 100
    assert {v["thrown_in"] for v in errors} == {"mergeLo", "mergeHi"}
    assert len(non_monotone) >= 20


@pytest.mark.parametrize("vec", VECTORS, ids=[v["name"] for v in VECTORS])
def test_values_match_java(vec):
    items = list(vec["input"])
    if "error" in vec:
        assert vec["error"] == CONTRACT_VIOLATION
        with pytest.raises(ValueError) as info:
            java_sort(items, java_int_compare)
        assert str(info.value) == vec["error"]
        # Java leaves its array half-merged; we must leave the same state.
        assert items == vec["state"]
    else:
        java_sort(items, java_int_compare)
        assert items == vec["output"]


@pytest.mark.parametrize("vec", VECTORS, ids=[v["name"] for v in VECTORS])
def test_element_placement_matches_java(vec):
    """Sort indices instead of values: checks stability among equal values
    and exactly which element lands in each slot."""
    values = vec["input"]
    indices = list(range(len(values)))

    def compare(i, j):
        return java_int_compare(values[i], values[j])

    if "error" in vec:
        with pytest.raises(ValueError, match=CONTRACT_VIOLATION):
            java_sort(indices, compare)
    else:
        java_sort(indices, compare)
    assert indices == vec["order"]


# ---- consistent comparators: must agree with Python's (stable) sort ----


def _check_against_sorted(values):
    items = list(values)
    java_sort(items, java_int_compare)
    assert items == sorted(values)


@given(st.lists(st.integers(-(2**30), 2**30 - 1), max_size=400))
def test_consistent_int_range_equals_sorted(values):
    _check_against_sorted(values)


# long lists are the point here: drawing them is slow on a busy machine, and that is no failure
@settings(max_examples=50, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(-20, 20), min_size=500, max_size=3000))
def test_many_duplicates_long_lists_equals_sorted(values):
    _check_against_sorted(values)


@given(st.lists(st.tuples(st.integers(0, 5), st.integers()), max_size=300))
def test_stable_like_sorted(pairs):
    """Keyed comparison (ignores the second field): order must be stable."""
    items = list(pairs)
    java_sort(items, lambda a, b: a[0] - b[0])
    assert items == sorted(pairs, key=lambda p: p[0])


@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.lists(st.integers(-1000, 1000), min_size=1, max_size=200).map(sorted),
        max_size=30,
    ),
    st.randoms(use_true_random=False),
)
def test_presorted_runs_equal_sorted(runs, rnd):
    """Ascending and descending runs exercise run detection and galloping."""
    values = []
    for run in runs:
        values.extend(reversed(run) if rnd.random() < 0.3 else run)
    _check_against_sorted(values)


def test_trivial_sizes():
    for items in ([], [5]):
        copy = list(items)
        java_sort(copy, java_int_compare)
        assert copy == items


def test_comparison_count_matches_binary_insertion():
    """Below 32 elements Java does a run scan then binary insertion; on
    already sorted input that is exactly n - 1 comparisons."""
    calls = []

    def counting(a, b):
        calls.append((a, b))
        return a - b

    java_sort(list(range(31)), counting)
    assert len(calls) == 30


def test_overflowing_compare_small_example():
    """Hand-traced: the run scan accepts 0, MAX, MIN as ascending (MIN - MAX
    wraps to +1), then binary insertion puts 1 after 0."""
    items = [0, 2**31 - 1, -(2**31), 1]
    java_sort(items, java_int_compare)
    assert items == [0, 1, 2**31 - 1, -(2**31)]
