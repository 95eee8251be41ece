"""Internal: the message-group sweep's mappings of message groups to queues.

How the message-group sweep maps message groups to queues: Java's mapping, and a user's alternative.

:class:`JavaModulo` is ``takeMessageQueueByMessageGroup`` of the 5.x Java client, SipHash-2-4
of the group's UTF-8 bytes modulo the queue count, with each group hashed once and every queue
count taken with numpy (the tests hold it equal to the port,
:func:`~pytest_rmq_conformance.ports.grpc.balancers.message_group_index`). :class:`UserMapping` asks a
``--strategy``: a Python balancer built as ``factory(route=, index=)`` on the route of ``K``
writable queues, ids ``0..K-1`` of one master (the golden ``GROUP_HASH`` route), whose
``take_message_queue_by_message_group`` answers each group; or an ``exec:`` harness serving
``GROUP_HASH``, asked a batch of groups per ``group`` request. Either way, an answer is the
position of the queue in the route; ``-1`` stands for no answer (an exception, a hang, a queue
not in the route), counted as an error with the first message kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.releases import DEFAULT_RELEASE

__all__ = ["JAVA", "FAMILY", "JavaModulo", "UserMapping", "mappings", "load_problem"]

#: the family a swept alternative is asked as
FAMILY = "GROUP_HASH"
#: the label of Java's mapping in rows and reports
JAVA = "Java (SipHash-2-4 mod K)"
#: groups per ``group`` request to a harness
HARNESS_BATCH = 2000


class JavaModulo:
    """Java's message-group mapping, hashing each group once for every queue count."""

    spec = FAMILY
    label = JAVA

    def __init__(self) -> None:
        self._groups: Sequence[str] | None = None
        self._hashes: Any = None

    def hashes(self, groups: Sequence[str]) -> Any:
        """``sipHash24(group.getBytes(UTF_8)).asLong()`` of each group, as an int64 array."""
        import numpy as np

        from pytest_rmq_conformance.javalang import java_get_bytes, sip_hash24

        if groups is not self._groups:
            self._groups = groups
            self._hashes = np.fromiter((sip_hash24(java_get_bytes(g, "UTF-8")) for g in groups), np.int64, len(groups))
        return self._hashes

    def positions(self, groups: Sequence[str], queues: int) -> tuple[Any, str | None]:
        """``LongMath.mod(hash, queues)`` of each group (numpy's ``mod`` takes the divisor's sign,
        as Guava's does), and no error."""
        import numpy as np

        return np.mod(self.hashes(groups), queues), None

    def close(self) -> None:
        pass


def _subject(spec: str, timeout: float | None) -> Any:
    from pytest_rmq_conformance.engine.loading.subject import Subject
    from pytest_rmq_conformance.engine.settings import Settings

    return Subject(Settings(spec=spec, origin="--strategy", version=DEFAULT_RELEASE, timeout=timeout,
                            search_path=(str(Path.cwd()),)))


def load_problem(spec: str) -> str | None:
    """Why ``spec`` cannot be swept as a message-group mapping (checked before Spark starts), or ``None``."""
    from pytest_rmq_conformance.engine.loading.specs import SpecError, resolve_spec

    try:
        resolve_spec(spec, {}, [Path.cwd()])
    except SpecError as exc:
        return str(exc).replace(f"--rmq-strategy={spec}", f"--strategy {spec}", 1)
    subject = _subject(spec, None)
    try:
        error = subject.load_error
        if error is not None:
            return error.replace(f"--rmq-strategy={spec}", f"--strategy {spec}", 1)
        if subject.harness is not None:
            served = subject.hello.strategies if subject.hello is not None else ()
            if FAMILY not in served:
                return f"--strategy {spec}: the harness serves {', '.join(served) or 'nothing'}, not {FAMILY} (group requests)"
            return None
        probed = subject.source.probed if subject.source is not None else None
        if not callable(getattr(probed, "take_message_queue_by_message_group", None)):
            return (f"--strategy {spec}: the group sweep asks a balancer's take_message_queue_by_message_group(group); "
                    f"{type(probed).__name__} has none")
        return None
    finally:
        if subject.harness is not None:
            subject.harness.stop()


