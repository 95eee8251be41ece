"""Internal: the producer side of the mix sweep.

The producer side of ``sweep --mix --groups N``: two producers of one topic, one Java and one
the strategy under test, sending the same message groups (or keys).

Names are the message-group sweep's (:class:`~pytest_rmq_conformance.pipeline.message_groups.space.GroupSpace`, ``--group-format``), taken over
every queue count ``K`` of ``--queues``. A name is *split* at ``K`` when the two producers send
it to different queues: its messages then reach two queues and lose their order. Two families:

- ``GROUP_HASH``, the 5.x clients' ``takeMessageQueueByMessageGroup`` (Java: SipHash-2-4 mod K,
  :class:`~pytest_rmq_conformance.pipeline.message_groups.mappers.JavaModulo`); the strategy is asked as the message-group sweep asks it
  (:class:`~pytest_rmq_conformance.pipeline.message_groups.mappers.UserMapping`: a balancer, or an ``exec:`` harness's ``group`` requests);
- ``SELECTOR_HASH``, the 4.x ``MessageQueueSelector`` by ``arg.hashCode() % n`` (Java:
  ``SelectMessageQueueByHash`` of :data:`~pytest_rmq_conformance.releases.DEFAULT_RELEASE`, the
  name as the ``String`` argument, :class:`JavaSelector`); the strategy is a selector built as
  the suite builds one and called as it is (``observe_selector``), or a harness asked one
  ``select`` request per name with every queue count.

A name the strategy does not answer (an exception, a hang, a queue outside the list) is an
*error*, counted apart from the splits, the first one kept.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.pipeline.message_groups.mappers import JavaModulo, UserMapping
from pytest_rmq_conformance.pipeline.message_groups.space import GroupSpace
from pytest_rmq_conformance.releases import DEFAULT_RELEASE

__all__ = ["FAMILIES", "GROUP_FIELDS", "JavaSelector", "UserSelector", "group_entries", "mix_tally", "mappers"]

#: the families the producer side mixes
FAMILIES = ("GROUP_HASH", "SELECTOR_HASH")
#: one row of a partition's tally: a strategy and family at one queue count
GROUP_FIELDS = (
    ("strategy", "string"),
    ("spec", "string"),
    ("family", "string"),
    ("queues", "int32"),
    ("names", "int64"),
    ("split", "int64"),
    ("errors", "int64"),
    ("first_split", "string"),
    ("split_index", "int64"),
    ("error", "string"),
    ("error_index", "int64"),
    ("seconds", "float64"),
)


class JavaSelector:
    """Java's ``SelectMessageQueueByHash`` (4.9.8 and later: ``abs(hashCode % n)``), each name's
    ``String.hashCode`` taken once, every queue count with numpy."""

    def __init__(self) -> None:
        self._names: Sequence[str] | None = None
        self._hashes: Any = None

    def positions(self, names: Sequence[str], queues: int) -> tuple[Any, str | None]:
        import numpy as np

        from pytest_rmq_conformance.javalang import java_hash_code

        if names is not self._names:
            self._names = names
            self._hashes = np.fromiter((java_hash_code(n) for n in names), np.int64, len(names))
        return np.abs(np.fmod(self._hashes, queues)), None

    def close(self) -> None:
        pass


def _subject(spec: str, timeout: float | None) -> Any:
    from pytest_rmq_conformance.engine.loading.subject import Subject
    from pytest_rmq_conformance.engine.settings import Settings

    return Subject(
        Settings(
            spec=spec, origin="--strategy", version=DEFAULT_RELEASE, timeout=timeout, search_path=(str(Path.cwd()),)
        )
    )


class UserSelector:
    """A ``SELECTOR_HASH`` strategy asked for every name at every queue count: answers are
    computed a batch of names at a time for all the counts (a harness answers a name's counts in
    one ``select`` request). A harness that gives up ends its part of the sweep in this process."""

    def __init__(self, spec: str, counts: range, timeout: float | None = 2.0):
        self.spec = spec
        self.counts = counts
        self.timeout = timeout
        self._subject = _subject(spec, timeout)
        self._names: Sequence[str] | None = None
        self._table: dict[int, Any] = {}
        self._errors: dict[int, str | None] = {}
        self._stopped: str | None = None

    def positions(self, names: Sequence[str], queues: int) -> tuple[Any, str | None]:
        if names is not self._names:
            self._names = names
            self._fill(names)
        return self._table[queues], self._errors[queues]

    def _case(self, name: str) -> Any:
        from pytest_rmq_conformance.kinds.producer.cases import SelectorCase

        return SelectorCase(
            id="mix",
            strategy="SELECTOR_HASH",
            params={},
            category="",
            flags=(),
            expect=(),
            queue_counts=tuple(self.counts),
            arg={"type": "string", "value": name},
        )

    def _answers(self, name: str) -> tuple[list[Any], str | None]:
        """The name's answer at every count (a position, or ``-1``), and why one is missing."""
        from pytest_rmq_conformance.engine.protocol.client import HarnessFault, HarnessGaveUp, Unsupported
        from pytest_rmq_conformance.kinds.producer import protocol
        from pytest_rmq_conformance.kinds.producer.trace import Fault, observe_selector

        subject = self._subject
        if self._stopped is None and subject.load_error is not None:
            self._stopped = subject.load_error
        if self._stopped is not None:
            return [self._stopped] * len(self.counts), self._stopped
        case = self._case(name)
        try:
            if subject.harness is not None:
                got = protocol.select(subject.harness, case, DEFAULT_RELEASE)
            else:
                got = observe_selector(lambda: subject.build("SELECTOR_HASH", {}), case, self.timeout)
        except (HarnessGaveUp, Unsupported) as exc:
            self._stopped = f"the harness stopped answering: {exc}"
            return [self._stopped] * len(self.counts), self._stopped
        except HarnessFault as exc:
            return [f"{exc}"] * len(self.counts), None
        except Fault as fault:
            return [fault.problem] * len(self.counts), None
        return got, None

    def _fill(self, names: Sequence[str]) -> None:
        import numpy as np

        table = np.full((len(self.counts), len(names)), -1, np.int64)
        errors: dict[int, str | None] = dict.fromkeys(self.counts)
        for column, name in enumerate(names):
            answers, _ = self._answers(name)
            for row, (k, got) in enumerate(zip(self.counts, answers)):
                if type(got) is int and 0 <= got < k:
                    table[row, column] = got
                elif errors[k] is None:
                    said = (
                        f"{type(got).__name__}: {got}"
                        if isinstance(got, BaseException)
                        else "not a queue of the list"
                        if got is None
                        else str(got)
                    )
                    errors[k] = f"name {name!r} over {k} queues: {said}"
        self._table = {k: table[row] for row, k in enumerate(self.counts)}
        self._errors = errors

    def close(self) -> None:
        if self._subject.harness is not None:
            self._subject.harness.stop()


