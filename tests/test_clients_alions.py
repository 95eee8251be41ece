"""npm ali-ons behind clients/node/ali-ons.js: its hello, and cases the report counts, one that
agrees with Java and one that does not per kind. No network: the ``clients``
marker; ``tox -e clients`` installs the pinned package (``npm ci --prefix clients/node --ignore-scripts``)
and runs them (elsewhere they skip without it, unless ``RMQ_REQUIRE_TOOLS`` is set)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import missing

from pytest_rmq_conformance.model import MessageQueue, java_sorted_queues

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest brings tomli to 3.10
    import tomli as tomllib

pytestmark = pytest.mark.clients

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / "clients" / "node" / "ali-ons.js"
INSTALLED = ROOT / "clients" / "node" / "node_modules" / "ali-ons" / "package.json"
PINNED = tomllib.loads((ROOT / "clients" / "versions.toml").read_text(encoding="utf-8"))["ali-ons"]["pinned"]


@pytest.fixture(scope="module")
def node() -> str:
    found = shutil.which("node")
    if found is None or not INSTALLED.is_file():
        missing("needs node and ali-ons in clients/node/node_modules (npm ci --prefix clients/node --ignore-scripts)")
    if json.loads(INSTALLED.read_text(encoding="utf-8"))["version"] != PINNED:
        missing(f"clients/node/node_modules holds another ali-ons than the pinned {PINNED}")
    return found


def _exchange(node: str, *requests: dict, home: str | None = None) -> list[dict]:
    """The harness's answers to ``hello`` and ``requests``, then ``bye``."""
    lines = [{"cmd": "hello", "protocol": 1}, *requests, {"cmd": "bye"}]
    env = {"PATH": str(Path(node).parent)} | ({"RMQ_CLIENT_HOME": home} if home else {})
    done = subprocess.run(
        [node, str(HARNESS)],
        input="".join(json.dumps(line) + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env=env,
        check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_the_hello_lists_the_families_ali_ons_ships(node):
    (hello,) = _exchange(node)
    assert hello["implementation"]["name"] == "ali-ons"
    assert hello["implementation"]["version"] == PINNED
    assert hello["strategies"] == ["AVG", "FAULT_STRATEGY", "SELECTOR_HASH"]
    assert hello["sort"] is True
    assert hello["latencyFaultTolerance"] is False


def test_the_package_is_read_from_rmq_client_home(node, tmp_path):
    (hello,) = _exchange(node, home=str(ROOT / "clients" / "node"))
    assert hello["implementation"]["version"] == PINNED
    with pytest.raises(subprocess.CalledProcessError) as failed:
        _exchange(node, home=str(tmp_path))  # no ali-ons there
    assert "Cannot find module 'ali-ons'" in failed.value.stderr


def test_the_rebalance_sort_differs_from_java_only_where_queue_ids_overflow(node):
    plain = [["T", "broker-b", 0], ["T", "broker-a", 2], ["T", "broker-a", 1]]
    overflowing = [["T", "broker-a", 2147483647], ["T", "broker-a", -2147483648], ["T", "broker-a", 0]]
    _, agreeing, differing = _exchange(
        node,
        {"cmd": "sort", "id": 1, "mqAll": plain, "cidAll": ["b@1", "a@1", "\u00e9@1", "\U0001f600@1", "\uff5e@1"]},
        {"cmd": "sort", "id": 2, "mqAll": overflowing, "cidAll": None},
    )

    def java(queues):
        return [
            [mq.topic, mq.broker_name, mq.queue_id] for mq in java_sorted_queues([MessageQueue(*q) for q in queues])
        ]

    assert agreeing["mqAll"] == java(plain)
    assert agreeing["cidAll"] == ["a@1", "b@1", "\u00e9@1", "\U0001f600@1", "\uff5e@1"]  # UTF-16 order, as Java's
    assert differing["cidAll"] is None
    assert differing["mqAll"] == [["T", "broker-a", -2147483648], ["T", "broker-a", 0], ["T", "broker-a", 2147483647]]
    assert differing["mqAll"] != java(overflowing)  # Java's int subtraction overflows there


@pytest.mark.parametrize(
    "case, impact",
    [
        pytest.param("pub-AVG-0002-published-example", None, id="AVG-agrees"),
        pytest.param("pub-FAULT_STRATEGY-0065-random-trace", None, id="FAULT_STRATEGY-agrees"),
        # a route the name server lists out of broker order: the client's own getTopicRouteInfoFromNameServer
        # sorts it, as Java sorts its queue datas
        pytest.param("pub-FAULT_STRATEGY-0022-round-robin", None, id="FAULT_STRATEGY-unsorted-route-agrees"),
        # null where Java falls back to the plain round robin
        pytest.param("pub-FAULT_STRATEGY-0009-spec-example", "1 wrong queues", id="FAULT_STRATEGY-null"),
        # one counter step per call, where 4.9.8 steps once per probe
        pytest.param("pub-FAULT_STRATEGY-0001-spec-example", "1 counter drift", id="FAULT_STRATEGY-counter"),
        pytest.param("pub-SELECTOR_HASH-0002-string", "1 wrong queues", id="SELECTOR_HASH-md5"),
    ],
)
def test_a_golden_case(pytester, node, case, impact):
    spec = f"exec:{node} {HARNESS}"
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--rmq-checks=golden",
        f"--rmq-strategy={spec}",
        "--rmq-reference-version=4.9.8",
        "--rmq-timeout=60",  # a loaded machine is no divergence
        f"--rmq-case={case}",
    )
    outcomes = result.parseoutcomes()
    wanted = "passed" if impact is None else "failed"
    assert outcomes.get(wanted) == 1 and outcomes.get("passed", 0) + outcomes.get("failed", 0) == 1, result.stdout.str()
    if impact is not None:
        result.stdout.fnmatch_lines([f"by impact: {impact}"])
