"""Running the generated checks under hypothesis: profiles, the seed, and readable failures.

A check is a body called with one drawn example; it raises
:class:`PropertyFailure` with a report when the strategy breaks a property.
:func:`check_examples` runs it with the profile's settings and the run's seed,
lets hypothesis shrink the example, and turns what happened into one report
(the plugin adds the command that replays it). A strategy that hangs ends the
check at once (no shrinking); one that answers differently when the same
example is replayed is reported as such.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, Phase, example, given, seed
from hypothesis import settings as hypothesis_settings
from hypothesis.errors import Flaky, HypothesisWarning
from hypothesis.strategies import SearchStrategy

from pytest_rmq_conformance.engine.calls import Hang
from pytest_rmq_conformance.engine.groups import plans, ring_trap_groups, scenarios
from pytest_rmq_conformance.engine.remote import HarnessFault
from pytest_rmq_conformance.engine.subject import PROFILES, profile_examples

__all__ = ["PROFILES", "PropertyFailure", "Groups", "profile_examples", "check_examples"]


class PropertyFailure(AssertionError):
    """A generated example on which the strategy breaks a property; the message is the report."""


def _settings(max_examples: int, shrink: bool):
    phases = [Phase.explicit, Phase.generate] + ([Phase.shrink] if shrink else [])
    return hypothesis_settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        derandomize=False,
        print_blob=False,
        report_multiple_bugs=False,
        phases=phases,
        suppress_health_check=list(HealthCheck),
    )


def _first_failure(exc: BaseException) -> PropertyFailure | None:
    for inner in getattr(exc, "exceptions", ()):
        if isinstance(inner, PropertyFailure):
            return inner
        found = _first_failure(inner)
        if found is not None:
            return found
    return None


def check_examples(
    subject,
    examples: SearchStrategy,
    body: Callable[[Any], None],
    *,
    max_examples: int | None = None,
    shrink: bool = True,
    explicit: Sequence[Any] = (),
) -> str | None:
    """Check ``body`` over ``examples`` for the strategy under test (a
    :class:`~pytest_rmq_conformance.engine.subject.Subject`), the ``explicit`` examples first;
    the failure report, or ``None`` when every example passed."""
    settings = subject.settings
    if subject.hangs.exhausted:
        return subject.hangs.refusal()
    count = max_examples if max_examples is not None else profile_examples(settings)
    test = given(examples)(body)
    for fixed in reversed(explicit):
        test = example(fixed)(test)
    test = seed(settings.seed)(_settings(count, shrink)(test))
    try:
        with warnings.catch_warnings():
            # our reports print the group as data; hypothesis's repr of a large one is noise
            warnings.filterwarnings("ignore", "Generating overly large repr", HypothesisWarning)
            test()
    except PropertyFailure as failure:
        return str(failure)
    except HarnessFault as fault:
        return f"{fault}\n  the check stopped there"
    except Hang as hang:
        subject.hangs.record()
        return f"{hang}; the check stopped there (a hang is not shrunk)\n  group as data: {hang.scenario.dumps()}"
    except Flaky as exc:
        first = _first_failure(exc)
        what = str(first) if first is not None else f"{type(exc).__name__}: {exc}"
        return (
            "the strategy failed on a generated group, then answered differently when the same group was "
            "replayed: its answers depend on something besides its inputs (state kept between calls, "
            f"the time, randomness)\n{what}"
        )
    return None


class Groups:
    """Hypothesis strategies of groups for the strategy under test: its Java family's
    parameters (an instance's own configuration), or none for a strategy with no Java twin.

    Example::

        from hypothesis import given

        def test_no_client_is_left_empty(rmq_groups, rmq_conformance):
            @given(rmq_groups.scenarios())
            def check(scenario):
                strategy = rmq_conformance.build_for(scenario)
                ...
            check()
    """

    def __init__(self, subject):
        self.conformance = subject  # the strategy under test (a Subject, or the plugin's Conformance)

    def _fixed(self, drawn):
        fixed = self.conformance.fixed_params()
        return drawn if fixed is None else drawn.map(lambda s: replace(s, params=fixed))

    def scenarios(self, adversarial: bool = False) -> SearchStrategy:
        return self._fixed(scenarios(self.conformance.family, adversarial))

    def explicit(self) -> list:
        """Fixed groups every seed must see (:func:`~.groups.ring_trap_groups`), for checks
        that compare with the reference."""
        family, fixed = self.conformance.family, self.conformance.fixed_params()
        groups = [] if family is None else ring_trap_groups(family)
        return groups if fixed is None else [replace(group, params=fixed) for group in groups]

    def plans(self) -> SearchStrategy:
        drawn = plans(self.conformance.family)
        fixed = self.conformance.fixed_params()
        if fixed is None:
            return drawn
        return drawn.map(lambda plan: replace(plan, start=replace(plan.start, params=fixed)))

    def skip_reason(self) -> str | None:
        """Why the generated checks cannot run (the strategy does not load, or cannot be generated for)."""
        conformance = self.conformance
        if conformance.load_error is not None:
            return "the strategy could not be loaded (see test_strategy_loads)"
        return conformance.generation_problem
