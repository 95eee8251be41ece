"""The parts of Java's behaviour a port of the allocation strategies depends on.

Java strings are sequences of UTF-16 code units; Python strings are sequences
of code points. The helpers here make Python compare, split, encode and hash
strings the way ``java.lang.String`` does, and do Java's 32-bit ``int`` and
64-bit ``long`` arithmetic. The producer ports also need ``java.util.Random``,
the hash codes of boxed values and the iteration order of a ``ConcurrentHashMap``.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import chain
from typing import Generic, TypeVar

from pytest_rmq_conformance._timsort import java_sort

__all__ = [
    "INT_MIN",
    "INT_MAX",
    "java_int",
    "java_string_key",
    "java_string_compare",
    "java_sorted_strings",
    "below_supplementary",
    "java_sort",
    "java_sorted",
    "java_split",
    "java_get_bytes",
    "normalize_charset",
    "LONG_MIN",
    "LONG_MAX",
    "java_long",
    "java_abs",
    "java_rem",
    "mask31",
    "java_list_get",
    "guava_mod",
    "sip_hash24",
    "java_string_hash",
    "java_hash_code",
    "JavaInteger",
    "JavaLong",
    "HashCodeOf",
    "JavaRandom",
    "JavaConcurrentHashMap",
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
    items = list(strings)
    if below_supplementary(items):  # code points compare as UTF-16 code units do
        return sorted(items)
    return sorted(items, key=java_string_key)


def below_supplementary(strings: Iterable[str]) -> bool:
    """Whether no character of ``strings`` is above U+FFFF: then Python's order of them is
    Java's (each character is one UTF-16 code unit of the same value)."""
    joined = "".join(strings)
    return joined.isascii() or max(joined) < "\U00010000"


# Characters that make a one-character String.split argument a real regex;
# Java takes a fast path for every other single character.
_REGEX_META = ".$|()[{^?*+\\"


@lru_cache(maxsize=256)  # a handful of separators, split on for every queue and client
def _compile_java_regex(regex: str) -> tuple[re.Pattern[str], bool]:
    """The pattern, and whether it matches empty text."""
    if len(regex) == 1 and regex not in _REGEX_META:
        pattern = re.compile(re.escape(regex))
    elif len(regex) == 2 and regex[0] == "\\" and not (regex[1].isascii() and regex[1].isalnum()):
        pattern = re.compile(re.escape(regex[1]))
    else:
        # Everything else goes through Python's engine, which agrees with
        # java.util.regex on the separators used in practice.
        pattern = re.compile(regex)
    return pattern, pattern.search("") is not None


def java_split(text: str, regex: str, limit: int = 0) -> list[str]:
    """Java's ``text.split(regex, limit)``.

    Unlike ``str.split``: with ``limit == 0`` trailing empty strings are dropped
    (``"a@"`` gives ``["a"]``, ``"@"`` gives ``[]``), a leading empty string is
    kept (``"@b"`` gives ``["", "b"]``), a zero-width match at the start adds
    no empty leading string, and text with no match comes back whole
    (``""`` gives ``[""]``).
    """
    return list(_java_split(text, regex, limit))


@lru_cache(maxsize=16384)  # broker names and client ids are split again at every call of a group
def _java_split(text: str, regex: str, limit: int) -> tuple[str, ...]:
    pattern, matches_empty = _compile_java_regex(regex)
    if matches_empty:
        # A pattern that can match empty text steps through UTF-16 code
        # units in Java, so it can cut a surrogate pair in two.
        units = "".join(chr(int.from_bytes(pair, "big")) for pair in _pairs(_utf16(text)))
        return tuple(_from_units(part) for part in _split(pattern, units, limit))
    return tuple(_split(pattern, text, limit))


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


LONG_MIN = -(2**63)
LONG_MAX = 2**63 - 1
_MASK48 = (1 << 48) - 1
_MULTIPLIER = 0x5DEECE66D


def java_long(value: int) -> int:
    """Wrap ``value`` to a signed 64-bit long, as Java's ``long`` arithmetic does."""
    return (value + 2**63) % 2**64 - 2**63


def java_abs(value: int) -> int:
    """``Math.abs(int)``: ``abs`` wrapped to 32 bits, so ``INT_MIN`` stays ``INT_MIN``."""
    return java_int(abs(value))


def java_rem(dividend: int, divisor: int) -> int:
    """Java's ``dividend % divisor``: truncated, the sign of the dividend
    (``java_rem(-7, 3) == -1``); ``ZeroDivisionError`` for a zero divisor."""
    if divisor == 0:
        raise ZeroDivisionError("/ by zero")
    rem = abs(dividend) % abs(divisor)
    return -rem if dividend < 0 else rem


def mask31(value: int) -> int:
    """``value & 0x7FFFFFFF``: the low 31 bits, never negative."""
    return value & 0x7FFFFFFF


