"""The suite's side of the harness protocol: answers read, and every way a harness can fail named."""

import json
import sys

import pytest

from pytest_rmq_conformance.engine.protocol.client import (
    Harness,
    HarnessError,
    HarnessFault,
    HarnessGaveUp,
    Unsupported,
)
from pytest_rmq_conformance.engine.resources import schema_validator
from pytest_rmq_conformance.kinds.allocation.protocol import allocate
from pytest_rmq_conformance.model import MessageQueue

MQ = [MessageQueue("t", "b", i) for i in range(3)]

#: a fake harness: answers hello, then does what MODE says to the first allocate request
FAKE = r'''
import json, os, sys, time
mode = sys.argv[1]
hello = {"protocol": 1, "implementation": {"name": "fake", "language": "Python", "version": "1"},
         "strategies": ["AVG"], "sort": False}
starts = os.path.join(os.getcwd(), "starts")
with open(starts, "a") as log:
    log.write("x")
for line in sys.stdin:
    request = json.loads(line)
    if request["cmd"] == "hello":
        if mode == "no-hello":
            sys.exit(0)
        if mode == "slow-hello":
            time.sleep(60)
        print(json.dumps(hello), flush=True)
        continue
    if request["cmd"] == "bye":
        break
    rid = request["id"]
    first_time = os.path.getsize(starts) == 1
    if mode == "crash" and first_time:
        print("about to fall over", file=sys.stderr, flush=True)
        os._exit(3)
    if mode == "segv" and first_time:
        import signal
        os.kill(os.getpid(), signal.SIGSEGV)
    if mode == "garbage":
        print("Exception in thread main: java.lang.NullPointerException " + "x" * 500, flush=True)
        continue
    if mode == "wrong-id":
        print(json.dumps({"id": rid + 7, "answers": [{"null": True}]}), flush=True)
        continue
    if mode == "hang":
        time.sleep(60)
    if mode == "bad-queue":
        print(json.dumps({"id": rid, "answers": [{"queues": [["t", "b"]]}] * len(request["callers"])}), flush=True)
        continue
    if mode == "unsupported":
        print(json.dumps({"id": rid, "unsupported": "no such thing here"}), flush=True)
        continue
    answers = [{"queues": [["t", "b", 0]]}, {"null": True}, {"error": "illegal-argument", "message": "currentCID is empty"},
               {"error": "other", "message": "NullPointerException"}]
    print(json.dumps({"id": rid, "answers": answers[: len(request["callers"])]}), flush=True)
'''


@pytest.fixture
def fake(tmp_path):
    """Start a fake harness in ``mode``; each one started is stopped after the test (a test that
    does not stop its own leaves no process to the worker's later tests)."""
    script = tmp_path / "fake.py"
    script.write_text(FAKE)
    started = []

    def harness(mode, **options):
        options.setdefault("timeout", 1.0)
        started.append(Harness(f"{sys.executable} {script} {mode}", cwd=tmp_path, **options))
        return started[-1]

    yield harness
    for each in started:
        each.stop()


def ask(harness, callers=("c1", "c2", "", "c3")):
    return allocate(harness, "AVG", {}, "5.3.3", "g", MQ, ["c1", "c2", "c3"], list(callers))


def test_answers_become_queues_null_and_exceptions(fake):
    harness = fake("ok")
    assert harness.hello().describe() == "fake 1 (Python)"
    queues, null, illegal, other = ask(harness)
    assert queues.queues == (MessageQueue("t", "b", 0),)
    assert null.returned_none
    assert isinstance(illegal.exception, ValueError) and str(illegal.exception) == "currentCID is empty"
    assert isinstance(other.exception, HarnessError)
    harness.stop()


def test_unsupported_is_its_own_outcome(fake):
    with pytest.raises(Unsupported, match="no such thing here"):
        ask(fake("unsupported"))


@pytest.mark.parametrize(
    "mode, says",
    [
        ("crash", r"exited with status 3 before it answered allocate request 1; its stderr ended with:\n    \| about to fall over"),
        ("segv", "was killed by signal SIGSEGV before it answered allocate request 1"),
        ("garbage", r"wrote a line that is not JSON in answer to allocate request 1: 'Exception in thread main: java.lang.NullPointerException x+\.\.\.'"),
        ("wrong-id", "answered allocate request 1 with id 8"),
        ("hang", r"did not answer allocate request 1 within 4 s \(--rmq-timeout per caller\); it was stopped"),
        ("bad-queue", r"gave answer 0 queues with '\[\"t\", \"b\"\]', not \[topic, brokerName, queueId\]"),
    ],
)
def test_each_fault_fails_the_request_in_flight_naming_it_and_a_new_process_serves_the_next(fake, mode, says):
    harness = fake(mode)
    with pytest.raises(HarnessFault, match=says):
        ask(harness)
    if mode in ("crash", "segv"):  # only the first process falls over
        assert ask(harness)[0].queues == (MessageQueue("t", "b", 0),)
        assert harness.restarts == 1
    harness.stop()


def test_a_harness_that_never_says_hello_fails_clearly(fake):
    with pytest.raises(HarnessFault, match="exited with status 0 before it answered hello"):
        fake("no-hello").hello()
    with pytest.raises(HarnessFault, match="cannot start"):
        Harness("/nonexistent/harness --flag").hello()


def test_restarts_are_bounded_then_the_harness_is_given_up(fake, tmp_path):
    harness = fake("garbage", max_restarts=2)
    for _ in range(3):
        with pytest.raises(HarnessFault, match="not JSON"):
            ask(harness)
    with pytest.raises(HarnessGaveUp, match="restarted 2 times"):
        ask(harness)
    with pytest.raises(HarnessGaveUp, match="given up"):
        ask(harness)
    assert (tmp_path / "starts").read_text() == "xxx"


def test_the_python_harness_speaks_the_schemas():
    """Every message of a conversation with the built-in harness validates against its schema."""
    requests = [
        {"cmd": "hello", "protocol": 1},
        {"cmd": "allocate", "id": 1, "strategy": "AVG", "params": {}, "release": "5.3.3", "consumerGroup": "g",
         "mqAll": [["t", "b", 0], ["t", "\U0001f600", 1]], "cidAll": ["c1", "c2"], "callers": ["c1", "", None]},
        {"cmd": "allocate", "id": 2, "strategy": "NOPE", "params": {}, "release": "5.3.3", "consumerGroup": None,
         "mqAll": None, "cidAll": None, "callers": ["c1"]},
        {"cmd": "sort", "id": 3, "mqAll": [["t", "b", 2], ["t", "b", 1]], "cidAll": None},
        {"cmd": "bye"},
    ]
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "pytest_rmq_conformance.harness"],
        input="".join(json.dumps(r) + "\n" for r in requests), capture_output=True, text=True, timeout=60, check=True,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = ["hello", "allocate", "allocate", "sort"]
    assert len(answers) == len(kinds)
    for request in requests:
        name = "protocol-bye" if request["cmd"] == "bye" else f"protocol-{request['cmd']}-request"
        assert list(schema_validator(name).iter_errors(request)) == []
    for kind, answer in zip(kinds, answers):
        assert list(schema_validator(f"protocol-{kind}-response").iter_errors(answer)) == [], answer
    assert answers[1]["answers"][1] == {"error": "illegal-argument", "message": "currentCID is empty"}
    assert "unsupported" in answers[2]
    assert answers[3]["mqAll"] == [["t", "b", 1], ["t", "b", 2]] and answers[3]["cidAll"] is None
