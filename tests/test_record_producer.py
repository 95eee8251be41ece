"""The committed producer selection vectors are what the real classes answer: the project's Java
harness (pytest_rmq_conformance/record/java/ProducerHarness.java), compiled against
rocketmq-client from Maven Central with its fault table on the scenario's clock, asked every
committed scenario, gives every committed answer, 4.7.1's shuffles over tied fault items included.

Needs Maven, a JDK and Maven Central (marker ``network``): the clients env runs it at the newest
committed release; ``RMQ_RECORD_RELEASES=4.7.1,4.9.8,5.3.3`` asks each of them.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable
from typing import Any

import pytest

from pytest_rmq_conformance import cli
from pytest_rmq_conformance.engine.golden.data import load_golden, read_cases, shipped_releases
from pytest_rmq_conformance.engine.resources import golden_dir
from pytest_rmq_conformance.kinds.producer.golden_import import _split
from pytest_rmq_conformance.record import maven, producer

#: the newest release the shipped vectors cover, unless named (CI records it fresh)
RELEASES = os.environ.get("RMQ_RECORD_RELEASES", shipped_releases()[-1]).split(",")


def committed_answers(release: str) -> dict[str, dict[str, Any]]:
    """The committed answers of ``release`` by case id, as the import keeps them."""
    out = {}
    for path in sorted((golden_dir() / "producer").glob("*.jsonl")):
        for case in read_cases(path):
            group = next((group for group in case["expect"] if release in group["runs"]), None)
            if group is not None:
                out[case["id"]] = {key: value for key, value in group.items() if key not in ("runs", "stepsLength")}
    return out


def recorded_answers(records: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The answers of harness records by case id, split from their inputs as the import splits them."""
    return {record["id"]: _split(record["family"], record)[1] for record in records}


def differences(want: dict[str, Any], have: dict[str, Any]) -> list[str]:
    """The ids whose answers differ (or that one side lacks), in ``want``'s order."""
    return [case for case in want if want[case] != have.get(case)] + [case for case in have if case not in want]


def _tools() -> None:
    for tool in ("mvn", "javac", "java"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")


@pytest.mark.network
@pytest.mark.once
@pytest.mark.parametrize("release", RELEASES)
def test_every_committed_answer_is_what_the_release_s_jar_answers(release):
    _tools()
    jars = maven.resolve(f"org.apache.rocketmq:rocketmq-client:{release}")
    want = committed_answers(release)
    assert len(want) == 1744, f"the committed producer vectors of {release}"
    got = producer.record(jars, release, producer.shipped_scenarios())
    differ = differences(want, recorded_answers(got))
    assert not differ, f"{len(differ)} of {len(want)} differ, the first {differ[0]}"
    calls = got[0]["reference"]["calls"]
    five = release.startswith("5.")
    assert ("MQFaultStrategy.updateFaultItem(String, long, boolean, boolean)" in calls) == five, calls
    assert "System.currentTimeMillis()" in got[0]["reference"]["clock"]


@pytest.mark.network
@pytest.mark.once
def test_the_command_records_a_users_producer_scenarios_with_what_it_called(tmp_path, capsys):
    """``golden record --scenarios``: shipped producer scenarios written as a user would (a trace
    with a shuffle over tied items among them), asked again, imported under DIR/producer with
    the coordinates, each jar's SHA-256 and the methods called."""
    _tools()
    release = RELEASES[-1]
    shipped = producer.shipped_scenarios()
    mine = shipped[::97] + [next(s for s in shipped if s["tags"][0] == "tie")]
    scenarios = tmp_path / "mine.jsonl"
    scenarios.write_text("".join(json.dumps(scenario) + "\n" for scenario in mine), encoding="utf-8")
    out = tmp_path / "g"
    assert cli.main(["golden", "record", "--release", release, "--scenarios", str(scenarios), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert f"producer: org.apache.rocketmq:rocketmq-client:{release} (" in said and "allocation:" not in said
    assert not (out / "manifest.json").exists()
    golden = load_golden(out / "producer", validate=True)
    assert sorted(case.id for case in golden.cases) == sorted(scenario["id"] for scenario in mine)
    (run,) = golden.runs.values()
    assert (run.rocketmq, run.commit, run.maven) == (release, None, f"org.apache.rocketmq:rocketmq-client:{release}")
    assert len(dict(run.jars)[f"rocketmq-client-{release}.jar"]) == 64
    assert any(call.startswith("MQFaultStrategy.selectOneMessageQueue(") for call in run.calls)
    want = {case: answers for case, answers in committed_answers(release).items() if case in {s["id"] for s in mine}}
    recorded = {}
    for path in (out / "producer").glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            (group,) = case["expect"]
            recorded[case["id"]] = {key: value for key, value in group.items() if key not in ("runs", "stepsLength")}
    assert not differences(want, recorded)


@pytest.mark.network
@pytest.mark.once
def test_the_reference_ports_reproduce_what_java_answers_to_generated_traces_and_calls(tmp_path, pytester):
    """The generated checks' draws (record/generate.py), a new seed each run, asked of the newest
    release: the suite's reference ports give every answer."""
    from recorded_draws import ports_pass, record_draws

    _tools()
    seed, folder = record_draws(tmp_path, "producer", ["--release", RELEASES[-1]], 90)
    assert ports_pass(pytester, folder, ["FAULT_STRATEGY", "SELECTOR_HASH", "SELECTOR_RANDOM"], seed) == {
        "FAULT_STRATEGY": 30, "SELECTOR_HASH": 30, "SELECTOR_RANDOM": 30}