class UserMapping:
    """A user's ``--strategy`` asked for every group at every queue count. Its first hang (or a
    harness that gives up) ends its part of the sweep in this process: every later group is an
    error that names it."""

    def __init__(self, spec: str, timeout: float | None = 2.0):
        self.spec = self.label = spec
        self.timeout = timeout
        self._subject = _subject(spec, timeout)
        self._stopped: str | None = None

    def positions(self, groups: Sequence[str], queues: int) -> tuple[Any, str | None]:
        import numpy as np

        if self._stopped is None and self._subject.load_error is not None:
            self._stopped = self._subject.load_error
        if self._stopped is not None:
            return np.full(len(groups), -1, np.int64), self._stopped
        if self._subject.harness is not None:
            found, error = self._ask_harness(groups, queues)
        else:
            found, error = self._ask(groups, queues)
        return np.asarray(found, np.int64), error

    def _ask(self, groups: Sequence[str], queues: int) -> tuple[list[int], str | None]:
        from pytest_rmq_conformance.engine.running.timeouts import (
            CallTimeout,
            StrategyExit,
            call_with_timeout,
            time_limits,
        )
        from pytest_rmq_conformance.kinds.grpc.play import group_route, position_in

        route = group_route(queues)
        where = {id(queue): position for position, queue in enumerate(route)}
        first: str | None = None
        found = [-1] * len(groups)
        with time_limits():
            try:
                balancer = call_with_timeout(lambda: self._subject.build(FAMILY, {"route": route, "index": 0}), self.timeout)
            except (CallTimeout, StrategyExit, Exception) as exc:
                return found, f"building the balancer over {queues} queues: {type(exc).__name__}: {exc}"
            take = balancer.take_message_queue_by_message_group
            for n, group in enumerate(groups):
                try:
                    queue = call_with_timeout(partial(take, group), self.timeout)
                except (CallTimeout, StrategyExit) as exc:
                    self._stopped = f"group {group!r} over {queues} queues did not return: {exc}; not asked since"
                    return found, self._stopped
                except Exception as exc:
                    first = first or f"group {group!r} over {queues} queues: {type(exc).__name__}: {exc}"
                    continue
                position = where.get(id(queue))
                if position is None:  # not one of the route's objects: placed as the golden replay places it
                    position = position_in(route, queue)
                if position is None:
                    first = first or f"group {group!r} over {queues} queues: returned {queue!r:.80}, not a queue of the route"
                    continue
                found[n] = position
        return found, first

    def _ask_harness(self, groups: Sequence[str], queues: int) -> tuple[list[int], str | None]:
        from pytest_rmq_conformance.engine.protocol.client import HarnessFault, HarnessGaveUp, Unsupported
        from pytest_rmq_conformance.kinds.grpc.protocol import ask_groups

        harness = self._subject.harness
        found: list[int] = []
        first: str | None = None
        for start in range(0, len(groups), HARNESS_BATCH):
            batch = list(groups[start:start + HARNESS_BATCH])
            try:
                answers = ask_groups(harness, batch, queues)
            except (HarnessGaveUp, Unsupported) as exc:
                self._stopped = f"the harness stopped answering: {exc}"
                return found + [-1] * (len(groups) - len(found)), self._stopped
            except HarnessFault as exc:
                first = first or f"groups {batch[0]!r}.. over {queues} queues: {exc}"
                found += [-1] * len(batch)
                continue
            for group, answer in zip(batch, answers):
                index = answer.get("index")
                if isinstance(index, int) and 0 <= index < queues:
                    found.append(index)
                    continue
                found.append(-1)
                if first is None:
                    said = f"{answer['error']}: {answer['message']}" if "error" in answer else f"index {index!r}, not in 0..{queues - 1}"
                    first = f"group {group!r} over {queues} queues: {said}"
        return found, first

    def close(self) -> None:
        if self._subject.harness is not None:
            self._subject.harness.stop()


def mappings(specs: Sequence[str], timeout: float | None) -> list[Any]:
    """Java's mapping, then each spec's, once."""
    return [JavaModulo(), *(UserMapping(spec, timeout) for spec in dict.fromkeys(specs))]