def group_entries(specs: Sequence[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """``(spec, family)`` for each strategy mixed on the producer side (a harness once per family
    of :data:`FAMILIES` it serves), and why a spec cannot be: it does not load, or serves neither."""
    from pytest_rmq_conformance.engine.kinds import family_of
    from pytest_rmq_conformance.engine.loading.specs import SpecError, resolve_spec

    entries: list[tuple[str, str]] = []
    problems: list[str] = []
    for spec in dict.fromkeys(specs):
        try:
            resolve_spec(spec, {}, [Path.cwd()])
        except SpecError as exc:
            problems.append(str(exc).replace(f"--rmq-strategy={spec}", f"--strategy {spec}", 1))
            continue
        subject = _subject(spec, None)
        try:
            if subject.load_error is not None:
                problems.append(subject.load_error.replace(f"--rmq-strategy={spec}", f"--strategy {spec}", 1))
                continue
            if subject.harness is not None:
                served = [f for f in subject.families if f in FAMILIES]
                if not served:
                    problems.append(
                        f"--strategy {spec}: the harness serves {', '.join(subject.families) or 'nothing'}, "
                        f"neither {' nor '.join(FAMILIES)} (--mix without --groups mixes consumer families)"
                    )
                entries += [(spec, family) for family in served]
                continue
            probed = subject.source.probed if subject.source is not None else None
            record = family_of(subject.name)
            if record is not None and record.name in FAMILIES:
                entries.append((spec, record.name))
            elif callable(getattr(probed, "take_message_queue_by_message_group", None)):
                entries.append((spec, "GROUP_HASH"))
            elif callable(getattr(probed, "select", None)):
                entries.append((spec, "SELECTOR_HASH"))
            else:
                problems.append(
                    f"--strategy {spec}: the producer side mixes a balancer's take_message_queue_by_message_group(group) "
                    f"or a selector's select(mqs, msg, arg); {type(probed).__name__} has neither"
                )
        finally:
            if subject.harness is not None:
                subject.harness.stop()
    return entries, problems


def label(spec: str, family: str) -> str:
    return f"{spec} [{family}]"


def mappers(
    entries: Sequence[tuple[str, str]], space: GroupSpace, timeout: float | None
) -> list[tuple[str, str, str, Any, Any]]:
    """Per entry: ``(label, spec, family, Java's mapping, the strategy's)``; one Java mapping per family."""
    java = {"GROUP_HASH": JavaModulo(), "SELECTOR_HASH": JavaSelector()}
    found = []
    for spec, family in entries:
        mine = UserMapping(spec, timeout) if family == "GROUP_HASH" else UserSelector(spec, space.measured(), timeout)
        found.append((label(spec, family), spec, family, java[family], mine))
    return found


def mix_tally(
    space: GroupSpace, chosen: Sequence[tuple[str, str, str, Any, Any]], batches: Iterable[Sequence[int]]
) -> list[dict[str, Any]]:
    """One row per entry and queue count (:data:`GROUP_FIELDS`): the names of ``batches`` answered by
    both, those split between Java's queue and the strategy's, those the strategy did not answer."""
    import numpy as np

    rows: dict[tuple[str, int], dict[str, Any]] = {
        (entry[0], k): {
            "strategy": entry[0],
            "spec": entry[1],
            "family": entry[2],
            "queues": k,
            "names": 0,
            "split": 0,
            "errors": 0,
            "first_split": None,
            "split_index": None,
            "error": None,
            "error_index": None,
            "seconds": 0.0,
        }
        for entry in chosen
        for k in space.measured()
    }
    for given in batches:
        batch = list(given)
        names = [space.group(i) for i in batch]
        for name, _, _, java, mine in chosen:
            for k in space.measured():
                started = time.perf_counter()
                theirs, _ = java.positions(names, k)
                found, error = mine.positions(names, k)
                row = rows[name, k]
                answered = found >= 0
                split = answered & (found != theirs)
                row["names"] += int(np.count_nonzero(answered))
                row["errors"] += len(names) - int(np.count_nonzero(answered))
                row["split"] += int(np.count_nonzero(split))
                if row["first_split"] is None and split.any():
                    at = int(np.argmax(split))
                    row["first_split"] = f"{names[at]!r}: Java's queue {int(theirs[at])}, this one's {int(found[at])}"
                    row["split_index"] = batch[at]
                if row["error"] is None and not answered.all():
                    row["error"] = error or f"name {names[int(np.argmax(~answered))]!r} over {k} queues: no answer"
                    row["error_index"] = batch[int(np.argmax(~answered))]
                row["seconds"] += time.perf_counter() - started
    return list(rows.values())
