"""The README's protocol documentation says what the schemas say: its example exchange is valid,
message by message, against ``schemas/protocol-*.schema.json``, and covers every message."""

import json
import re
import subprocess
import sys

import pytest
from docs_pages import README, documentation

from pytest_rmq_conformance.engine.kinds import ports
from pytest_rmq_conformance.engine.protocol.client import STARTUP_SECONDS
from pytest_rmq_conformance.engine.resources import schema_validator


def exchange() -> list[tuple[str, dict]]:
    """The README's example exchange: ``(">" or "<", message)`` per line."""
    text = documentation()
    block = re.search(r"One exchange, as the suite's tests check it.*?```text\n(.*?)```", text, re.DOTALL)
    assert block is not None, "the README lost its example exchange"
    return [(line[0], json.loads(line[2:])) for line in block.group(1).splitlines() if line.strip()]


def schema_of(direction: str, message: dict, asked: dict | None) -> str:
    if direction == ">":
        return "protocol-bye" if message["cmd"] == "bye" else f"protocol-{message['cmd']}-request"
    assert asked is not None, "an answer before any request"
    return f"protocol-{asked['cmd']}-response"


def test_the_readme_exchange_is_valid_against_the_schemas():
    asked, used = None, set()
    for direction, message in exchange():
        name = schema_of(direction, message, asked)
        errors = [error.message for error in schema_validator(name).iter_errors(message)]
        assert errors == [], f"{name}: {message}: {errors}"
        if direction == ">":
            asked = message
        elif "id" in message:
            assert message["id"] == asked["id"], message
        used.add(name)
    shipped = {path.name.removesuffix(".schema.json") for path in (README.parent / "schemas").glob("protocol-*.schema.json")}
    assert used == shipped


@pytest.mark.parametrize(
    "direction, message, asked",
    [
        (">", {"cmd": "allocate", "id": 1, "strategy": "AVG", "params": {}, "release": "5.3.3", "consumerGroup": "g",
               "mqAll": [["T", "b", 0]], "cidAll": ["c"]}, None),  # no callers
        ("<", {"id": 1, "answers": [{"queues": [["T", "b", "0"]]}]}, {"cmd": "allocate", "id": 1}),  # a queue id as text
        ("<", {"protocol": 1, "implementation": {"name": "x", "language": "Go"}, "strategies": [], "sort": True},
         {"cmd": "hello"}),  # no version
    ],
)
def test_the_check_fails_for_a_message_the_schemas_refuse(direction, message, asked):
    """The examples' check is able to fail: messages a reader could get wrong are refused."""
    assert list(schema_validator(schema_of(direction, message, asked)).iter_errors(message))


def test_the_nullable_fields_and_time_limits_are_documented_as_the_code_has_them():
    text = documentation()
    request = json.loads((README.parent / "schemas" / "protocol-allocate-request.schema.json").read_text())
    nullable = [
        name for name, field in request["properties"].items()
        if "null" in json.dumps(field.get("type", "")) or any(option.get("type") == "null" for option in field.get("oneOf", ()))
    ]
    assert sorted(nullable) == ["cidAll", "consumerGroup", "mqAll"]
    documented = re.search(r"Fields that may be `null`.*?\n\n", text, re.DOTALL).group(0)
    assert all(f"`{name}`" in documented for name in nullable) and "`callers`" in documented
    assert f"{STARTUP_SECONDS:g} s, or\n  twice `--rmq-timeout`" in text
    assert "Flush after every answer" in text


def _row(text: str, command: str) -> str:
    """The protocol table's row of ``command``."""
    found = re.search(rf"^\| `{command}`: .*$", text, re.MULTILINE)
    assert found is not None, f"the README's protocol table lost its {command} row"
    return found.group(0)


def test_the_table_names_every_field_of_the_hello_answer_and_every_kind_of_select_answer():
    text = documentation()
    schemas = README.parent / "schemas"
    hello = json.loads((schemas / "protocol-hello-response.schema.json").read_text())
    assert [name for name in hello["properties"] if f'"{name}"' not in _row(text, "hello")] == []
    select = json.loads((schemas / "protocol-select-response.schema.json").read_text())
    variants = select["oneOf"][0]["properties"]["answers"]["items"]["oneOf"]
    keys = [variant["required"][0] for variant in variants]
    assert "notRun" in keys and [key for key in keys if f'"{key}"' not in _row(text, "select")] == []


def _quoted(row: str) -> set[str]:
    return set(re.findall(r'"(\w+)"', row))


def test_the_table_has_a_row_per_request_naming_its_fields_and_its_answers():
    """Every request of the protocol has its row; the row names every field of the request and
    every top-level field of its answer, as the schemas have them."""
    text = documentation()
    schemas = README.parent / "schemas"
    missing = []
    for path in sorted(schemas.glob("protocol-*-request.schema.json")):
        request = json.loads(path.read_text())
        command = request["properties"]["cmd"]["const"]
        row = _row(text, command)
        answer = json.loads((schemas / f"protocol-{command}-response.schema.json").read_text())
        fields = set(request["properties"]) | set(answer.get("properties", ()))
        missing += [f"{command}: {name}" for name in sorted(fields - _quoted(row))]
    assert missing == []


def test_the_table_check_is_able_to_fail():
    row = '| `group`: `{"cmd", "id", "strategy": "GROUP_HASH", "groups"}` | `{"id", "answers": [...]}` |'
    assert {"cmd", "id", "strategy", "groups", "queues"} - _quoted(row) == {"queues"}


def test_the_page_says_what_the_built_in_harness_serves():
    """With no spec, the built-in harness serves every family's reference port, as its hello says
    (no count on the page to go stale), and it answers --help."""
    hello = subprocess.run(
        [sys.executable, "-m", "pytest_rmq_conformance.harness"], input='{"cmd": "hello", "protocol": 1}\n{"cmd": "bye"}\n',
        capture_output=True, text=True, check=True,
    )
    assert sorted(json.loads(hello.stdout)["strategies"]) == sorted(ports())
    text = documentation()
    said = re.search(r"`python -m pytest_rmq_conformance.harness \[SPEC \.\.\.\]` serves.*?\n\n", text, re.DOTALL).group(0)
    assert "the reference port of every\nfamily" in said and not re.search(r"\b(six|seven|nine|twelve)\b", said)
    helped = subprocess.run([sys.executable, "-m", "pytest_rmq_conformance.harness", "--help"], capture_output=True, text=True)
    assert helped.returncode == 0 and helped.stdout.startswith("usage: python -m pytest_rmq_conformance.harness"), helped
    assert "no such strategy" not in helped.stdout + helped.stderr
