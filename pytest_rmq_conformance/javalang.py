"""The parts of Java's behaviour a port of the allocation strategies depends on.

Java strings are sequences of UTF-16 code units; Python strings are sequences
of code points. The helpers here make Python compare, split and encode strings
the way ``java.lang.String`` does, and do Java's 32-bit ``int`` arithmetic.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from pytest_rmq_conformance._timsort import java_sort

__all__ = [
    "INT_MIN",
    "INT_MAX",
    "java_int",
    "java_string_key",
    "java_string_compare",
    "java_sorted_strings",
    "java_sort",
    "java_sorted",
    "java_split",
    "java_get_bytes",
    "normalize_charset",
]

T = TypeVar("T")

INT_MIN = -(2**31)
INT_MAX = 2**31 - 1


def java_int(value: int) -> int:
    """Wrap ``value`` to a signed 32-bit int, as Java's ``int`` arithmetic does."""
    return (value + 2**31) % 2**32 - 2**31


def _utf16(text: str) -> bytes:
    # Lone surrogates are legal in Java strings; keep them as the code units they are.
    return text.encode("utf-16-be", "surrogatepass")


def java_string_key(text: str) -> bytes:
    """Sort key giving Java's ``String.compareTo`` order (UTF-16 code units).

    Big-endian UTF-16 bytes compare bytewise exactly as the code units compare,
    so ``sorted(ids, key=java_string_key)`` is Java's ``Collections.sort(ids)``.
    Supplementary characters (U+10000 and up) sort before U+E000..U+FFFF here,
    unlike Python's code-point order::

        >>> "\\uFF21" < "\\U0001F600", java_string_key("\\uFF21") < java_string_key("\\U0001F600")
        (True, False)
    """
    return _utf16(text)


def java_string_compare(left: str, right: str) -> int:
    """Java's ``left.compareTo(right)``: the difference of the first differing
    UTF-16 code units, or of the lengths when one is a prefix of the other."""
    a, b = _utf16(left), _utf16(right)
    for i in range(0, min(len(a), len(b)), 2):
        ua = (a[i] << 8) | a[i + 1]
        ub = (b[i] << 8) | b[i + 1]
        if ua != ub:
            return ua - ub
    return (len(a) - len(b)) // 2


def java_sorted_strings(strings: Iterable[str]) -> list[str]:
    """``Collections.sort`` applied to a copy of ``strings`` (a total order, stable)."""
    return sorted(strings, key=java_string_key)


# Characters that make a one-character String.split argument a real regex;
# Java takes a fast path for every other single character.
_REGEX_META = ".$|()[{^?*+\\"


def _compile_java_regex(regex: str) -> re.Pattern[str]:
    if len(regex) == 1 and regex not in _REGEX_META:
        return re.compile(re.escape(regex))
    if len(regex) == 2 and regex[0] == "\\" and not (regex[1].isascii() and regex[1].isalnum()):
        return re.compile(re.escape(regex[1]))
    # Everything else goes through Python's engine, which agrees with
    # java.util.regex on the separators used in practice.
    return re.compile(regex)


def java_split(text: str, regex: str, limit: int = 0) -> list[str]:
    """Java's ``text.split(regex, limit)``.

    Unlike ``str.split``: with ``limit == 0`` trailing empty strings are dropped
    (``"a@"`` gives ``["a"]``, ``"@"`` gives ``[]``), a leading empty string is
    kept (``"@b"`` gives ``["", "b"]``), a zero-width match at the start adds
    no empty leading string, and text with no match comes back whole
    (``""`` gives ``[""]``).
    """
    pattern = _compile_java_regex(regex)
    if pattern.search("") is not None:
        # A pattern that can match empty text steps through UTF-16 code
        # units in Java, so it can cut a surrogate pair in two.
        units = "".join(chr(int.from_bytes(pair, "big")) for pair in _pairs(_utf16(text)))
        return [_from_units(part) for part in _split(pattern, units, limit)]
    return _split(pattern, text, limit)


def _pairs(data: bytes) -> Iterable[bytes]:
    return (data[i : i + 2] for i in range(0, len(data), 2))


def _from_units(units: str) -> str:
    return _utf16(units).decode("utf-16-be", "surrogatepass")


def _split(pattern: re.Pattern[str], text: str, limit: int) -> list[str]:
    parts: list[str] = []
    index = 0
    matched = False
    for match in pattern.finditer(text):
        if limit > 0 and len(parts) >= limit - 1:
            break
        start, end = match.span()
        if start == 0 and end == 0:
            continue  # no empty leading string for a zero-width match at 0
        parts.append(text[index:start])
        index = end
        matched = True
    if not matched:
        return [text]
    parts.append(text[index:])
    if limit == 0:
        while parts and parts[-1] == "":
            parts.pop()
    return parts


# Java charset names and the Python codec for each (anything Python knows
# by the same name works too).
_CHARSET_ALIASES = {
    "UTF8": "UTF-8",
    "UTF-8": "UTF-8",
    "ISO-8859-1": "ISO-8859-1",
    "ISO8859_1": "ISO-8859-1",
    "ISO8859-1": "ISO-8859-1",
    "LATIN1": "ISO-8859-1",
    "US-ASCII": "US-ASCII",
    "ASCII": "US-ASCII",
}


_ASCII_COMPATIBLE = frozenset({"UTF-8", "ISO-8859-1", "US-ASCII"})


def normalize_charset(charset: str) -> str:
    """The canonical Java name of ``charset``; ``ValueError`` if Python has no codec for it."""
    if not isinstance(charset, str) or not charset:
        raise ValueError(f"charset must be a non-empty string, not {charset!r}")
    canonical = _CHARSET_ALIASES.get(charset.upper(), charset)
    try:
        codecs.lookup(canonical)
    except LookupError:
        raise ValueError(f"unknown charset {charset!r}") from None
    return canonical


def java_get_bytes(text: str, charset: str = "UTF-8") -> bytes:
    """Java's ``text.getBytes(charset)``.

    A character the charset cannot represent becomes one ``?`` byte; a whole
    surrogate pair becomes a single ``?``; a lone surrogate is always ``?``.
    """
    if charset in _ASCII_COMPATIBLE and text.isascii():
        return text.encode("ascii")
    codec = normalize_charset(charset)
    # Re-decode the UTF-16 form so that a surrogate pair written as two Python
    # characters counts as the one character Java sees.
    chars = _utf16(text).decode("utf-16-be", "surrogatepass")
    try:
        return chars.encode(codec)
    except UnicodeEncodeError:
        pass
    out = bytearray()
    for char in chars:
        if 0xD800 <= ord(char) <= 0xDFFF:
            out += b"?"
            continue
        try:
            out += char.encode(codec)
        except UnicodeEncodeError:
            out += b"?"
    return bytes(out)


def java_sorted(items: Sequence[T], compare: Callable[[T, T], int]) -> list[T]:
    """A sorted copy of ``items``, exactly as Java's ``Collections.sort`` with
    ``compare`` as ``compareTo`` produces it, even when ``compare`` is not a
    consistent order. Raises ``ValueError`` where Java throws
    "Comparison method violates its general contract!"."""
    copy = list(items)
    java_sort(copy, compare)
    return copy

