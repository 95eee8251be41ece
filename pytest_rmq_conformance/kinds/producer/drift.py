"""When a stored counter that differs from Java's shows in a pick, and when it never can.

A counter step returns a value in ``[0, 2**31)``; the queue it picks on a list of ``n`` is that
value mod ``n`` (spec §3.1). Two counters that differ pick the same queue on some lengths and
not on others, and on one list they keep agreeing until one of them passes the end of the int.
:func:`when_it_shows` says which, for the drift report; :func:`takes_alike` says whether any
later pick can tell the two apart at all, which is what the replay judges.

Java reads the counter only through its steps, so a stored counter is judged by the values its
steps return. Two whose next values are equal return equal values for ever: 4.7.1 stores the
value it returns, later releases return the stored int's low 31 bits, and both move by one per
step. So ``2**31`` stored where Java's int has wrapped to ``-2**31``, or an int that differs
from Java's by ``2**31``, is no divergence at 4.9.8 and 5.3.3. Two whose next values differ by
``d`` are read, at 5.x, only modulo the publish list's length ``n`` (no other list ever takes
this counter: a new route makes a new one): when ``n`` divides ``2**31`` and ``d``, every later
pick agrees, even across the wrap; otherwise some pick parts, at once or at the wrap. At 4.x
the same counter is also read modulo a broker's ``writeQueueNums`` (the fallback when every
broker is penalised) and walked backwards past the int's end, so only equal next values are
alike.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_rmq_conformance.javalang import INT_MAX, java_abs, java_int, mask31

__all__ = ["LONGEST", "next_value", "takes_alike", "parting_length", "when_it_shows"]

#: the longest list :func:`parting_length` tries
LONGEST = 65536
#: how many values a counter step returns before it starts again at 0
_VALUES = INT_MAX + 1


def next_value(release: tuple[int, int, int], stored: int) -> int:
    """The value the next counter step returns after ``stored`` (read as Java's int) at
    ``release``: 4.7.1 takes ``Math.abs`` and clamps, later releases mask to 31 bits."""
    value = java_int(stored + 1)
    return max(java_abs(value), 0) if release < (4, 9, 8) else mask31(value)


def takes_alike(release: tuple[int, int, int], java: int, got: int, length: int) -> bool:
    """Whether the stored counter ``got`` (an int the strategy stores, even past the int's
    range) leads to Java's picks at every later step, Java's being ``java``, on a publish list
    of ``length`` queues at ``release`` (see the module's docstring)."""
    value_java, value_got = next_value(release, java), next_value(release, java_int(got))
    if value_java == value_got:
        return True
    return release >= (5, 0, 0) and length > 0 and _VALUES % length == 0 and (value_java - value_got) % length == 0


def parting_length(java: int, got: int, longest: int = LONGEST) -> int | None:
    """The shortest list on which the values ``java`` and ``got`` pick different positions
    (``None``: none up to ``longest``)."""
    return next((n for n in range(2, longest + 1) if java % n != got % n), None)


def when_it_shows(release: tuple[int, int, int], java: int, got: int, queues: Sequence[Sequence[object]]) -> str:
    """What the stored counter ``got`` (Java's: ``java``) changes in the picks to come: the
    next pick on ``queues`` (the list as it stands), the first list length on which the two
    part, and whether on this list they part only at the wrap."""
    if java_int(got) == java:
        return (f"{got} is Java's {java} modulo 2^32 but no Java int (Java's wraps past {INT_MAX}): "
                "the picks stay Java's past the wrap only if taken from its low 31 bits")
    value_java, value_got = next_value(release, java), next_value(release, java_int(got))
    if value_java == value_got:
        return "the next step and every later one pick the same position as Java's on every list: the stored ints differ by 2^31"
    first = parting_length(value_java, value_got)
    elsewhere = f"a list of {first}" if first is not None else f"no list of up to {LONGEST}"
    n = len(queues)
    if n == 0:
        return f"they part first on {elsewhere}"
    here, there = value_got % n, value_java % n
    if here != there:
        return (f"the next step on this list of {n} differs: position {here} ({_shown(queues[here])}), "
                f"Java's {there} ({_shown(queues[there])})")
    head = f"the next step on this list of {n} picks Java's position {here} ({_shown(queues[here])}); they part first on {elsewhere}"
    if _VALUES % n == 0:
        return f"{head}; on this list never (its length divides 2^31)"
    steps = _VALUES - max(value_java, value_got) + 1
    return f"{head}; on this list only at the wrap, {steps} counter steps from here"


def _shown(queue: Sequence[object]) -> str:
    return f"{queue[0]}/{queue[1]}"
