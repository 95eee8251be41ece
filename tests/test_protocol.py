"""The harness protocol, declared once (schemas/protocol-*.schema.json, read by engine.protocol):
both sides build their messages through it, and every message of a real run, both ways,
conforms to it."""

import json
import sys
from collections import Counter

import pytest

from pytest_rmq_conformance.engine.protocol.messages import declared, message, problems

#: stands between the suite and the built-in harness, checking every line both ways
SPY = r'''
import json, subprocess, sys
from pytest_rmq_conformance.engine.protocol.messages import problems

log = open(sys.argv[1], "a", encoding="utf-8")
server = subprocess.Popen([sys.executable, "-m", "pytest_rmq_conformance.harness"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def record(name, line):
    log.write(json.dumps({"message": name, "problems": problems(name, json.loads(line))}) + "\n")
    log.flush()


while True:
    line = sys.stdin.buffer.readline()
    if not line:
        break
    command = json.loads(line)["cmd"]
    record("bye" if command == "bye" else f"{command}-request", line)
    server.stdin.write(line)
    server.stdin.flush()
    if command == "bye":
        break
    answer = server.stdout.readline()
    record(f"{command}-response", answer)
    sys.stdout.buffer.write(answer)
    sys.stdout.buffer.flush()
server.wait(timeout=10)
'''


def test_every_message_is_declared_with_its_fields():
    assert set(declared()) == {
        "hello-request", "hello-response", "allocate-request", "allocate-response", "sort-request", "sort-response", "bye",
        "trace-request", "trace-response", "select-request", "select-response",
        "group-request", "group-response", "balance-request", "balance-response",
    }
    assert declared()["allocate-request"].required >= {"cmd", "id", "strategy", "mqAll", "cidAll", "callers"}


@pytest.mark.parametrize(
    "name, fields, says",
    [
        ("sort-request", {"cmd": "sort", "id": 1, "mqAll": None}, "sort-request: cidAll is required"),
        ("bye", {"cmd": "bye", "reason": "done"}, "bye: reason is not a field of it"),
    ],
)
def test_a_message_missing_a_field_or_with_one_too_many_is_refused(name, fields, says):
    with pytest.raises(ValueError, match=f"^{says} \\(declared in schemas/protocol-{name}.schema.json\\)$"):
        message(name, fields)


def test_a_value_the_schema_refuses_is_named():
    assert problems("hello-request", {"cmd": "hello", "protocol": 2}) == ["at protocol: 1 was expected"]


def test_every_message_of_a_real_run_conforms_both_ways(pytester, tmp_path):
    """The suite's client and the built-in harness, through the golden, sort and reference checks
    (the first 30 golden cases of each family: every kind of message, in a tenth of the time)."""
    pytester.makepyfile(spy=SPY)
    log = tmp_path / "messages.jsonl"
    spec = f"--rmq-strategy=exec:{sys.executable} spy.py {log}"
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", spec, "--rmq-reference-version=5.3.3", "--rmq-checks=golden,sort,reference",
        "--rmq-seed=1", "--rmq-examples=1", "--rmq-case=pub-*-00[0-2]?-*",
    )
    assert result.ret == 0, result.stdout.str()[-3000:]
    seen = [json.loads(line) for line in log.read_text().splitlines()]
    assert [entry for entry in seen if entry["problems"]] == []
    counts = Counter(entry["message"] for entry in seen)
    assert set(counts) == set(declared()), counts
    assert counts["allocate-request"] == counts["allocate-response"] > 100
