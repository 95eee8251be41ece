"""A harness that serves Python strategies over the JSON-lines protocol (version 1).

    python -m pytest_rmq_conformance.harness [SPEC ...]

Each SPEC is anything ``--rmq-strategy`` takes (``AVG``, ``module:Class``, an
entry-point name); with none, the reference port of every family. The strategy families
the specs belong to are the ``strategies`` of its hello. Every request but hello and bye is
answered by the kind of strategy it belongs to (consumer allocation's ``allocate``, and its
``sort``, Java's, the one a client should run before it calls its strategy); every call builds
a fresh strategy, as the golden replay does. What the strategies print goes to stderr, so it
cannot garble the protocol on stdout.

Run through it with ``--rmq-isolate``, a strategy that crashes its process
fails the case in flight and the run goes on. It is also the protocol's own
conformance test: served this way, the reference ports pass the suite.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from collections.abc import Mapping, Sequence
from typing import IO, Any

from pytest_rmq_conformance._version import __version__
from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.loading.subject import Subject
from pytest_rmq_conformance.engine.protocol.messages import VERSION, message
from pytest_rmq_conformance.engine.settings import Settings
from pytest_rmq_conformance.releases import DEFAULT_RELEASE

__all__ = ["Server", "main", "parser"]


class _Unsupported(Exception):
    """A request this harness cannot serve: the reason goes back as ``unsupported``."""


class Server:
    """Answers protocol requests for the strategies of ``specs``, one :class:`Subject` per spec and release."""

    def __init__(self, specs: Sequence[str], name: str | None = None):
        self.specs = list(specs)
        self.name = name or " ".join(self.specs)
        self._subjects: dict[tuple[str, str], Subject] = {}
        self.families: dict[str, str] = {}  # family -> the spec serving it
        for spec in self.specs:
            subject = self._subject(spec, DEFAULT_RELEASE)
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
        """Who serves, and what each kind declares of the strategies served (``hello_fields``;
        a field two strategies declare as objects is merged): a strategy run isolated is judged
        as it is in this process."""
        declared: dict[str, Any] = {}
        for spec in self.families.values():
            subject = self._subject(spec, DEFAULT_RELEASE)
            fields = getattr(subject.kind, "hello_fields", None)
            if fields is not None and subject.source is not None and subject.source.probed is not None:
                for key, value in fields(subject.source.probed).items():
                    known = declared.get(key)
                    declared[key] = {**known, **value} if isinstance(known, dict) and isinstance(value, dict) else value
        return {
            "protocol": VERSION,
            "implementation": {
                "name": self.name,
                "language": f"Python {platform.python_version()}",
                "version": __version__,
            },
            "strategies": list(self.families),
            "sort": True,
            **declared,
        }

    def build(self, family: str, params: Mapping[str, Any], release: str) -> Any:
        """A fresh strategy of ``family`` configured by ``params``, behaving as ``release``."""
        spec = self.families.get(family)
        if spec is None:
            raise _Unsupported(f"{family} is not served here (serving {', '.join(self.families)})")
        subject = self._subject(spec, release)
        if subject.load_error is not None:
            raise _Unsupported(subject.load_error)
        return subject.build(family, params)

    def answer(self, line: str) -> dict[str, Any] | None:
        """The answer to one request line; ``None`` for bye. Every other request is its kind's to
        answer (:meth:`~pytest_rmq_conformance.engine.kinds.Kind.serve`)."""
        request = json.loads(line)
        command = request.get("cmd")
        if command == "hello":
            return message("hello-response", self.hello())
        if command == "bye":
            return None
        request_id = request.get("id")
        release = request.get("release", DEFAULT_RELEASE)
        family = request.get("strategy")
        if isinstance(family, str) and family not in self.families:
            return {"id": request_id, "unsupported": f"{family} is not served here (serving {', '.join(self.families)})"}
        try:
            answer = next(
                (
                    found
                    for kind in kinds.all_kinds()
                    if (found := kind.serve(request, lambda family, params: self.build(family, params, release))) is not None
                ),
                None,
            )
        except _Unsupported as exc:
            answer = {"unsupported": str(exc)}
        except (KeyError, TypeError, ValueError) as exc:
            answer = {"unsupported": f"malformed {command} request: {type(exc).__name__}: {exc}"}
        if answer is None:
            return {"id": request_id, "unsupported": f"unknown command {command!r}"}
        if "unsupported" in answer:
            return {"id": request_id, **answer}
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


def parser() -> argparse.ArgumentParser:
    """The command line of ``python -m pytest_rmq_conformance.harness``."""
    command = argparse.ArgumentParser(
        prog="python -m pytest_rmq_conformance.harness",
        description="Serve Python strategies over the harness protocol (version 1): JSON-lines requests on stdin, "
        "one answer a line on stdout, until bye or the end of stdin. The suite starts it as "
        "--rmq-strategy='exec:python -m pytest_rmq_conformance.harness [SPEC ...]'; --rmq-isolate starts it for a "
        "Python strategy by itself.",
    )
    command.add_argument(
        "specs",
        nargs="*",
        metavar="SPEC",
        help="a strategy as --rmq-strategy names it: a built-in name (AVG, FAULT_STRATEGY, GROUP_HASH, ...), "
        "module:attribute or a name from the rmq_conformance.strategies entry points (default: the reference "
        "port of every family)",
    )
    return command


def main(argv: Sequence[str] | None = None) -> None:
    specs = parser().parse_args(sys.argv[1:] if argv is None else argv).specs
    # the protocol keeps the real stdout; anything else printed goes to stderr
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    server = Server(specs or sorted(kinds.ports()), None if specs else "pytest-rmq-conformance reference ports")
    server.serve(sys.stdin.buffer, protocol_out)


if __name__ == "__main__":
    main()