def java_list_get(items: Sequence[T], index: int) -> T:
    """``List.get(index)``: ``IndexError`` with Java's message for an index outside
    ``[0, len)``, where Python would count a negative index from the end."""
    if not 0 <= index < len(items):
        raise IndexError(f"Index {index} out of bounds for length {len(items)}")
    return items[index]


def guava_mod(value: int, modulus: int) -> int:
    """Guava's ``IntMath.mod`` and ``LongMath.mod``: the remainder in ``[0, modulus)``, whatever
    the sign of ``value`` (``guava_mod(-7, 3) == 2``, where Java's ``%`` gives -1);
    ``ArithmeticException`` in Java, ``ValueError`` here, for a modulus that is not positive."""
    if modulus <= 0:
        raise ValueError(f"Modulus must be positive, not {modulus}")
    return value % modulus


#: the key of Guava's ``Hashing.sipHash24()``: k0 = 0x0706050403020100, k1 = 0x0f0e0d0c0b0a0908
#: (the bytes 00..0f, as SipHash reads its key little-endian)
SIP_HASH_KEY = bytes(range(16))


def sip_hash24(data: bytes) -> int:
    """Guava's ``Hashing.sipHash24().hashBytes(data).asLong()``: SipHash-2-4 under
    :data:`SIP_HASH_KEY`, as a signed 64-bit long. The hash itself is ``siphashc``'s (a C
    implementation of the reference algorithm, checked against the reference vectors in the
    tests)."""
    from siphashc import siphash

    return java_long(siphash(SIP_HASH_KEY, data))


@lru_cache(maxsize=4096)  # a broker name is hashed at every put of a new key and every table growth
def java_string_hash(text: str) -> int:
    """``String.hashCode()``: ``31 * h + unit`` over the UTF-16 code units, wrapped to int."""
    h = 0
    data = _utf16(text)
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return java_int(h)


class _Boxed:
    """A Java value that only exists for its ``hashCode()``."""

    __slots__ = ("value",)
    _low, _high = INT_MIN, INT_MAX

    def __init__(self, value: int) -> None:
        if not isinstance(value, int) or isinstance(value, bool) or not self._low <= value <= self._high:
            raise ValueError(f"{type(self).__name__} takes an int in [{self._low}, {self._high}], not {value!r}")
        self.value = value

    def java_hash_code(self) -> int:
        return self.value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Boxed) and type(other) is type(self) and other.value == self.value

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.value))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.value})"


class JavaInteger(_Boxed):
    """A ``java.lang.Integer``: its hash code is its value."""

    __slots__ = ()


class JavaLong(_Boxed):
    """A ``java.lang.Long``: its hash code is ``(int) (v ^ (v >>> 32))``."""

    __slots__ = ()
    _low, _high = LONG_MIN, LONG_MAX

    def java_hash_code(self) -> int:
        bits = self.value & 0xFFFFFFFFFFFFFFFF
        return java_int(bits ^ (bits >> 32))


class HashCodeOf(_Boxed):
    """Any Java object whose ``hashCode()`` returns ``value``."""

    __slots__ = ()


def java_hash_code(obj: object) -> int:
    """``obj.hashCode()`` for a ``str`` or an object with ``java_hash_code()``;
    ``TypeError`` for ``None`` (Java's NullPointerException) and for other types."""
    if isinstance(obj, str):
        return java_string_hash(obj)
    if obj is None:
        raise TypeError("cannot invoke hashCode() on null")
    method = getattr(obj, "java_hash_code", None)
    if method is None:
        raise TypeError(f"no Java hashCode() for {type(obj).__name__}: pass a str, JavaInteger, JavaLong or HashCodeOf")
    return int(method())


