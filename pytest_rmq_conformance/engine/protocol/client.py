"""Strategies in another process: the suite's side of the JSON-lines harness protocol, version 1.

A harness is a long-lived process. The suite writes one JSON object per line
to its stdin and reads exactly one JSON object per line from its stdout for
each request, in order; stderr is its log, of which the last lines are kept
for failure reports. The messages are declared in ``schemas/protocol-*.schema.json`` (and in
each kind's own schema folders), read by :mod:`~pytest_rmq_conformance.engine.protocol.messages`,
which builds every request. Two belong to every harness::

    {"cmd": "hello", "protocol": 1}
        -> {"protocol": 1, "implementation": {"name", "language", "version", "homepage"?},
            "strategies": [family, ...], "sort": bool, ...}
    {"cmd": "bye"}

and each kind of strategy adds its own requests (consumer allocation's ``allocate`` and
``sort``: :mod:`pytest_rmq_conformance.kinds.allocation.protocol`), each answered by
``{"id", ...}`` or ``{"id", "unsupported": reason}``. The hello's further fields are what a
harness declares of its strategies for their kinds: each kind checks and reads its own
(``Kind.hello_problem``), never this module.

:class:`Harness` starts the process, checks every line it reads, and hands each answer, a JSON
object with the request's id, to the kind that asked (:meth:`Harness.request`), which reads it
and calls :meth:`Harness.fault_in_flight` for what it cannot read.
Anything that is not a well-formed answer to the request in flight (the
process died, wrote a malformed or unexpected line, or overran the time
limit) raises :class:`HarnessFault`, naming what happened with the tail of
stderr; the process is stopped, and the next request starts a new one, up to
``max_restarts`` times. Nothing here imports pytest.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import shlex
import signal
import subprocess
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.protocol.messages import VERSION, message

__all__ = [
    "Hello",
    "Harness",
    "HarnessError",
    "HarnessFault",
    "HarnessGaveUp",
    "Unsupported",
    "quote",
]

#: how long a harness may take to start and say hello, in seconds, at the least
STARTUP_SECONDS = 30.0
STARTUP_RULE = f"the start-up limit: {STARTUP_SECONDS:g} s or twice --rmq-timeout, whichever is longer"
#: stderr lines kept for failure reports
STDERR_TAIL = 20
#: characters of an offending line quoted in a report
QUOTE = 200

_EOF = object()
#: the hello answer's own fields; the others are the kinds'
HELLO_FIELDS = frozenset({"protocol", "implementation", "strategies", "sort"})


class HarnessFault(BaseException):
    """The harness did not answer the request in flight as the protocol says (it has been stopped).

    A ``BaseException``, as :class:`~pytest_rmq_conformance.engine.running.hangs.Hang` is: it is no
    answer of the strategy's to compare, and hypothesis must not retry it while shrinking.
    """


class HarnessGaveUp(BaseException):
    """The harness faulted more often than its restarts allow: what is left is not run."""


class HarnessError(Exception):
    """What a harness reported as ``{"error": "other", "message": ...}``: its strategy threw."""


class Unsupported(BaseException):
    """The harness cannot serve the request at all (``{"unsupported": reason}``): not implemented,
    which is reported as skipped, never as passed."""


@dataclass(frozen=True)
class Hello:
    """What a harness says of itself."""

    name: str
    language: str
    version: str
    homepage: str | None
    strategies: tuple[str, ...]
    sort: bool
    #: the fields beyond the protocol's own: what it declares of its strategies, each field a
    #: kind's to check and read (``Kind.hello_problem``, ``Kind.hello_fields``)
    declared: Mapping[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        return f"{self.name} {self.version} ({self.language})"


def _declared_problem(kind: Any, declared: Mapping[str, Any]) -> str | None:
    """What ``kind`` finds wrong with the fields a hello declares for it, if anything."""
    check = getattr(kind, "hello_problem", None)
    return None if check is None else check(declared)


def quote(line: str) -> str:
    """``line`` as a report quotes it: ``repr``, cut to its first characters."""
    return repr(line if len(line) <= QUOTE else line[:QUOTE] + "...")


def _exit_status(code: int) -> str:
    if code < 0:
        try:
            return f"was killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"


class _Process:
    """One run of the harness command: pipes, a reader thread per output, the stderr tail."""

    def __init__(self, argv: Sequence[str], cwd: Path | None, env: Mapping[str, str] | None):
        try:
            self.popen = subprocess.Popen(
                list(argv),
                cwd=cwd,
                env=None if env is None else dict(env),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except OSError as exc:
            raise HarnessFault(f"cannot start {shlex.join(argv)}: {exc}") from None
        self.lines: queue.Queue = queue.Queue()
        self.stderr: collections.deque = collections.deque(maxlen=STDERR_TAIL)
        threading.Thread(target=self._read_stdout, daemon=True, name="rmq-harness-stdout").start()
        self._stderr_done = threading.Thread(target=self._read_stderr, daemon=True, name="rmq-harness-stderr")
        self._stderr_done.start()

    def _read_stdout(self) -> None:
        stream = self.popen.stdout
        assert stream is not None
        for raw in stream:
            self.lines.put(raw)
        self.lines.put(_EOF)

    def _read_stderr(self) -> None:
        stream = self.popen.stderr
        assert stream is not None
        for raw in stream:
            self.stderr.append(raw.decode("utf-8", "replace").rstrip("\n"))

    def send(self, message: Mapping[str, Any]) -> None:
        stdin = self.popen.stdin
        assert stdin is not None
        stdin.write(json.dumps(message, ensure_ascii=True, separators=(",", ":")).encode("ascii") + b"\n")
        stdin.flush()

    def receive(self, timeout: float | None) -> bytes | None:
        """The next line, ``None`` at end of output; ``queue.Empty`` after ``timeout`` seconds."""
        item = self.lines.get(timeout=timeout)
        return None if item is _EOF else item

    def tail(self) -> str:
        self._stderr_done.join(0.2)  # what a dying process wrote last
        if not self.stderr:
            return "(its stderr was empty)"
        return "its stderr ended with:\n" + "\n".join(f"    | {line}" for line in self.stderr)

    def stop(self, say_bye: bool) -> None:
        popen = self.popen
        if popen.poll() is None and say_bye:
            try:
                self.send(message("bye", {"cmd": "bye"}))
                popen.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                pass
        if popen.poll() is None:
            popen.kill()
            popen.wait()
        for stream in (popen.stdin, popen.stdout, popen.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass


class Harness:
    """A harness command (split like a shell line) and the process that runs it.

    ``timeout`` limits each call in seconds (a request for ``k`` callers may
    take ``k`` times as long); ``max_restarts`` bounds how often a faulty
    process is replaced before :class:`HarnessFault` says the harness is given up.
    """

    def __init__(
        self,
        command: str,
        *,
        timeout: float | None = 5.0,
        max_restarts: int = 3,
        cwd: str | os.PathLike | None = None,
        env: Mapping[str, str] | None = None,
    ):
        self.command = command
        self.argv = shlex.split(command)
        if not self.argv:
            raise HarnessFault("the harness command is empty")
        self.timeout, self.max_restarts = timeout, max_restarts
        self.cwd = None if cwd is None else Path(cwd)
        self.env = env
        self.starts = 0
        self.faults = 0
        self._process: _Process | None = None
        self._hello: Hello | None = None
        self._next_id = 0
        self._lock = threading.Lock()

    # -- the process -----------------------------------------------------

    @property
    def restarts(self) -> int:
        """Processes started to replace one that faulted."""
        return self.faults

    def hello(self) -> Hello:
        """The harness's hello: the first process's (starting it if there was none yet);
        :class:`HarnessFault` if it never says one."""
        if self._hello is not None:
            return self._hello
        self._ensure_started()
        assert self._hello is not None
        return self._hello

    def _ensure_started(self) -> _Process:
        if self._process is not None:
            return self._process
        if self.faults > self.max_restarts:
            raise HarnessGaveUp(
                f"not run: the harness was restarted {self.max_restarts} times (the limit, --rmq-max-restarts) "
                f"after faults; {self.command} is given up for the rest of the run"
            )
        self.starts += 1
        process = _Process(self.argv, self.cwd, self.env)
        self._process = process
        limit = max(STARTUP_SECONDS, 2 * (self.timeout or 0))
        self._send(process, message("hello-request", {"cmd": "hello", "protocol": VERSION}), "hello")
        line = self._read_line(process, limit, "hello")
        hello = self._parse_hello(line, process)
        if self._hello is not None and hello != self._hello:
            self._fault(process, f"said a different hello after a restart: {hello.describe()} (first {self._hello.describe()})")
        self._hello = hello
        return process

    def restart(self) -> None:
        """Replace the process with a fresh one (a new process, as a client restart is)."""
        self.stop()
        self._ensure_started()

    def stop(self) -> None:
        """Say bye and let the process go (the next request starts a new one)."""
        process, self._process = self._process, None
        if process is not None:
            process.stop(say_bye=True)

    close = stop

    def _fault(self, process: _Process, what: str) -> NoReturn:
        tail = process.tail()
        self.faults += 1
        self._process = None
        process.stop(say_bye=False)
        raise HarnessFault(f"the harness {self.command!r} {what}; {tail}")

    def _send(self, process: _Process, message: Mapping[str, Any], what: str) -> None:
        try:
            process.send(message)
        except OSError:
            code = process.popen.wait()
            self._fault(process, f"{_exit_status(code)} before it read {what}")

    def _read_line(self, process: _Process, limit: float | None, waiting_for: str) -> bytes:
        try:
            line = process.receive(limit)
        except queue.Empty:
            why = STARTUP_RULE if waiting_for == "hello" else "--rmq-timeout per caller"
            self._fault(process, f"did not answer {waiting_for} within {limit:g} s ({why}); it was stopped")
        if line is None:
            code = process.popen.wait()
            self._fault(process, f"{_exit_status(code)} before it answered {waiting_for}")
        return line

    def _parse(self, line: bytes, process: _Process, waiting_for: str) -> dict:
        text = line.decode("utf-8", "replace").rstrip("\r\n")
        try:
            message = json.loads(text)
        except json.JSONDecodeError:
            self._fault(process, f"wrote a line that is not JSON in answer to {waiting_for}: {quote(text)}")
        if not isinstance(message, dict):
            self._fault(process, f"wrote {quote(text)} in answer to {waiting_for}, not a JSON object")
        return message

    def _parse_hello(self, line: bytes, process: _Process) -> Hello:
        message = self._parse(line, process, "hello")
        problem = None
        implementation = message.get("implementation")
        strategies = message.get("strategies")
        if message.get("protocol") != VERSION:
            problem = f"speaks protocol {message.get('protocol')!r}, not {VERSION}"
        elif not isinstance(implementation, dict) or not all(
            isinstance(implementation.get(key), str) for key in ("name", "language", "version")
        ):
            problem = "gave no implementation name, language and version"
        elif not isinstance(strategies, list) or not all(isinstance(s, str) for s in strategies):
            problem = "gave no list of strategies"
        elif not isinstance(message.get("sort"), bool):
            problem = "did not say whether it serves sort (true or false)"
        declared = {key: value for key, value in message.items() if key not in HELLO_FIELDS}
        if problem is None:
            problem = next((found for kind in kinds.all_kinds() if (found := _declared_problem(kind, declared)) is not None), None)
        if problem is not None:
            self._fault(process, f"answered hello with {quote(line.decode('utf-8', 'replace').strip())}: it {problem}")
        assert isinstance(implementation, dict) and isinstance(strategies, list)
        homepage = implementation.get("homepage")
        return Hello(
            implementation["name"],
            implementation["language"],
            implementation["version"],
            homepage if isinstance(homepage, str) else None,
            tuple(strategies),
            message["sort"],
            declared,
        )

    # -- requests ------------------------------------------------------------

    def request(self, fields: Mapping[str, Any], calls: int = 1) -> dict:
        """Send the request ``fields`` (its ``id`` is added) and return the answer to it, checked for its id."""
        with self._lock:
            process = self._ensure_started()
            self._next_id += 1
            request_id = self._next_id
            waiting_for = f"{fields['cmd']} request {request_id}"
            self._send(process, message(f"{fields['cmd']}-request", {**fields, "id": request_id}), waiting_for)
            limit = None if not self.timeout else self.timeout * max(1, calls)
            answer = self._parse(self._read_line(process, limit, waiting_for), process, waiting_for)
            if answer.get("id") != request_id:
                self._fault(process, f"answered {waiting_for} with id {answer.get('id')!r}: {quote(json.dumps(answer))}")
            if "unsupported" in answer:
                raise Unsupported(str(answer["unsupported"]))
            return answer

    def fault_in_flight(self, what: str) -> NoReturn:
        """Give up the process over the answer just read (``what`` is wrong with it): :class:`HarnessFault`."""
        process = self._process
        assert process is not None
        self._fault(process, what)
