"""The committed gRPC balancer vectors are what the real classes answer: the project's Java harness
(pytest_rmq_conformance/record/java/GrpcHarness.java), compiled against rocketmq-client-java from
Maven Central, asked every committed scenario, gives every committed answer, the constructor's
error messages included.

Needs Maven, a JDK and Maven Central (marker ``network``): the clients env runs it at the newest
version; ``RMQ_RECORD_CLIENT_JAVA=5.0.3,5.1.0,5.2.0`` asks each of them.
"""

from __future__ import annotations

import json
import os
import shutil
from typing import Any

import pytest

from pytest_rmq_conformance import cli
from pytest_rmq_conformance.engine.golden.data import load_golden
from pytest_rmq_conformance.engine.resources import golden_dir
from pytest_rmq_conformance.record import grpc, maven, served

pytestmark = [pytest.mark.network, pytest.mark.once]

VERSIONS = os.environ.get("RMQ_RECORD_CLIENT_JAVA", "5.2.0").split(",")


def _answers(directory) -> dict[str, dict[str, Any]]:
    """Each case's one answer by id, its runs left out."""
    out = {}
    for path in sorted(directory.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            (answer,) = case["expect"]
            out[case["id"]] = {key: value for key, value in answer.items() if key != "runs"}
    return out


@pytest.fixture(autouse=True)
def _tools():
    for tool in ("mvn", "javac", "java"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")


@pytest.mark.parametrize("version", VERSIONS)
def test_every_committed_answer_is_what_the_client_s_jar_answers(version):
    jars = maven.resolve(f"{grpc.ARTIFACT}:{version}")
    want = _answers(golden_dir() / "grpc")
    got = {record["id"]: record["expect"] for record in grpc.record(jars, version, grpc.shipped_scenarios())}
    differ = [case for case in want if want[case] != got.get(case)]
    assert not differ, f"{len(differ)} of {len(want)} differ, the first {differ[0]}: {want[differ[0]]} against {got.get(differ[0])}"


def test_a_version_without_update_says_so_for_a_scenario_that_updates():
    """5.0.0's balancers have no update(): a new route makes a balancer with a new random index,
    which the harness will not make up (the scenario answers "unsupported", saying why); the
    scenarios without an update still answer, as the commit's classes did."""
    jars = maven.resolve(f"{grpc.ARTIFACT}:5.0.0")
    scenarios = grpc.shipped_scenarios()
    updating = next(s for s in scenarios if any(step["op"] == "update" for step in s.get("steps", ())))
    plain = [s for s in scenarios if s["family"] == "SUBSCRIBE_ROUND_ROBIN" and all(step["op"] != "update" for step in s["steps"])][:20]
    got = grpc.record(jars, "5.0.0", [updating, *plain])
    assert "expect" not in got[0] and "no update(TopicRouteData)" in got[0]["unsupported"]
    want = _answers(golden_dir() / "grpc")
    assert [record["expect"] for record in got[1:]] == [want[s["id"]] for s in plain]
    assert "SubscriptionLoadBalancer(TopicRouteData), its index field set to the start index" in got[1]["reference"]["calls"]


def test_maven_central_lists_the_versions_the_suite_records():
    releases, clients = served.rocketmq_releases(), served.client_java_versions()
    assert {"4.0.0", "4.7.1", "4.9.8", "5.3.3", "5.5.0"} <= set(releases.recorded) and "5.0.0-ALPHA" in releases.left_out
    assert {"5.0.0", "5.2.0"} <= set(clients.recorded)


def test_the_command_records_a_users_grpc_scenarios_with_their_provenance(tmp_path, capsys):
    version = VERSIONS[-1]
    mine = grpc.shipped_scenarios()[::151]
    scenarios = tmp_path / "mine.jsonl"
    scenarios.write_text("".join(json.dumps(scenario) + "\n" for scenario in mine), encoding="utf-8")
    out = tmp_path / "g"
    assert cli.main(["golden", "record", "--client-java", version, "--scenarios", str(scenarios), "--out", str(out)]) == 0
    assert f"grpc: {grpc.ARTIFACT}:{version} (1 jars) answered {len(mine)} scenarios" in capsys.readouterr().out
    golden = load_golden(out / "grpc", validate=True)
    (run,) = golden.runs.values()
    assert (run.id, run.client, run.maven) == (f"5.3.3+java-{version}", f"rocketmq-client-java {version}", f"{grpc.ARTIFACT}:{version}")
    assert len(dict(run.jars)[f"rocketmq-client-java-{version}.jar"]) == 64
    committed = _answers(golden_dir() / "grpc")
    assert _answers(out / "grpc") == {s["id"]: committed[s["id"]] for s in mine}


def test_the_reference_ports_reproduce_what_java_answers_to_generated_balancer_cases(tmp_path, pytester):
    """The generated checks' draws (record/generate.py), a new seed each run, asked of the newest
    client version: the suite's reference ports give every answer (repeated draws recorded once)."""
    from recorded_draws import ports_pass, record_draws

    seed, folder = record_draws(tmp_path, "grpc", ["--client-java", VERSIONS[-1]], 90)
    passed = ports_pass(pytester, folder, ["GROUP_HASH", "PUBLISH_ROUND_ROBIN", "SUBSCRIBE_ROUND_ROBIN"], seed)
    assert all(passed.values()), passed
