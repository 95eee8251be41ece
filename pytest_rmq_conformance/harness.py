"""A harness that serves Python strategies over the JSON-lines protocol (version 1).

    python -m pytest_rmq_conformance.harness [SPEC ...]

Each SPEC is anything ``--rmq-strategy`` takes (``AVG``, ``module:Class``, an
entry-point name); with none, the six reference ports. The strategy families
the specs belong to are the ``strategies`` of its hello; the sort it serves is
Java's (``java_sorted_queues``, ``java_sorted_strings``), the one a client
should run before it calls its strategy. Every allocate call builds a fresh
strategy, as the golden replay does. What the strategies print goes to
stderr, so it cannot garble the protocol on stdout.

Run through it with ``--rmq-isolate``, a strategy that crashes its process
fails the case in flight and the run goes on. It is also the protocol's own
conformance test: served this way, the reference ports pass the suite.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import islice
from typing import IO, Any

from pytest_rmq_conformance import __version__
from pytest_rmq_conformance.engine.protocol import VERSION, message, queue_to_json
from pytest_rmq_conformance.engine.replay import ANSWER_SLACK, item_problem
from pytest_rmq_conformance.engine.settings import Settings
from pytest_rmq_conformance.engine.subject import Subject
from pytest_rmq_conformance.javalang import java_sorted_strings
from pytest_rmq_conformance.model import MessageQueue, java_sorted_queues
from pytest_rmq_conformance.strategies import REFERENCE_CLASSES

__all__ = ["Server", "main"]


def _error(exc: BaseException) -> dict[str, Any]:
    if isinstance(exc, ValueError):  # Java's IllegalArgumentException
        return {"error": "illegal-argument", "message": str(exc)}
    return {"error": "other", "message": f"{type(exc).__name__}: {exc}"}


def _queues(items: Sequence[Any] | None) -> list[MessageQueue] | None:
    return None if items is None else [MessageQueue(topic, broker, queue_id) for topic, broker, queue_id in items]


def _sorted(items: Any, sort: Callable[[], list]) -> Any:
    """``sort()`` as an answer: ``None`` for a ``None`` list, an error where Java's sort throws
    ("Comparison method violates its general contract!")."""
    if items is None:
        return None
    try:
        return sort()
    except ValueError as exc:
        return _error(exc)


class Server:
    """Answers protocol requests for the strategies of ``specs``, one :class:`Subject` per spec and release."""

    def __init__(self, specs: Sequence[str], name: str | None = None):
        self.specs = list(specs)
        self.name = name or " ".join(self.specs)
        self._subjects: dict[tuple[str, str], Subject] = {}
        self.families: dict[str, str] = {}  # family -> the spec serving it
        for spec in self.specs:
            subject = self._subject(spec, Settings().version)
            if subject.load_error is not None:
                raise SystemExit(f"pytest_rmq_conformance.harness: {subject.load_error}")
            if subject.family is None:
                raise SystemExit(f"pytest_rmq_conformance.harness: {spec} ({subject.name}) has no Java twin to serve")
            self.families.setdefault(subject.family, spec)

    def _subject(self, spec: str, release: str) -> Subject:
        key = (spec, release)
        if key not in self._subjects:
            self._subjects[key] = Subject(Settings(spec=spec, origin="harness", version=release, timeout=None))
        return self._subjects[key]

    def hello(self) -> dict[str, Any]:
        return {
            "protocol": VERSION,
            "implementation": {
                "name": self.name,
                "language": f"Python {platform.python_version()}",
                "version": __version__,
            },
            "strategies": list(self.families),
            "sort": True,
        }

    def allocate(self, request: Mapping[str, Any]) -> dict[str, Any]:
        family = request["strategy"]
        spec = self.families.get(family)
        if spec is None:
            return {"unsupported": f"{family} is not served here (serving {', '.join(self.families)})"}
        subject = self._subject(spec, request["release"])
        if subject.load_error is not None:
            return {"unsupported": subject.load_error}
        mq_all, cid_all = _queues(request["mqAll"]), request["cidAll"]
        answers = []
        for caller in request["callers"]:
            try:
                strategy = subject.build(family, request["params"])
                result = strategy.allocate(
                    request["consumerGroup"], caller, None if mq_all is None else list(mq_all),
                    None if cid_all is None else list(cid_all),
                )
            except Exception as exc:  # the strategy's failure is its answer
                answers.append(_error(exc))
                continue
            answers.append(self._answer(result, len(mq_all or ()) + ANSWER_SLACK))
        return {"answers": answers}

    @staticmethod
    def _answer(result: Any, limit: int) -> dict[str, Any]:
        if result is None:
            return {"null": True}
        if isinstance(result, (str, bytes, dict)) or not isinstance(result, Iterable):
            return {"error": "other", "message": f"returned {type(result).__name__}, not a list of MessageQueue"}
        items = list(islice(result, limit + 1))
        if len(items) > limit:
            return {"error": "other", "message": f"returned more than {limit} items (read no further)"}
        wrong = item_problem(items)
        if wrong is not None:
            return {"error": "other", "message": wrong}
        return {"queues": [queue_to_json(mq) for mq in items]}

    @staticmethod
    def sort(request: Mapping[str, Any]) -> dict[str, Any]:
        mq_all, cid_all = _queues(request["mqAll"]), request["cidAll"]
        return {
            "mqAll": _sorted(mq_all, lambda: [queue_to_json(mq) for mq in java_sorted_queues(mq_all or ())]),
            "cidAll": _sorted(cid_all, lambda: java_sorted_strings(cid_all)),
        }

    def answer(self, line: str) -> dict[str, Any] | None:
        """The answer to one request line; ``None`` for bye."""
        request = json.loads(line)
        command = request.get("cmd")
        if command == "hello":
            return message("hello-response", self.hello())
        if command == "bye":
            return None
        request_id = request.get("id")
        if command not in ("allocate", "sort"):
            return {"id": request_id, "unsupported": f"unknown command {command!r}"}
        try:
            answer = self.allocate(request) if command == "allocate" else self.sort(request)
        except (KeyError, TypeError, ValueError) as exc:
            answer = {"unsupported": f"malformed {command} request: {type(exc).__name__}: {exc}"}
        return message(f"{command}-response", {"id": request_id, **answer})

    def serve(self, requests: IO[bytes], answers: IO[bytes]) -> None:
        for raw in requests:
            if not raw.strip():
                continue
            answer = self.answer(raw.decode("utf-8"))
            if answer is None:
                return
            answers.write(json.dumps(answer, ensure_ascii=True, separators=(",", ":")).encode("ascii") + b"\n")
            answers.flush()


def main(argv: Sequence[str] | None = None) -> None:
    specs = list(sys.argv[1:] if argv is None else argv)
    # the protocol keeps the real stdout; anything else printed goes to stderr
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    server = Server(specs or sorted(REFERENCE_CLASSES), None if specs else "pytest-rmq-conformance reference ports")
    server.serve(sys.stdin.buffer, protocol_out)


if __name__ == "__main__":
    main()
