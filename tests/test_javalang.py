"""Java string order, String.split, getBytes and int arithmetic."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_rmq_conformance.javalang import (
    java_get_bytes,
    java_int,
    java_sorted_strings,
    java_split,
    java_string_compare,
    java_string_key,
    normalize_charset,
)

EMOJI = "\U0001F600"  # a surrogate pair in Java


def test_supplementary_characters_sort_before_the_end_of_the_bmp():
    assert EMOJI > "\uFF21"  # Python: code points
    assert java_string_key(EMOJI) < java_string_key("\uFF21")  # Java: UTF-16 code units
    assert java_sorted_strings(["\uFF21", EMOJI, "a"]) == ["a", EMOJI, "\uFF21"]


def test_compare_returns_javas_values():
    assert java_string_compare("abc", "abd") == ord("c") - ord("d")
    assert java_string_compare("ab", "abcd") == -2
    assert java_string_compare("", "") == 0
    assert java_string_compare(EMOJI, "\uFF21") == 0xD83D - 0xFF21


@given(st.text(), st.text())
def test_compare_agrees_with_the_sort_key(left, right):
    sign = (java_string_key(left) > java_string_key(right)) - (java_string_key(left) < java_string_key(right))
    result = java_string_compare(left, right)
    assert (result > 0) - (result < 0) == sign


def test_surrogate_pair_spelled_as_two_python_characters_is_the_same_java_string():
    assert java_string_key("\ud83d\ude00") == java_string_key(EMOJI)
    assert java_get_bytes("\ud83d\ude00") == EMOJI.encode("utf-8")


@pytest.mark.parametrize(
    "text, regex, parts",
    [
        ("a@b", "@", ["a", "b"]),
        ("a@", "@", ["a"]),
        ("a@@", "@", ["a"]),
        ("@b", "@", ["", "b"]),
        ("@", "@", []),
        ("@@", "@", []),
        ("", "@", [""]),
        ("nosep", "@", ["nosep"]),
        ("a@b@c", "@", ["a", "b", "c"]),
        ("a@@b", "@", ["a", "", "b"]),
        ("--", "-", []),
        ("-x-", "-", ["", "x"]),
        ("a.b", ".", []),  # a regex: every character is a separator
        ("a.b", "\\.", ["a", "b"]),
        ("a|b", "\\|", ["a", "b"]),
        ("abc", "", ["a", "b", "c"]),  # zero-width match at 0 adds no empty string
        ("a1b22c", "\\d+", ["a", "b", "c"]),
    ],
)
def test_split_follows_java(text, regex, parts):
    assert java_split(text, regex) == parts


def test_split_with_a_limit():
    assert java_split("a@b@c", "@", 2) == ["a", "b@c"]
    assert java_split("a@b@", "@", -1) == ["a", "b", ""]


@pytest.mark.parametrize(
    "text, charset, expected",
    [
        ("abc", "UTF-8", b"abc"),
        ("\u00fc\u00df", "UTF-8", "\u00fc\u00df".encode("utf-8")),
        ("\u00fc\u00df", "ISO-8859-1", b"\xfc\xdf"),
        ("c-\u4e2d", "ISO-8859-1", b"c-?"),
        ("c-" + EMOJI, "ISO-8859-1", b"c-?"),  # the whole pair becomes one '?'
        ("c-" + EMOJI, "US-ASCII", b"c-?"),
        ("\u00fc", "US-ASCII", b"?"),
        ("x\ud800y", "UTF-8", b"x?y"),  # a lone surrogate
        ("x\udc00", "ISO-8859-1", b"x?"),
    ],
)
def test_get_bytes_replaces_what_the_charset_cannot_hold(text, charset, expected):
    assert java_get_bytes(text, charset) == expected


def test_charset_names():
    assert normalize_charset("utf8") == "UTF-8"
    assert normalize_charset("latin1") == "ISO-8859-1"
    with pytest.raises(ValueError, match="unknown charset"):
        normalize_charset("no-such-charset")


@pytest.mark.parametrize(
    "value, wrapped",
    [(0, 0), (2**31 - 1, 2**31 - 1), (2**31, -(2**31)), (-(2**31) - 1, 2**31 - 1), (2**32 + 5, 5)],
)
def test_java_int_wraps(value, wrapped):
    assert java_int(value) == wrapped


def jvm_vectors(kind):
    import json
    from pathlib import Path

    path = Path(__file__).parent / "data" / "javalang_vectors.jsonl"
    return [v for v in map(json.loads, path.read_text().splitlines()) if kind in v]


@pytest.mark.parametrize("vector", jvm_vectors("split"), ids=lambda v: f"{v['split']!r}.split({v['regex']!r})")
def test_split_matches_the_jvm(vector):
    """Recorded from a JVM by tests/java/JavaLangVectors.java."""
    assert java_split(vector["split"], vector["regex"]) == vector["parts"]


@pytest.mark.parametrize("vector", jvm_vectors("bytes"), ids=lambda v: f"{v['bytes']!r}.getBytes({v['charset']})")
def test_get_bytes_matches_the_jvm(vector):
    assert java_get_bytes(vector["bytes"], vector["charset"]).hex() == vector["hex"]
