"""PyPI rocketmq and rocketmq-python-cvs behind clients/python/rocketmq-ctypes.py: the hello, golden
cases the report counts (one that agrees with Java, ones that do not, the arguments its
``send_orderly`` cannot take), and that the answers are the package's own ``hashing_queue_selector``:
a copy of the package with that function changed answers otherwise. Each package is installed into
a folder of the test's (``pip install --no-deps --target``) and named by ``RMQ_CLIENT_HOME``: needs
the network, marked ``network``; ``tox -e clients`` runs it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_rmq_conformance.engine.golden.data import read_cases

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest brings tomli to 3.10
    import tomli as tomllib

pytestmark = pytest.mark.network

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / "clients" / "python" / "rocketmq-ctypes.py"
VERSIONS = tomllib.loads((ROOT / "clients" / "versions.toml").read_text(encoding="utf-8"))
PINNED = {
    "rocketmq": VERSIONS["rocketmq (PyPI)"]["pinned"],
    "rocketmq-python-cvs": VERSIONS["rocketmq-python-cvs"]["pinned"],
}
GOLDEN = {case["id"]: case for case in read_cases(ROOT / "golden" / "producer" / "SELECTOR_HASH.jsonl")}


@pytest.fixture(scope="module", params=sorted(PINNED))
def home(request, tmp_path_factory) -> tuple[str, Path]:
    package = request.param
    target = tmp_path_factory.mktemp(package)
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target)]
    subprocess.run([*command, f"{package}=={PINNED[package]}"], check=True, capture_output=True)
    return package, target


def _ask(package: str, home: Path, *requests: dict) -> list[dict]:
    lines = [{"cmd": "hello", "protocol": 1}, *requests, {"cmd": "bye"}]
    done = subprocess.run(
        [sys.executable, str(HARNESS)],
        input="".join(json.dumps(line) + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={"PATH": "", "RMQ_CLIENT_PACKAGE": package, "RMQ_CLIENT_HOME": str(home)},
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


def _select(case_id: str, release: str = "4.9.8") -> dict:
    case = GOLDEN[case_id]
    return {"cmd": "select", "id": 1, "strategy": "SELECTOR_HASH", "params": {}, "release": release,
            "arg": case["arg"], "queueCounts": case["queueCounts"]}  # fmt: skip


def _java(case_id: str) -> list:
    (expect,) = [e for e in GOLDEN[case_id]["expect"] if "4.9.8" in e["runs"]]
    return expect["results"]


def test_the_hello_names_the_package_its_pinned_version_and_only_selector_hash(home):
    package, folder = home
    (hello,) = _ask(package, folder)
    assert hello["implementation"]["name"] == package
    assert hello["implementation"]["version"] == PINNED[package]
    assert hello["strategies"] == ["SELECTOR_HASH"]


def test_a_positive_integer_argument_lands_where_java_sends_it(home):
    _, answer = _ask(*home, _select("pub-SELECTOR_HASH-0454-integer"))
    assert [a["index"] for a in answer["answers"]] == _java("pub-SELECTOR_HASH-0454-integer")


def test_a_negative_or_wide_argument_lands_elsewhere_than_in_java(home):
    """-1: Python's % is never negative, Java takes Math.abs first; 2^32 as a long: ctypes.c_int keeps
    the low 32 bits (0), Java hashes the long's two halves (1)."""
    for case_id in ("pub-SELECTOR_HASH-0456-integer", "pub-SELECTOR_HASH-0767-long"):
        _, answer = _ask(*home, _select(case_id))
        picked = [a["index"] for a in answer["answers"]]
        assert all(0 <= index < count for index, count in zip(picked, GOLDEN[case_id]["queueCounts"], strict=True))
        assert picked != _java(case_id), case_id


def test_what_send_orderly_cannot_take_is_not_run_never_answered(home):
    for case_id in (
        "pub-SELECTOR_HASH-0001-string",
        "pub-SELECTOR_HASH-0453-hash-code",
        "pub-SELECTOR_HASH-0884-null-arg",
    ):
        _, answer = _ask(*home, _select(case_id))
        assert all("ctypes.c_int" in a["notRun"] for a in answer["answers"]), case_id
    _, answer = _ask(*home, _select("pub-SELECTOR_HASH-0764-long"))  # its first count is 0
    assert "notRun" in answer["answers"][0] and all("index" in a for a in answer["answers"][1:])


def test_the_answers_are_the_packages_own_selector(home, tmp_path):
    package, folder = home
    changed = tmp_path / "home"
    shutil.copytree(folder, changed)
    client = changed / "rocketmq" / "client.py"
    text = client.read_text(encoding="utf-8")
    assert text.count("    return arg_int[0] % mq_size\n") == 1
    client.write_text(text.replace("    return arg_int[0] % mq_size\n", "    return mq_size - 1\n"), encoding="utf-8")
    case = GOLDEN["pub-SELECTOR_HASH-0454-integer"]
    _, answer = _ask(package, changed, _select(case["id"]))
    assert [a["index"] for a in answer["answers"]] == [count - 1 for count in case["queueCounts"]]
