"""The Java helpers the producer ports need: long/int arithmetic, hash codes, java.util.Random
and ConcurrentHashMap's iteration order. Expected values come from Java 17."""

from itertools import chain

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_rmq_conformance.javalang import (
    INT_MAX,
    INT_MIN,
    LONG_MAX,
    LONG_MIN,
    HashCodeOf,
    JavaConcurrentHashMap,
    JavaInteger,
    JavaLong,
    JavaRandom,
    java_abs,
    java_hash_code,
    java_list_get,
    java_long,
    java_rem,
    java_string_hash,
    mask31,
)

MIN_VALUE_STRINGS = ["polygenelubricants", "GydZG_", "DESIGNING WORKHOUSES"]


def test_long_wraps_at_64_bits():
    assert java_long(LONG_MAX + 1) == LONG_MIN
    assert java_long(LONG_MIN - 1) == LONG_MAX
    assert java_long(2**64 + 5) == 5


def test_abs_leaves_int_min_negative():
    assert java_abs(-5) == 5
    assert java_abs(INT_MIN) == INT_MIN
    assert java_abs(INT_MIN + 1) == INT_MAX


def test_rem_truncates_like_java():
    assert java_rem(-7, 3) == -1
    assert java_rem(7, -3) == 1
    assert java_rem(INT_MIN, 3) == -2
    assert java_rem(INT_MIN, 4) == 0
    assert java_rem(INT_MIN, 10) == -8
    with pytest.raises(ZeroDivisionError, match="/ by zero"):
        java_rem(1, 0)


@given(st.integers(INT_MIN, INT_MAX), st.integers(1, INT_MAX))
def test_rem_has_the_sign_of_the_dividend(a, n):
    r = java_rem(a, n)
    assert abs(r) < n
    assert r == 0 or (r < 0) == (a < 0)
    assert (a - r) % n == 0


def test_mask31():
    assert mask31(-1) == INT_MAX
    assert mask31(INT_MIN) == 0
    assert mask31(INT_MAX) == INT_MAX


def test_list_get_does_not_count_from_the_end():
    assert java_list_get([1, 2, 3], 2) == 3
    with pytest.raises(IndexError, match=r"^Index -8 out of bounds for length 10$"):
        java_list_get(list(range(10)), -8)
    with pytest.raises(IndexError):
        java_list_get([], 0)


def test_string_hash():
    assert java_string_hash("") == 0
    assert java_string_hash("123") == 48690
    assert java_string_hash("234") == 49683
    assert java_string_hash("order-1") == -1207111310
    assert java_string_hash("\U0001F600x") == 54959989  # a surrogate pair counts as two units
    assert java_string_hash("\ud83d\ude00x") == 54959989  # the same Java string spelled as units
    assert java_string_hash("\ud800") == 55296  # a lone surrogate is a legal Java string
    assert java_string_hash("abc\udfffdef") == 499033864
    assert java_string_hash("日本語") == 25921943


@pytest.mark.parametrize("text", MIN_VALUE_STRINGS)
def test_strings_whose_hash_is_int_min(text):
    assert java_string_hash(text) == INT_MIN


def test_hash_codes_of_boxed_values():
    assert java_hash_code("123") == 48690
    assert java_hash_code(JavaInteger(-5)) == -5
    assert java_hash_code(HashCodeOf(INT_MIN)) == INT_MIN
    assert java_hash_code(JavaLong(2**31)) == INT_MIN
    assert java_hash_code(JavaLong(LONG_MIN)) == INT_MIN
    assert java_hash_code(JavaLong(LONG_MAX)) == INT_MIN
    assert java_hash_code(JavaLong(-1)) == 0
    assert java_hash_code(JavaLong(123456789012)) == -1097262584


def test_hash_code_of_null_and_of_unknown_types():
    with pytest.raises(TypeError):
        java_hash_code(None)
    with pytest.raises(TypeError, match="int"):
        java_hash_code(5)
    with pytest.raises(ValueError):
        JavaInteger(2**31)
    with pytest.raises(ValueError):
        JavaLong(2**63)


def test_boxed_values_compare_by_type_and_value():
    assert JavaInteger(1) == JavaInteger(1)
    assert JavaInteger(1) != JavaLong(1)
    assert len({JavaInteger(1), JavaInteger(1), HashCodeOf(1)}) == 2


def test_random_next_int():
    random = JavaRandom(42)
    assert [random.next_int(), random.next_int()] == [-1170105035, 234785527]
    random = JavaRandom(42)
    assert [random.next_int(INT_MAX), random.next_int(INT_MAX)] == [1562431130, 117392763]


