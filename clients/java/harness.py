"""The real Java client of RocketMQ 5 (Maven Central ``org.apache.rocketmq:rocketmq-client-java``)
behind the suite's exec protocol: the control row of the real clients' report. Its
``PublishingLoadBalancer`` and ``SubscriptionLoadBalancer`` are the reference of the gRPC kind
(``golden/grpc/`` was recorded from them), so every golden case must pass: a failure here is the
protocol's, the harness plumbing's or the golden data's, never the client's. Run it as

    pytest --rmq-strategy="exec:python clients/java/harness.py"

Nothing of the balancers is asked here: the project's own recorder
(``pytest_rmq_conformance/record/java/GrpcHarness.java``, the one ``rmq-conformance golden
record`` runs) asks them, in one JVM for the whole session, and this file only translates:

- the version (``PINNED``, or ``RMQ_CLIENT_VERSION`` to try another) is resolved by Maven
  (``record.maven.resolve``: the jars stay in ``~/.m2``, outside the clone);
- the recorder's sources are compiled once per version, sources and jars, into
  ``$XDG_CACHE_HOME`` (or ``~/.cache``) ``/rmq-conformance/java/<version>/<key>/``, ``key`` the
  SHA-256 of the sources and of the jars (``record.jvm.compile_sources``);
- a ``group`` request becomes one GROUP_HASH scenario per group (``group``, ``queues``), and each
  record's ``expect`` its answer (``index``, ``sipHash24``); a ``balance`` request becomes one
  scenario (``route``, ``index``, ``steps`` as they came), and its record's ``expect`` the answer
  (``filtered``, ``steps`` as ``outcomes``, ``indexAfter``; or the constructor's error), a record
  ``unsupported`` the answer ``unsupported``;
- a Java exception (``{"error": "<class>", "message"}`` in a record) is ``illegal-argument`` when
  its class is ``java.lang.IllegalArgumentException``, else ``other`` with ``<class>: <message>``.

Any other request is answered ``unsupported``. A JVM that dies is said on stderr, with its last
lines, and this process exits 2 (the suite reports the harness dead and starts it again); so does
a version Maven does not resolve, in one line, before the hello.
"""

from __future__ import annotations

import collections
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO, Any

from pytest_rmq_conformance.record.grpc import ARTIFACT, MAIN, SOURCES
from pytest_rmq_conformance.record.jvm import SOURCES as SOURCE_DIR
from pytest_rmq_conformance.record.jvm import compile_sources, tool
from pytest_rmq_conformance.record.maven import Jars, RecordError, resolve

#: the version the report judges (clients/versions.toml says the same): the newest Maven Central serves
PINNED = "5.2.0"
NAME = "rocketmq-client-java"
HOMEPAGE = "https://github.com/apache/rocketmq-clients"
FAMILIES = ("GROUP_HASH", "PUBLISH_ROUND_ROBIN", "SUBSCRIBE_ROUND_ROBIN")
BALANCERS = FAMILIES[1:]
#: the JVM options the recorder ran with (record.grpc.record)
JVM_OPTIONS = ("-Dfile.encoding=UTF-8",)
#: what a protocol error stands for, by the Java class a record names
ILLEGAL_ARGUMENT = "java.lang.IllegalArgumentException"
TAIL = 20  # lines of the JVM's stderr kept for the note of its death
WHO = "clients/java/harness.py"


class Dead(Exception):
    """The JVM stopped, or wrote what is not the record asked for."""


class Unreadable(Exception):
    """A request line that is not JSON: no id to answer it by."""


def cache_root() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rmq-conformance" / "java"


def classes_for(version: str, jars: Jars) -> Path:
    """The recorder's classes compiled against ``jars``, from the cache when it holds them: a
    folder per version and key (the sources' and the jars' SHA-256), made whole or not at all."""
    digest = hashlib.sha256()
    for name in SOURCES:
        digest.update(f"{name}.java\0".encode())
        digest.update((SOURCE_DIR / f"{name}.java").read_bytes())
    for jar, sha in sorted(jars.sha256.items()):
        digest.update(f"\0{jar}\0{sha}".encode())
    folder = cache_root() / version
    final = folder / digest.hexdigest()[:16]
    if (final / f"{MAIN}.class").is_file():
        return final
    folder.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".compiling-", dir=folder))
    try:
        compile_sources(SOURCES, jars.classpath, scratch, jars.coordinates)
        try:
            scratch.rename(final)
        except OSError:  # another harness compiled the same classes first: keep its folder
            if not (final / f"{MAIN}.class").is_file():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return final


