"""Internal: the golden cases for the strategy under test: which apply at the selected release, and their outcomes.

:class:`GoldenCases` picks, from the shipped golden data and any extra
directories, the cases of the subject's family that have a run at the
selected release and charset (and, for an instance spec, its own
configuration), then replays each into a :class:`CaseOutcome`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.golden.data import GoldenDataError, load_golden
from pytest_rmq_conformance.engine.records import CaseOutcome, Run, reason_of
from pytest_rmq_conformance.releases import parse_release, release_problem

if TYPE_CHECKING:
    from pytest_rmq_conformance.engine.loading.subject import Subject

__all__ = ["CaseOutcome", "GoldenCases", "reason_of"]

class GoldenCases:
    """The golden cases that apply to ``subject``; ``extra_dirs`` returns more golden
    directories (validated in full), ``observe`` receives every outcome."""

    def __init__(
        self,
        subject: Subject,
        extra_dirs: Callable[[], Sequence[Path]] = tuple,
        observe: Callable[[CaseOutcome], None] = lambda outcome: None,
    ):
        self.subject = subject
        self._extra_dirs, self._observe = extra_dirs, observe
        self._cases: list[Any] | None = None
        self._runs: dict[str, Run] = {}
        self._every: list[Any] = []  # every case of the served families, at any release
        self.note = ""

    def run_for(self, case: Any) -> str | None:
        """The run of ``case`` matching the selected release and charset, if it has one (of several,
        such as the versions of a 5.x client, the last: the newest)."""
        settings = self.subject.settings
        five = parse_release(settings.version) >= (5, 0, 0)
        for run_id in reversed(case.runs):
            run = self._runs[run_id]
            if not run.answers_at(settings.version):
                continue
            if run.default_charset == settings.charset or (five and run.default_charset == "UTF-8"):
                return run_id
        return None

    def cases(self) -> list[Any]:
        """The applicable cases, in file order.

        Raises :class:`GoldenDataError` for malformed golden data and
        ``LookupError`` when no golden data covers the selected release.
        """
        if self._cases is not None:
            return self._cases
        subject = self.subject
        served = subject.families if subject.load_error is None else ()
        if not served:
            self._cases = []
            return self._cases
        kinds_dirs = [directory for kind in subject.kinds for directory in kind.golden_dirs]
        sets = [load_golden(strategies=served)]
        sets += [load_golden(directory, strategies=served, validate=False) for directory in kinds_dirs]  # shipped
        sets += [load_golden(directory, strategies=served) for directory in self._extra_dirs()]
        for golden in sets:
            self._runs.update(golden.runs)
        problem = release_problem(subject.settings.version, self._covered())
        if problem is not None:
            raise LookupError(problem)
        seen: dict[str, str] = {}
        cases: list[Any] = []
        total = 0  # cases with a run at this release, before the instance filter
        for golden in sets:
            for case in golden.cases:
                if case.id in seen:
                    raise GoldenDataError(f"{case.source}: duplicate case id, also at {seen[case.id]}")
                seen[case.id] = case.source
                if self.run_for(case) is not None:
                    total += 1
                    if subject.accepts(case.strategy, case.params):
                        cases.append(case)
        self._every = [case for golden in sets for case in golden.cases]
        if len(cases) < total:
            self.note = (
                f"{total - len(cases)} of {total} cases need a configuration this instance does not have "
                "(pass a class or factory to run them all)"
            )
        self._cases = cases
        return cases

    def _covered(self) -> set[str]:
        """The releases some loaded run answers at: each run's own, and the shipped releases a
        client's run answers at too."""
        from pytest_rmq_conformance.engine.golden.data import shipped_releases

        runs = self._runs.values()
        covered = {run.rocketmq for run in runs}
        if any(run.client is not None for run in runs):
            covered |= {release for release in shipped_releases() if any(run.answers_at(release) for run in runs)}
        return covered

    def missing_vectors(self) -> str | None:
        """Why a served family cannot be checked against Java at the selected release: it has
        vectors at other releases but none there (in any directory), so its run would check nothing
        while claiming Java's behaviour; ``None`` when each has some, or has none at any release (a
        family of its own, with no Java twin, is held to its invariants and its own reference).
        Raises as :meth:`cases` does."""
        self.cases()
        version = self.subject.settings.version
        for family in self.subject.families:
            runs = {run_id for case in self._every if case.strategy == family for run_id in case.runs}
            releases = sorted({self._runs[run_id].rocketmq for run_id in runs}, key=parse_release)
            if releases and not any(self._runs[run_id].answers_at(version) for run_id in runs):
                return f"--rmq-reference-version={version}: no golden vectors for {family} at RocketMQ {version}; it has them at {', '.join(releases)}"
        return None

    def clients(self) -> list[str]:
        """The clients outside RocketMQ's own whose runs answer the applicable cases, in file order
        (``rocketmq-client-java 5.2.0``): they, not the release, are what those cases hold to."""
        found = (self._runs[run].client for run in map(self.run_for, self.cases()) if run is not None)
        return list(dict.fromkeys(client for client in found if client is not None))

    def java_label(self) -> str:
        """Where the selected release is shown: ``RocketMQ 5.5.0``, or the clients whose runs
        answer its cases, with it (``rocketmq-client-java 5.2.0, with RocketMQ 5.5.0``: a client
        versioned apart from RocketMQ answers at every release of its line)."""
        release = f"RocketMQ {self.subject.settings.version}"
        try:
            clients = self.clients()
        except (GoldenDataError, LookupError):
            clients = []
        return f"{', '.join(clients)}, with {release}" if clients else release

    def run_case(self, case: Any) -> CaseOutcome:
        """Replay ``case`` through its kind and report its outcome (also to ``observe``)."""
        run = self.run_for(case)
        assert run is not None, f"{case.id} has no run for {self.subject.settings.version}"
        subject = self.subject
        if subject.hangs.exhausted:
            outcome = CaseOutcome(case, run, subject.name, error=subject.hangs.refusal())
        else:
            outcome = kinds.kind_of(case.strategy).replay(subject, case, self._runs[run])
        self._observe(outcome)
        return outcome

    def report(self, outcome: CaseOutcome) -> str:
        """The failure report of ``outcome``, ending with the line that reruns its case."""
        from pytest_rmq_conformance.engine.rerun import rerun_command

        kind = kinds.kind_of(outcome.case.strategy)
        return kind.report(outcome, rerun_command(self.subject.settings, outcome.case.id))