@pytest.mark.parametrize(
    "bound, expected",
    [
        (10, [0, 8, 9, 7]),
        (1024, [748, 851, 246, 620]),  # a power of two: the high bits
        (2**30 + 1, [516548029, 663681053, 251269761, 715581077]),  # draws again about half the time
    ],
)
def test_random_next_int_bounded(bound, expected):
    random = JavaRandom(0)
    assert [random.next_int(bound) for _ in expected] == expected


def test_random_seeds_wrap_to_a_long():
    assert JavaRandom(2**64).next_int() == JavaRandom(0).next_int() == -1155484576
    assert JavaRandom(LONG_MIN).next_int() == JavaRandom(2**63).next_int()


@pytest.mark.parametrize("bound", [0, -1, INT_MIN])
def test_random_bound_must_be_positive(bound):
    with pytest.raises(ValueError, match=r"^bound must be positive$"):
        JavaRandom(1).next_int(bound)


def test_shuffle_is_collections_shuffle():
    items = ["A", "B", "C", "D", "E"]
    JavaRandom(42).shuffle(items)
    assert items == ["B", "C", "D", "E", "A"]
    numbers = list(range(12))
    JavaRandom(0).shuffle(numbers)
    assert numbers == [4, 10, 3, 8, 1, 7, 11, 5, 2, 9, 6, 0]


def test_concurrent_hash_map_iterates_by_bin():
    table: JavaConcurrentHashMap[int] = JavaConcurrentHashMap()
    for key in ["broker-a", "broker-b", "C", "B", "A"]:
        table.put(key, 0)
    assert list(table.keys()) == ["A", "B", "C", "broker-b", "broker-a"]


def test_keys_sharing_a_bin_keep_insertion_order():
    assert JavaConcurrentHashMap.spread("B") & 31 == JavaConcurrentHashMap.spread("broker-h") & 31 == 2
    table: JavaConcurrentHashMap[int] = JavaConcurrentHashMap()
    table.put("broker-h", 1)
    table.put("B", 2)
    assert list(table.keys()) == ["broker-h", "B"]
    table.put("broker-h", 3)  # a present key keeps its place
    assert list(table.items()) == [("broker-h", 3), ("B", 2)]
    assert table.remove("broker-h") == 3
    table.put("broker-h", 4)  # removed and put again: the end of its bin
    assert list(table.items()) == [("B", 2), ("broker-h", 4)]


def test_concurrent_hash_map_as_a_map():
    table: JavaConcurrentHashMap[str] = JavaConcurrentHashMap()
    assert table.put_if_absent("A", "x") is None
    assert table.put_if_absent("A", "y") == "x"
    assert table.get("A") == "x" and table.get("B") is None
    assert "A" in table and len(table) == 1 and list(table.values()) == ["x"]
    assert table.remove("B") is None
    for call in (lambda: table.get(None), lambda: table.put(None, "z"), lambda: table.remove(None)):
        with pytest.raises(TypeError):
            call()


def test_concurrent_hash_map_growth_keeps_every_key():
    table: JavaConcurrentHashMap[int] = JavaConcurrentHashMap()
    keys = [f"broker-{i}" for i in range(100)]
    for i, key in enumerate(keys):
        table.put(key, i)
    assert sorted(table.keys()) == sorted(keys)
    assert [table.get(key) for key in keys] == list(range(100))


def test_concurrent_hash_map_iterators_are_snapshots_of_the_order_of_the_moment():
    """The order is worked out once per change of keys; an iterator taken before a change goes
    on with the keys of its moment."""
    table: JavaConcurrentHashMap[int] = JavaConcurrentHashMap()
    table.put("broker-h", 1)
    keys = table.keys()
    table.put("B", 2)
    table.put("broker-h", 3)
    assert list(keys) == ["broker-h"]
    assert list(table.keys()) == ["broker-h", "B"] and list(table.values()) == [3, 2]
    keys = table.keys()
    table.remove("broker-h")
    assert list(keys) == ["broker-h", "B"] and list(table.keys()) == ["B"]
    listed = table.value_list()
    listed.append(99)  # a new list every time
    assert table.value_list() == [2] == list(table.values())
    table.put("B", 5)  # a new value, same key
    assert table.value_list() == [5]
    for i in range(30):  # growing reorders the bins
        table.put(f"broker-{i}", i)
    assert list(table.keys()) == list(chain.from_iterable(table._bins))
    assert table.value_list() == list(table.values())
