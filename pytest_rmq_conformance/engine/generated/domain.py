"""A property never blames the user for its own mistake.

Before a generated property is held against a strategy with a Java twin (before a draw fails
it), the reference port of its family answers the same draw (:func:`reference_body` builds the
same check for it). Where the reference port breaks the property too, the draw lies outside the
property's domain, or the property is wrong: either way the fault is the suite's. (Draws the
strategy passes are not asked again: no one is blamed for them.) The draw is left out (the property
still runs on the others), and :func:`suite_fault` says which property, which draw and which
seed, for the run to report without failing the user's test.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["reference_body", "suite_fault", "MAX_KEPT"]

#: suite faults one check keeps in full; the rest are counted
MAX_KEPT = 3


def reference_body(subject: Any, make: Callable[[Any], Any]) -> Callable[[Any], None] | None:
    """The body ``make`` builds for the reference port of ``subject``'s family: ``make(subject)``
    gives a body, a check with a ``body``, or a string (the check does not apply). ``None``
    without a Java twin, or where Java does not claim the property (then the claim is the
    strategy's own, and nothing vouches for its domain)."""
    reference = subject.reference_view()
    if reference is None or reference.load_error is not None:
        return None
    made = make(reference)
    if made is None or isinstance(made, str):
        return None
    return getattr(made, "body", made)


def suite_fault(subject: Any, report: str) -> str:
    """The report of a draw the reference port fails: its own failure report (``report``), with
    what that means and the seed to replay it with."""
    family, version = subject.family, subject.settings.version
    lines = str(report).splitlines() or [""]
    headline = (
        f"suite fault: Java's {family} at {version} (the reference port) fails this check itself on a draw "
        f"of seed {subject.settings.seed}: the draw lies outside the property's domain, or the property is wrong; "
        f"the draw is left out, and {subject.name} is not blamed for it"
    )
    return "\n".join([headline, f"  the reference port: {lines[0]}", *(f"  {line.strip()}" for line in lines[1:])])
