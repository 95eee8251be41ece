"""The two 4.x remoting clients of npm (ali-ons, rocketmq) behind clients/node/ali-ons.js and
clients/node/rocketmq.js: a route enters each as production's does (the name server's answer,
through the package's own getTopicRouteInfoFromNameServer), and both line their counter up with
Java's by the one rule of clients/node/counter.js. No network: the ``clients``
marker; ``tox -e clients`` installs the pinned packages (``npm ci --prefix clients/node --ignore-scripts``)
and runs them (elsewhere they skip without them, unless ``RMQ_REQUIRE_TOOLS`` is set)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import missing

pytestmark = pytest.mark.clients

ROOT = Path(__file__).resolve().parent.parent
NODE_DIR = ROOT / "clients" / "node"
MODULES = NODE_DIR / "node_modules"
HARNESSES = {"ali-ons": "ali-ons.js", "rocketmq": "rocketmq.js"}


@pytest.fixture(scope="module")
def node() -> str:
    found = shutil.which("node")
    if found is None or not all((MODULES / name / "package.json").is_file() for name in HARNESSES):
        missing("needs node and ali-ons, rocketmq in clients/node/node_modules (npm ci --prefix clients/node)")
    return found


def _exchange(node: str, harness: str, *requests: dict, home: Path | None = None) -> list[dict]:
    """The harness's answers to ``requests`` (the hello's dropped), then ``bye``."""
    lines = [{"cmd": "hello", "protocol": 1}, *requests, {"cmd": "bye"}]
    env = {"PATH": os.environ.get("PATH", "")} | ({"RMQ_CLIENT_HOME": str(home)} if home else {})
    done = subprocess.run(
        [node, str(NODE_DIR / harness)],
        input="".join(json.dumps(line) + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env=env,
        check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines()][1:]


#: a route whose queue datas and broker datas the name server lists out of broker-name order
#: ('\U0001f600' before '\uff5e' in UTF-16 units, as Java's compareTo orders them; not by code point)
UNSORTED = {
    "queueDatas": [["broker-c", 1, 6], ["\U0001f600", 1, 6], ["broker-a", 2, 6], ["\uff5e", 1, 6], ["broker-b", 1, 6]],
    "brokerDatas": [["broker-c", [0]], ["\U0001f600", [0]], ["broker-a", [0, 1]], ["\uff5e", [0]], ["broker-b", [0]]],
    "orderTopicConf": None,
}
JAVA_ORDER = [["broker-a", 0], ["broker-a", 1], ["broker-b", 0], ["broker-c", 0], ["\U0001f600", 0], ["\uff5e", 0]]


def _trace(route: dict, *, send_index: int | None = 0, seed: int = 1, steps: list | None = None) -> dict:
    return {
        "cmd": "trace",
        "id": 1,
        "strategy": "FAULT_STRATEGY",
        "params": {"sendLatencyFaultEnable": False, "latencyMax": None, "notAvailableDuration": None},
        "release": "4.9.8",
        "topic": "TopicTest",
        "route": route,
        "initial": {"clockMs": 0, "sendIndex": send_index, "sendIndexSeed": seed, "worstIndex": 0, "worstIndexSeed": 1},
        "steps": steps if steps is not None else [{"op": "select", "lastBroker": None, "resetIndex": False}],
    }


@pytest.mark.examples
@pytest.mark.parametrize("client", HARNESSES)
def test_an_unsorted_name_server_answer_is_sorted_by_the_package_as_in_production(node, client):
    (answer,) = _exchange(node, HARNESSES[client], _trace(UNSORTED))
    assert answer["publishList"] == JAVA_ORDER
    route_step = {"op": "route", "route": UNSORTED}
    (stepped,) = _exchange(node, HARNESSES[client], _trace(JAVA_ORDER_ROUTE, steps=[route_step]))
    assert stepped["outcomes"][0] == {"publishList": JAVA_ORDER}


JAVA_ORDER_ROUTE = {"queueDatas": [["broker-a", 1, 6]], "brokerDatas": [["broker-a", [0]]], "orderTopicConf": None}


def _copy_with_reversed_sort(client: str, home: Path) -> Path:
    """A folder whose node_modules holds a copy of ``client`` whose client API sorts the route by
    broker name backwards, and the pinned install's other packages (linked)."""
    modules = home / "node_modules"
    modules.mkdir(parents=True)
    for entry in MODULES.iterdir():
        if entry.name != client and not entry.name.startswith("."):
            (modules / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    shutil.copytree(MODULES / client, modules / client)
    api = modules / client / "lib" / "mq_client_api.js"
    text = api.read_text(encoding="utf-8")
    compare = re.search(r"function compare\(routerA, routerB\) \{.*?\n\}", text, flags=re.S)
    assert compare is not None, f"{api}: no compare function to reverse"
    reversed_compare = "function compare(routerA, routerB) {\n  return routerB.brokerName < routerA.brokerName ? -1 : 1;\n}"
    api.write_text(text.replace(compare[0], reversed_compare), encoding="utf-8")
    return home


@pytest.mark.examples
@pytest.mark.parametrize("client", HARNESSES)
def test_the_route_order_is_the_packages_own_sort(node, client, tmp_path):
    """The harness sorts nothing itself: a package whose client API sorts backwards gives a
    backwards publish list."""
    home = _copy_with_reversed_sort(client, tmp_path / "home")
    (answer,) = _exchange(node, HARNESSES[client], _trace(UNSORTED), home=home)
    brokers = [broker for broker, _ in answer["publishList"]]
    assert brokers == sorted(brokers, key=lambda name: name.encode("utf-16-be"), reverse=True)


def _java_first_start(seed: int) -> int:
    """Where Java 4.x's unset counter starts: Math.abs of the first nextInt() of java.util.Random(seed)."""
    state = (seed ^ 0x5DEECE66D) & ((1 << 48) - 1)
    state = (state * 0x5DEECE66D + 0xB) & ((1 << 48) - 1)
    first = (state >> 16) & 0xFFFFFFFF
    first = first - (1 << 32) if first >= 1 << 31 else first
    return abs(first)


ROUTE = {
    "queueDatas": [["broker-a", 3, 6], ["broker-b", 4, 6]],
    "brokerDatas": [["broker-a", [0]], ["broker-b", [0]]],
    "orderTopicConf": None,
}


@pytest.mark.examples
@pytest.mark.parametrize("seed", [1, 7, 123456789])
def test_both_harnesses_start_an_unset_counter_where_java_does(node, seed):
    """Java steps its stored counter, then reads it; both packages read ``sendWhichQueue++``. An
    unset counter starts at Java's draw in both, not at the package's own start (0, Math.random())."""
    start = _java_first_start(seed)
    steps = [{"op": "select", "lastBroker": None, "resetIndex": False}] * 3
    answers = {
        client: _exchange(node, harness, _trace(ROUTE, send_index=None, seed=seed, steps=steps))[0]
        for client, harness in HARNESSES.items()
    }
    for client, answer in answers.items():
        publish = answer["publishList"]
        for step, outcome in enumerate(answer["outcomes"], 1):
            java_index = start + step  # Java's incrementAndGet
            assert outcome["storedIndexAfter"] == java_index, client
            assert outcome["listIndex"] == java_index % len(publish), client
    assert answers["ali-ons"] == answers["rocketmq"]


@pytest.mark.examples
def test_a_pinned_counter_and_set_index_follow_the_one_rule_in_both(node):
    steps = [
        {"op": "select", "lastBroker": None, "resetIndex": False},
        {"op": "set_index", "value": 40},
        {"op": "select", "lastBroker": "broker-b", "resetIndex": False},
    ]
    answers = [_exchange(node, harness, _trace(ROUTE, send_index=10, steps=steps))[0] for harness in HARNESSES.values()]
    assert answers[0] == answers[1]
    first, _, third = answers[0]["outcomes"]
    assert (first["storedIndexAfter"], first["listIndex"]) == (11, 11 % 7)
    assert third["storedIndexAfter"] == 41 and third["queue"][0] == "broker-a"


COUNTER = NODE_DIR / "counter.js"


def test_the_counter_rule_is_written_once_and_used_by_both_harnesses():
    rule = COUNTER.read_text(encoding="utf-8")
    assert "0x5DEECE66D" in rule  # Java's Random lives here
    for harness in HARNESSES.values():
        text = (NODE_DIR / harness).read_text(encoding="utf-8")
        assert "require('./counter')" in text, harness
        assert "counter.clientStart(" in text and "counter.javaValue(" in text, harness
        assert "0x5DEECE66D" not in text and "function javaStored" not in text, f"{harness} writes its own rule"
        # a trace's counter is set only through the rule
        assigned = re.findall(r"sendWhichQueue = (.+?);", text.split("function select(")[0])
        assert all(value.startswith("counter.") for value in assigned), (harness, assigned)


@pytest.mark.examples
def test_the_report_states_the_counter_rule(node):
    rule = subprocess.run(
        [node, "-e", f"process.stdout.write(require({json.dumps(str(COUNTER))}).RULE)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "sendWhichQueue++" in rule and "+ 1" in rule
    committed = json.loads((ROOT / "docs" / "clients.json").read_text(encoding="utf-8"))
    assert committed["counterRule"] == rule, "run: tox -e clients"
    page = (ROOT / "docs" / "clients.md").read_text(encoding="utf-8")
    producer = page.split("## Producer queue selection", 1)[1].split("\n## ", 1)[0]
    assert f"**The counter rule.** {rule}" in producer


def test_the_ali_ons_headers_list_limit_is_max_queues():
    text = (NODE_DIR / "ali-ons.js").read_text(encoding="utf-8")
    limit = re.search(r"const MAX_QUEUES = (\d+);", text)
    assert limit is not None
    header = text.split("'use strict';", 1)[0]
    said = re.findall(r"(\d{1,3}(?:,\d{3})+|\d{4,})\)? queues", header)
    assert said and all(int(number.replace(",", "")) == int(limit[1]) for number in said), said


@pytest.mark.examples
def test_an_ali_ons_without_the_name_server_client_is_not_traced_and_says_why(node, tmp_path):
    """Every version the trend runs has getTopicRouteInfoFromNameServer; one without it would be
    left out of FAULT_STRATEGY with the reason, never fed a route another way."""
    home = _copy_with_reversed_sort("ali-ons", tmp_path / "home")
    api = home / "node_modules" / "ali-ons" / "lib" / "mq_client_api.js"
    api.write_text(api.read_text(encoding="utf-8").replace("getTopicRouteInfoFromNameServer(", "gone("), encoding="utf-8")
    lines = [{"cmd": "hello", "protocol": 1}, _trace(ROUTE), {"cmd": "bye"}]
    done = subprocess.run(
        [node, str(NODE_DIR / "ali-ons.js")],
        input="".join(json.dumps(line) + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={"PATH": os.environ.get("PATH", ""), "RMQ_CLIENT_HOME": str(home)},
        check=True,
    )
    hello, answer = (json.loads(line) for line in done.stdout.splitlines())
    assert "FAULT_STRATEGY" not in hello["strategies"]
    assert "has no MQClientAPI.getTopicRouteInfoFromNameServer" in answer["unsupported"]