class Jvm:
    """GrpcHarness in one JVM: a scenario line in, its record line out, in order."""

    def __init__(self, java: str, version: str, classpath: list[str], logs: str):
        self.version = version
        self.tail: collections.deque[str] = collections.deque(maxlen=TAIL)
        self.process = subprocess.Popen(
            [java, f"-Drocketmq.client.logRoot={logs}", f"-Drocketmq.log.root={logs}", *JVM_OPTIONS,
             "-cp", os.pathsep.join(classpath), MAIN, version],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, encoding="ascii", errors="backslashreplace", bufsize=1,
        )
        self.reader = threading.Thread(target=self._stderr, daemon=True)
        self.reader.start()
        self.asked = 0

    def _stderr(self) -> None:
        """The JVM's stderr, passed on line by line (the suite shows the last lines on a fault), its end kept."""
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.tail.append(line.rstrip("\n"))
            sys.stderr.write(line)
            sys.stderr.flush()

    def record(self, scenario: dict[str, Any]) -> dict[str, Any]:
        """The recorder's record of ``scenario``."""
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write(json.dumps(scenario, ensure_ascii=True) + "\n")
            self.process.stdin.flush()
        except OSError:  # a broken pipe: it is gone
            raise Dead("stopped before it was asked") from None
        line = self.process.stdout.readline()
        if not line:
            raise Dead("stopped without answering")
        try:
            record = json.loads(line)
        except ValueError:
            raise Dead(f"wrote a line that is not JSON: {line[:200]!r}") from None
        if not isinstance(record, dict) or record.get("id") != scenario["id"]:
            raise Dead(f"answered another scenario than {scenario['id']}: {line[:200]!r}")
        return record

    def close(self, wait: float = 1.5) -> None:
        """End of stdin: the recorder's loop ends and the JVM exits; killed if it does not."""
        try:
            if self.process.stdin is not None:
                self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(wait)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def death(self, why: str) -> str:
        """What to say of a JVM that stopped: its exit status and the last lines it wrote."""
        try:
            status = self.process.wait(2)
        except subprocess.TimeoutExpired:
            self.process.kill()
            status = self.process.wait()
        self.reader.join(2)
        said = f"exit status {status}" if status >= 0 else f"signal {-status}"
        lines = "\n".join(f"  {line}" for line in self.tail) or "  (nothing on its stderr)"
        return f"{WHO}: the JVM ({MAIN}, {NAME} {self.version}) {why} ({said}); its last lines:\n{lines}"


def _error(record: dict[str, Any]) -> dict[str, str]:
    """A Java exception as the protocol says it."""
    thrown, message = record["error"], record.get("message")
    if thrown == ILLEGAL_ARGUMENT:
        return {"error": "illegal-argument", "message": "" if message is None else message}
    return {"error": "other", "message": thrown if message is None else f"{thrown}: {message}"}


def group(jvm: Jvm, request: dict[str, Any]) -> dict[str, Any]:
    """One GROUP_HASH scenario per group; each record's queue and hash."""
    answers = []
    for n, name in enumerate(request["groups"]):
        record = jvm.record({"id": f"exec-{request['id']}-{n}", "family": "GROUP_HASH", "tags": ["exec"],
                             "group": name, "queues": request["queues"]})
        expect = record["expect"]
        answers.append(_error(expect) if "error" in expect else {"index": expect["index"], "sipHash24": expect["sipHash24"]})
    return {"answers": answers}


def balance(jvm: Jvm, request: dict[str, Any]) -> dict[str, Any]:
    """One scenario of the request's route, index and steps; its record's answers."""
    record = jvm.record({"id": f"exec-{request['id']}", "family": request["strategy"], "tags": ["exec"],
                         "route": request["route"], "index": request["index"], "steps": request["steps"]})
    if "unsupported" in record:
        return {"unsupported": record["unsupported"]}
    expect = record["expect"]
    if "error" in expect:
        return _error(expect)
    return {"filtered": expect["filtered"], "outcomes": [_error(step) if "error" in step else step for step in expect["steps"]],
            "indexAfter": expect["indexAfter"]}


def answer(jvm: Jvm, version: str, request: dict[str, Any]) -> dict[str, Any]:
    command = request.get("cmd")
    if command == "hello":
        return {"protocol": 1, "implementation": {"name": NAME, "language": "Java", "version": version, "homepage": HOMEPAGE},
                "strategies": list(FAMILIES), "sort": False}
    if command == "group" and request.get("strategy") == "GROUP_HASH":
        return {"id": request["id"], **group(jvm, request)}
    if command == "balance" and request.get("strategy") in BALANCERS:
        return {"id": request["id"], **balance(jvm, request)}
    if command in ("group", "balance"):
        return {"id": request.get("id"), "unsupported": f"{request.get('strategy')} is not a family of {NAME}'s balancers"}
    return {"id": request.get("id"), "unsupported": f"{command} is not a request of the gRPC balancers"}


def serve(jvm: Jvm, version: str, requests: IO[str], out: IO[str]) -> None:
    """The protocol loop: one answer a line, flushed, until bye or the end of stdin."""
    for line in requests:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError:
            raise Unreadable(f"{WHO}: a request that is not JSON: {line[:200]!r}") from None
        if request.get("cmd") == "bye":
            return
        out.write(json.dumps(answer(jvm, version, request), ensure_ascii=True) + "\n")
        out.flush()


def main() -> int:
    version = os.environ.get("RMQ_CLIENT_VERSION") or PINNED
    try:
        java = tool("java")
        jars = resolve(f"{ARTIFACT}:{version}")
        classes = classes_for(version, jars)
    except RecordError as exc:
        print(f"{WHO}: {exc}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="rmq-java-logs-") as logs:  # the client's log files, not ~/logs
        jvm = Jvm(java, version, [str(classes), *jars.classpath], logs)
        try:
            serve(jvm, version, sys.stdin, sys.stdout)
        except Dead as exc:
            print(jvm.death(str(exc)), file=sys.stderr)
            return 2
        except Unreadable as exc:
            print(exc, file=sys.stderr)
            return 2
        finally:
            jvm.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