class JavaRandom:
    """``java.util.Random``: the 48-bit linear congruential generator, bit for bit."""

    def __init__(self, seed: int) -> None:
        self.set_seed(seed)

    def set_seed(self, seed: int) -> None:
        self._seed = (java_long(seed) ^ _MULTIPLIER) & _MASK48

    def next(self, bits: int) -> int:
        """The next ``bits`` random bits as a signed int (``Random.next``)."""
        self._seed = (self._seed * _MULTIPLIER + 0xB) & _MASK48
        return java_int(self._seed >> (48 - bits))

    def next_int(self, bound: int | None = None) -> int:
        """``nextInt()`` over the whole int range, or ``nextInt(bound)`` in ``[0, bound)``;
        ``ValueError`` for ``bound <= 0`` (Java's IllegalArgumentException)."""
        if bound is None:
            return self.next(32)
        if bound <= 0:
            raise ValueError("bound must be positive")
        r = self.next(31)
        if bound & (bound - 1) == 0:  # a power of two: the high bits
            return java_int((bound * r) >> 31)
        u = r
        r = java_rem(u, bound)
        while java_int(u - r + bound - 1) < 0:  # u is in the incomplete last block: draw again
            u = self.next(31)
            r = java_rem(u, bound)
        return r

    def shuffle(self, items: list) -> None:
        """``Collections.shuffle(items, this)``, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.next_int(i + 1)
            items[i], items[j] = items[j], items[i]


V = TypeVar("V")


class JavaConcurrentHashMap(Generic[V]):
    """A ``ConcurrentHashMap<String, V>`` as far as its iteration order goes.

    Java walks the table bin by bin; a bin holds its keys in insertion order, and a
    key removed and put again goes to the end of its bin. ``new ConcurrentHashMap(16)``
    starts with 32 bins, ``bin = spread(hash) & (bins - 1)`` with
    ``spread(h) = (h ^ (h >>> 16)) & 0x7fffffff``, and doubles at 3/4 full, splitting
    every bin as Java's ``transfer`` does. Not modelled: tree bins (more than 8 keys
    in one bin). ``None`` as a key raises ``TypeError`` (Java's NullPointerException).

    >>> m = JavaConcurrentHashMap()
    >>> for key in ["broker-a", "broker-b", "C", "B", "A"]:
    ...     m.put(key, 0)
    >>> list(m.keys())
    ['A', 'B', 'C', 'broker-b', 'broker-a']
    """

    def __init__(self, initial_capacity: int = 16) -> None:
        size = 1
        while size < 1 + initial_capacity * 4 // 3:  # Java: tableSizeFor(1 + capacity / 0.75)
            size *= 2
        self._bins: list[list[str]] = [[] for _ in range(size)]
        self._values: dict[str, V] = {}
        self._order: list[str] | None = []  # the keys in iteration order, until a key comes or goes
        self._listed: list[V] | None = []  # the values in iteration order, until a value changes

    @staticmethod
    def spread(key: str) -> int:
        """The bin-selecting hash of ``key``: ``(h ^ (h >>> 16)) & 0x7fffffff``."""
        h = java_string_hash(key) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & 0x7FFFFFFF

    @staticmethod
    def _check(key: str | None) -> str:
        if key is None:
            raise TypeError("ConcurrentHashMap does not take null keys")
        return key

    def get(self, key: str | None) -> V | None:
        if key is None:
            raise TypeError("ConcurrentHashMap does not take null keys")
        return self._values.get(key)

    def put(self, key: str | None, value: V) -> V | None:
        """Store ``value``; the previous value (``None`` if new). A present key keeps its place."""
        key = self._check(key)
        old = self._values.get(key)
        if key not in self._values:
            self._bins[self.spread(key) & (len(self._bins) - 1)].append(key)
            self._order = None
        self._values[key] = value
        self._listed = None
        if len(self._values) >= len(self._bins) * 3 // 4:
            self._grow()
        return old

    def put_if_absent(self, key: str | None, value: V) -> V | None:
        """Store ``value`` unless ``key`` is present; the present value, or ``None``."""
        key = self._check(key)
        if key in self._values:
            return self._values[key]
        self.put(key, value)
        return None

    def remove(self, key: str | None) -> V | None:
        """Delete ``key``; its value, or ``None`` if absent."""
        key = self._check(key)
        if key not in self._values:
            return None
        self._bins[self.spread(key) & (len(self._bins) - 1)].remove(key)
        self._order = self._listed = None
        return self._values.pop(key)

    def _grow(self) -> None:
        # Java's transfer: the longest tail of a bin that goes to one side keeps its order;
        # the keys before it are pushed to the front of their side, so they come reversed.
        n = len(self._bins)
        bins: list[list[str]] = [[] for _ in range(2 * n)]
        for i, keys in enumerate(self._bins):
            if not keys:
                continue
            high = [bool(self.spread(key) & n) for key in keys]
            tail = len(keys) - 1
            while tail > 0 and high[tail - 1] == high[-1]:
                tail -= 1
            low_side, high_side = bins[i], bins[i + n]
            (high_side if high[-1] else low_side).extend(keys[tail:])
            for key, is_high in zip(keys[:tail], high):
                (high_side if is_high else low_side).insert(0, key)
        self._bins = bins
        self._order = self._listed = None

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self) -> Iterator[str]:
        return self.keys()

    def keys(self) -> Iterator[str]:
        """The keys in Java's iteration order."""
        order = self._order
        if order is None:
            order = self._order = list(chain.from_iterable(self._bins))
        return iter(order)  # a snapshot: a key that comes or goes makes a new list

    def values(self) -> Iterator[V]:
        values = self._values
        return (values[key] for key in self.keys())

    def value_list(self) -> list[V]:
        """``list(self.values())``, a new list (worked out once per change of the map)."""
        listed = self._listed
        if listed is None:
            values = self._values
            listed = self._listed = [values[key] for key in self.keys()]
        return listed.copy()

    def items(self) -> Iterator[tuple[str, V]]:
        return ((key, self._values[key]) for key in self.keys())
