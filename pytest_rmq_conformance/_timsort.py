"""Bit-faithful model of Java 17's ``ComparableTimSort`` (``Collections.sort``).

With a comparator that breaks its contract (e.g. an overflowing
``this.id - other.id``), the final order depends on every comparison the
algorithm makes, so this module replays Java's exact sequence of
comparisons, including its ``IllegalArgumentException`` (raised here as
``ValueError``) when a merge notices the contract violation.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["java_sort", "CONTRACT_VIOLATION"]

CONTRACT_VIOLATION = "Comparison method violates its general contract!"

_MIN_MERGE = 32  # arrays shorter than this get a plain binary insertion sort
_MIN_GALLOP = 7  # initial threshold for entering galloping mode
_INT_MAX = 2**31 - 1

Compare = Callable[[Any, Any], int]


def java_sort(items: list, compare: Compare) -> None:
    """Sort ``items`` in place exactly as Java's ``ComparableTimSort`` would.

    ``compare(a, b)`` plays the role of ``a.compareTo(b)``; only the sign of
    the result is used.  Raises ``ValueError`` with Java's message where Java
    throws ``IllegalArgumentException``; the list is then left in the same
    partially merged state Java leaves its array in.
    """
    n = len(items)
    if n < 2:
        return
    if n < _MIN_MERGE:
        prefix = _ascending_prefix(items, 0, n, compare)
        _insertion_sort(items, 0, n, prefix, compare)
        return

    sorter = _Merger(items, compare)
    min_run = _min_run_length(n)
    lo, remaining = 0, n
    while remaining:
        run = _ascending_prefix(items, lo, lo + remaining, compare)
        if run < min_run:
            # Extend a short natural run to min_run (or to the end).
            forced = min(remaining, min_run)
            _insertion_sort(items, lo, lo + forced, lo + run, compare)
            run = forced
        sorter.push(lo, run)
        sorter.collapse()
        lo += run
        remaining -= run
    sorter.collapse_all()


def _min_run_length(n: int) -> int:
    """Keep the top bits of ``n`` below 32, rounding up if any low bit is set."""
    extra = 0
    while n >= _MIN_MERGE:
        extra |= n & 1
        n >>= 1
    return n + extra


def _ascending_prefix(a: list, lo: int, hi: int, cmp: Compare) -> int:
    """Length of the run starting at ``lo``; a strictly descending run is
    reversed in place so that the returned run is always ascending."""
    end = lo + 1
    if end == hi:
        return 1
    if cmp(a[end], a[lo]) < 0:
        end += 1
        while end < hi and cmp(a[end], a[end - 1]) < 0:
            end += 1
        a[lo:end] = a[lo:end][::-1]
    else:
        end += 1
        while end < hi and cmp(a[end], a[end - 1]) >= 0:
            end += 1
    return end - lo


def _insertion_sort(a: list, lo: int, hi: int, start: int, cmp: Compare) -> None:
    """Binary insertion sort of ``a[lo:hi]`` given ``a[lo:start]`` is sorted.

    Equal elements are inserted after existing ones (stable).
    """
    if start == lo:
        start += 1
    for i in range(start, hi):
        item = a[i]
        left, right = lo, i
        while left < right:
            mid = (left + right) >> 1
            if cmp(item, a[mid]) < 0:
                right = mid
            else:
                left = mid + 1
        a[left + 1 : i + 1] = a[left:i]
        a[left] = item


def _next_offset(ofs: int, limit: int) -> int:
    """``(ofs << 1) + 1`` clamped to ``limit`` when a Java int would overflow."""
    ofs = (ofs << 1) + 1
    return limit if ofs > _INT_MAX else ofs


def _gallop_left(key, a: list, base: int, length: int, hint: int, cmp: Compare) -> int:
    """Leftmost insertion point of ``key`` in sorted ``a[base:base+length]``.

    Returns ``k`` with ``a[base+k-1] < key <= a[base+k]``; the search starts
    at ``base + hint`` and widens exponentially before a binary search.
    """
    prev, ofs = 0, 1
    if cmp(key, a[base + hint]) > 0:
        # Probe to the right: a[base+hint+prev] < key <= a[base+hint+ofs].
        limit = length - hint
        while ofs < limit and cmp(key, a[base + hint + ofs]) > 0:
            prev = ofs
            ofs = _next_offset(ofs, limit)
        ofs = min(ofs, limit)
        prev, ofs = prev + hint, ofs + hint
    else:
        # Probe to the left: a[base+hint-ofs] < key <= a[base+hint-prev].
        limit = hint + 1
        while ofs < limit and cmp(key, a[base + hint - ofs]) <= 0:
            prev = ofs
            ofs = _next_offset(ofs, limit)
        ofs = min(ofs, limit)
        prev, ofs = hint - ofs, hint - prev
    # Now a[base+prev] < key <= a[base+ofs]; binary search in between.
    prev += 1
    while prev < ofs:
        mid = prev + ((ofs - prev) >> 1)
        if cmp(key, a[base + mid]) > 0:
            prev = mid + 1
        else:
            ofs = mid
    return ofs


def _gallop_right(key, a: list, base: int, length: int, hint: int, cmp: Compare) -> int:
    """Rightmost insertion point of ``key`` in sorted ``a[base:base+length]``.

    Returns ``k`` with ``a[base+k-1] <= key < a[base+k]``.
    """
    prev, ofs = 0, 1
    if cmp(key, a[base + hint]) < 0:
        # Probe to the left: a[base+hint-ofs] <= key < a[base+hint-prev].
        limit = hint + 1
        while ofs < limit and cmp(key, a[base + hint - ofs]) < 0:
            prev = ofs
            ofs = _next_offset(ofs, limit)
        ofs = min(ofs, limit)
        prev, ofs = hint - ofs, hint - prev
    else:
        # Probe to the right: a[base+hint+prev] <= key < a[base+hint+ofs].
        limit = length - hint
        while ofs < limit and cmp(key, a[base + hint + ofs]) >= 0:
            prev = ofs
            ofs = _next_offset(ofs, limit)
        ofs = min(ofs, limit)
        prev, ofs = prev + hint, ofs + hint
    prev += 1
    while prev < ofs:
        mid = prev + ((ofs - prev) >> 1)
        if cmp(key, a[base + mid]) < 0:
            ofs = mid
        else:
            prev = mid + 1
    return ofs


class _Merger:
    """Pending-run stack plus the adaptive gallop threshold of one sort call."""

    def __init__(self, a: list, cmp: Compare) -> None:
        self.a = a
        self.cmp = cmp
        self.min_gallop = _MIN_GALLOP
        self.bases: list[int] = []
        self.lengths: list[int] = []

    def push(self, base: int, length: int) -> None:
        self.bases.append(base)
        self.lengths.append(length)

    def collapse(self) -> None:
        """Merge until the run-length invariants hold (JDK 11+ variant, which
        also checks the fourth-from-top run)."""
        lens = self.lengths
        while len(lens) > 1:
            n = len(lens) - 2
            if (n > 0 and lens[n - 1] <= lens[n] + lens[n + 1]) or (
                n > 1 and lens[n - 2] <= lens[n] + lens[n - 1]
            ):
                if lens[n - 1] < lens[n + 1]:
                    n -= 1
            elif lens[n] > lens[n + 1]:
                break
            self._merge_at(n)

    def collapse_all(self) -> None:
        """Merge every pending run; called once all input has been consumed."""
        lens = self.lengths
        while len(lens) > 1:
            n = len(lens) - 2
            if n > 0 and lens[n - 1] < lens[n + 1]:
                n -= 1
            self._merge_at(n)

    def _merge_at(self, i: int) -> None:
        """Merge stack entries ``i`` and ``i + 1`` (adjacent in the array)."""
        a, cmp = self.a, self.cmp
        base1, len1 = self.bases[i], self.lengths[i]
        base2, len2 = self.bases[i + 1], self.lengths[i + 1]
        self.lengths[i] = len1 + len2
        del self.bases[i + 1]
        del self.lengths[i + 1]

        # Elements of run 1 that precede run 2's first element stay put.
        skip = _gallop_right(a[base2], a, base1, len1, 0, cmp)
        base1 += skip
        len1 -= skip
        if len1 == 0:
            return
        # Elements of run 2 that follow run 1's last element stay put.
        len2 = _gallop_left(a[base1 + len1 - 1], a, base2, len2, len2 - 1, cmp)
        if len2 == 0:
            return
        if len1 <= len2:
            self._merge_low(base1, len1, base2, len2)
        else:
            self._merge_high(base1, len1, base2, len2)

    def _merge_low(self, base1: int, len1: int, base2: int, len2: int) -> None:
        """Merge left to right, buffering the (shorter) first run.

        Precondition (for a valid comparator): the first element of run 2
        sorts before run 1 and the last element of run 1 after run 2.
        """
        a, cmp = self.a, self.cmp
        buf = a[base1 : base1 + len1]
        c1, c2, dest = 0, base2, base1  # cursors into buf, run 2, output

        a[dest] = a[c2]
        dest += 1
        c2 += 1
        len2 -= 1
        if len2 == 0:
            a[dest : dest + len1] = buf[c1 : c1 + len1]
            return
        if len1 == 1:
            a[dest : dest + len2] = a[c2 : c2 + len2]
            a[dest + len2] = buf[c1]
            return

        gallop = self.min_gallop
        done = False
        while not done:
            wins1 = wins2 = 0
            # One-at-a-time mode until one run wins `gallop` times in a row.
            while True:
                if cmp(a[c2], buf[c1]) < 0:
                    a[dest] = a[c2]
                    dest += 1
                    c2 += 1
                    wins2 += 1
                    wins1 = 0
                    len2 -= 1
                    if len2 == 0:
                        done = True
                        break
                else:
                    a[dest] = buf[c1]
                    dest += 1
                    c1 += 1
                    wins1 += 1
                    wins2 = 0
                    len1 -= 1
                    if len1 == 1:
                        done = True
                        break
                if (wins1 | wins2) >= gallop:
                    break
            if done:
                break

            # Galloping mode: copy whole stretches while it keeps paying off.
            while True:
                wins1 = _gallop_right(a[c2], buf, c1, len1, 0, cmp)
                if wins1:
                    a[dest : dest + wins1] = buf[c1 : c1 + wins1]
                    dest += wins1
                    c1 += wins1
                    len1 -= wins1
                    if len1 <= 1:  # 0 only if the comparator is broken
                        done = True
                        break
                a[dest] = a[c2]
                dest += 1
                c2 += 1
                len2 -= 1
                if len2 == 0:
                    done = True
                    break

                wins2 = _gallop_left(buf[c1], a, c2, len2, 0, cmp)
                if wins2:
                    a[dest : dest + wins2] = a[c2 : c2 + wins2]
                    dest += wins2
                    c2 += wins2
                    len2 -= wins2
                    if len2 == 0:
                        done = True
                        break
                a[dest] = buf[c1]
                dest += 1
                c1 += 1
                len1 -= 1
                if len1 == 1:
                    done = True
                    break
                gallop -= 1
                if wins1 < _MIN_GALLOP and wins2 < _MIN_GALLOP:
                    break
            if done:
                break
            # Leaving gallop mode makes re-entering it harder.
            gallop = max(gallop, 0) + 2

        self.min_gallop = max(gallop, 1)
        if len1 == 1:
            a[dest : dest + len2] = a[c2 : c2 + len2]
            a[dest + len2] = buf[c1]
        elif len1 == 0:
            raise ValueError(CONTRACT_VIOLATION)
        else:
            a[dest : dest + len1] = buf[c1 : c1 + len1]

    def _merge_high(self, base1: int, len1: int, base2: int, len2: int) -> None:
        """Merge right to left, buffering the (shorter) second run.

        Mirror image of :meth:`_merge_low`.
        """
        a, cmp = self.a, self.cmp
        buf = a[base2 : base2 + len2]
        c1 = base1 + len1 - 1  # last unmerged element of run 1 (in a)
        c2 = len2 - 1  # last unmerged element of run 2 (in buf)
        dest = base2 + len2 - 1

        a[dest] = a[c1]
        dest -= 1
        c1 -= 1
        len1 -= 1
        if len1 == 0:
            a[dest - len2 + 1 : dest + 1] = buf[0:len2]
            return
        if len2 == 1:
            dest -= len1
            c1 -= len1
            a[dest + 1 : dest + 1 + len1] = a[c1 + 1 : c1 + 1 + len1]
            a[dest] = buf[c2]
            return

        gallop = self.min_gallop
        done = False
        while not done:
            wins1 = wins2 = 0
            while True:
                if cmp(buf[c2], a[c1]) < 0:
                    a[dest] = a[c1]
                    dest -= 1
                    c1 -= 1
                    wins1 += 1
                    wins2 = 0
                    len1 -= 1
                    if len1 == 0:
                        done = True
                        break
                else:
                    a[dest] = buf[c2]
                    dest -= 1
                    c2 -= 1
                    wins2 += 1
                    wins1 = 0
                    len2 -= 1
                    if len2 == 1:
                        done = True
                        break
                if (wins1 | wins2) >= gallop:
                    break
            if done:
                break

            while True:
                wins1 = len1 - _gallop_right(buf[c2], a, base1, len1, len1 - 1, cmp)
                if wins1:
                    dest -= wins1
                    c1 -= wins1
                    len1 -= wins1
                    a[dest + 1 : dest + 1 + wins1] = a[c1 + 1 : c1 + 1 + wins1]
                    if len1 == 0:
                        done = True
                        break
                a[dest] = buf[c2]
                dest -= 1
                c2 -= 1
                len2 -= 1
                if len2 == 1:
                    done = True
                    break

                wins2 = len2 - _gallop_left(a[c1], buf, 0, len2, len2 - 1, cmp)
                if wins2:
                    dest -= wins2
                    c2 -= wins2
                    len2 -= wins2
                    a[dest + 1 : dest + 1 + wins2] = buf[c2 + 1 : c2 + 1 + wins2]
                    if len2 <= 1:  # 0 only if the comparator is broken
                        done = True
                        break
                a[dest] = a[c1]
                dest -= 1
                c1 -= 1
                len1 -= 1
                if len1 == 0:
                    done = True
                    break
                gallop -= 1
                if wins1 < _MIN_GALLOP and wins2 < _MIN_GALLOP:
                    break
            if done:
                break
            gallop = max(gallop, 0) + 2

        self.min_gallop = max(gallop, 1)
        if len2 == 1:
            dest -= len1
            c1 -= len1
            a[dest + 1 : dest + 1 + len1] = a[c1 + 1 : c1 + 1 + len1]
            a[dest] = buf[c2]
        elif len2 == 0:
            raise ValueError(CONTRACT_VIOLATION)
        else:
            a[dest - len2 + 1 : dest + 1] = buf[0:len2]
