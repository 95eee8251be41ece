"""RMQ_CLIENT_HOME in the real clients' harnesses (clients/python/harness.py, clients/node/harness.js):
the client is loaded from that folder, its version read from there, and what an old version lacks
is said (a family left out of the hello, a request answered unsupported), never crashed on. The
installs here are stand-ins written by the test: no registry, no network."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CLIENTS = Path(__file__).resolve().parent.parent / "clients"

PYTHON_STAND_IN = {
    "rocketmq/__init__.py": "",
    "rocketmq/grpc_protocol/__init__.py": (
        "from . import definition_pb2\n"
        "class AddressScheme:\n    IPv4, IPv6, DOMAIN_NAME = 1, 2, 3\n"
        "class Permission:\n    @staticmethod\n    def Value(name):\n        return name\n"
    ),
    "rocketmq/grpc_protocol/definition_pb2.py": "",
    "rocketmq/v5/__init__.py": "",
    "rocketmq/v5/model/__init__.py": "class TopicRouteData:\n    def __init__(self, queues):\n        self.message_queues = queues\n",
    "rocketmq/v5/client/__init__.py": "",
    # an old selector: round robin, no select_queue_by_hash_key
    "rocketmq/v5/client/balancer/__init__.py": "class QueueSelector:\n    pass\n",
    "rocketmq_python_client-0.0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: rocketmq-python-client\nVersion: 0.0.1\n",
}


def _write(root: Path, files: dict) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def _talk(command, home, requests):
    env = {**os.environ, "RMQ_CLIENT_HOME": str(home)}
    lines = "".join(json.dumps(request) + "\n" for request in [*requests, {"cmd": "bye"}])
    done = subprocess.run(command, input=lines, capture_output=True, text=True, env=env, timeout=60, check=False)
    return done, [json.loads(line) for line in done.stdout.splitlines()]


GROUP_STEP = {
    "cmd": "balance",
    "id": 1,
    "strategy": "PUBLISH_ROUND_ROBIN",
    "route": [],
    "index": 0,
    "steps": [{"op": "group", "group": "g"}],
}


def test_python_harness_loads_the_client_from_the_home_and_says_what_it_lacks(tmp_path):
    home = _write(tmp_path / "home", PYTHON_STAND_IN)
    done, answers = _talk(
        [sys.executable, str(CLIENTS / "python" / "harness.py")], home, [{"cmd": "hello"}, GROUP_STEP]
    )
    assert done.returncode == 0, done.stderr
    hello, group = answers
    assert hello["implementation"]["version"] == "0.0.1"
    assert hello["strategies"] == ["PUBLISH_ROUND_ROBIN", "SUBSCRIBE_ROUND_ROBIN"]
    assert group == {
        "id": 1,
        "unsupported": "rocketmq-python-client 0.0.1 has no select_queue_by_hash_key (a group step)",
    }


def test_python_harness_refuses_a_home_that_is_not_a_folder(tmp_path):
    done, answers = _talk(
        [sys.executable, str(CLIENTS / "python" / "harness.py")], tmp_path / "missing", [{"cmd": "hello"}]
    )
    assert done.returncode != 0 and answers == []
    assert f"RMQ_CLIENT_HOME={tmp_path / 'missing'} is not a folder" in done.stderr


NODE_STAND_IN = {
    "node_modules/rocketmq-client-nodejs/package.json": json.dumps(
        {"name": "rocketmq-client-nodejs", "version": "0.0.2", "main": "dist/index.js"}
    ),
    "node_modules/rocketmq-client-nodejs/dist/index.js": "",
    "node_modules/rocketmq-client-nodejs/proto/apache/rocketmq/v2/definition_pb.js": (
        "exports.AddressScheme = { IPV4: 1, IPV6: 2, DOMAIN_NAME: 3 };\n"
    ),
    "node_modules/rocketmq-client-nodejs/dist/route/TopicRouteData.js": "exports.TopicRouteData = class {};\n",
    # an old client: a subscription balancer only, no publishing one
    "node_modules/rocketmq-client-nodejs/dist/consumer/SubscriptionLoadBalancer.js": (
        "exports.SubscriptionLoadBalancer = class { takeMessageQueue() {} };\n"
    ),
}


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")
def test_node_harness_loads_the_client_from_the_home_and_says_what_it_lacks(tmp_path):
    home = _write(tmp_path / "home", NODE_STAND_IN)
    group = {"cmd": "group", "id": 2, "queues": 4, "groups": ["a"]}
    done, answers = _talk(["node", str(CLIENTS / "node" / "harness.js")], home, [{"cmd": "hello"}, GROUP_STEP, group])
    assert done.returncode == 0, done.stderr
    hello, balance, grouped = answers
    assert hello["implementation"]["version"] == "0.0.2"
    assert hello["strategies"] == ["SUBSCRIBE_ROUND_ROBIN"]
    assert balance == {"id": 1, "unsupported": "rocketmq-client-nodejs 0.0.2 does not serve PUBLISH_ROUND_ROBIN"}
    assert grouped == {"id": 2, "unsupported": "rocketmq-client-nodejs 0.0.2 does not serve GROUP_HASH"}
    assert "lacks dist/producer/PublishingLoadBalancer" in done.stderr


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")
@pytest.mark.parametrize("harness", ["harness.js", "rocketmq-client-nodejs-beta.js", "rocketmq-grpc.js", "rocketmq.js", "ali-ons.js"])
def test_node_harnesses_refuse_a_home_that_does_not_exist(tmp_path, harness):
    done, answers = _talk(["node", str(CLIENTS / "node" / harness)], tmp_path / "missing", [{"cmd": "hello"}])
    assert done.returncode != 0 and answers == []
    assert f"RMQ_CLIENT_HOME={tmp_path / 'missing'} does not exist" in done.stderr


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")
def test_a_node_harness_without_the_package_in_the_home_says_so(tmp_path):
    (tmp_path / "empty").mkdir()
    done, answers = _talk(["node", str(CLIENTS / "node" / "rocketmq-grpc.js")], tmp_path / "empty", [{"cmd": "hello"}])
    assert done.returncode != 0 and answers == []
    assert "Cannot find module 'rocketmq-grpc'" in done.stderr


def test_the_dpyrocketmq_harness_refuses_a_home_without_it(tmp_path):
    (tmp_path / "empty").mkdir()
    done, answers = _talk(
        [sys.executable, str(CLIENTS / "python" / "dpyrocketmq.py")], tmp_path / "empty", [{"cmd": "hello"}]
    )
    assert done.returncode != 0 and answers == []
    assert f"{tmp_path / 'empty' / 'rocketmq'} holds no dpyrocketmq" in done.stderr


def test_the_go_launcher_refuses_a_home_that_holds_no_build(tmp_path):
    # clients/go/harness.py runs the build RMQ_CLIENT_HOME names (build.py --home); none: one line, exit 2
    done = subprocess.run(
        [sys.executable, str(CLIENTS / "go" / "harness.py"), "rocketmq-client-go"],
        input='{"cmd": "hello"}\n',
        capture_output=True,
        text=True,
        env={**os.environ, "RMQ_CLIENT_HOME": str(tmp_path)},
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"clients/go/harness.py: RMQ_CLIENT_HOME={tmp_path} holds no build (clients/go/build.py --home)\n"

