"""The committed consumer allocation vectors are what the real classes answer: the project's Java
harness (pytest_rmq_conformance/record/java), compiled against rocketmq-client from Maven
Central, asked every committed scenario of a release, gives every committed answer.

Needs Maven, a JDK and Maven Central (marker ``network``): the clients env runs it at the newest
committed release; ``RMQ_RECORD_RELEASES=4.7.1,4.9.8,5.3.3`` asks each of them.
"""

from __future__ import annotations

import json
import os
import random
import shutil

import pytest
from test_golden_import import harness_records

from pytest_rmq_conformance import cli
from pytest_rmq_conformance.engine.golden.data import load_golden, shipped_dirs, shipped_releases
from pytest_rmq_conformance.engine.resources import golden_dir
from pytest_rmq_conformance.record import allocation, maven
from pytest_rmq_conformance.releases import parse_release

pytestmark = [pytest.mark.network, pytest.mark.once]

#: the newest release the shipped vectors cover, unless named (CI records it fresh)
RELEASES = os.environ.get("RMQ_RECORD_RELEASES", shipped_releases()[-1]).split(",")
#: JDK 17 names a null variable in a NullPointerException's message where the class has debug
#: information: informational, compared by class only (the golden data's README says so)
NPE = "java.lang.NullPointerException"


def _answers(records):
    """Each record's answers by id: its results (an NPE's message left out) and Java's sorted copies."""

    def result(entry):
        return {key: value for key, value in entry.items() if not (entry.get("error") == NPE and key == "message")}

    return {record["id"]: ([result(entry) for entry in record["results"]], record["javaSorted"]) for record in records}


@pytest.fixture(scope="module")
def committed():
    return harness_records(golden_dir())


@pytest.mark.parametrize("release", RELEASES)
def test_every_committed_answer_is_what_the_release_s_jar_answers(committed, release):
    for tool in ("mvn", "javac", "java"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    jars = maven.resolve(f"org.apache.rocketmq:rocketmq-client:{release}")
    assert f"rocketmq-client-{release}.jar" in jars.sha256
    files = {path: records for path, records in committed.items() if path.startswith(f"{release}/")}
    assert files, f"no committed vectors of {release}"
    for path, records in files.items():
        assert records[0]["reference"]["maven"]["jars"] == jars.sha256, f"{path}: the jars are not those recorded"
        charset = records[0]["reference"]["defaultCharset"]
        got = allocation.record(jars, release, records, charset=charset)
        assert {record["reference"]["defaultCharset"] for record in got} == {charset}
        want, have = _answers(records), _answers(got)
        differ = [case for case in want if want[case] != have.get(case)]
        assert not differ, (
            f"{path}: {len(differ)} of {len(want)} differ, the first {differ[0]}: {want[differ[0]]} against {have.get(differ[0])}"
        )


def test_a_release_maven_does_not_serve_is_named():
    if shutil.which("mvn") is None:
        pytest.skip("mvn is not installed")
    with pytest.raises(
        maven.RecordError, match=r"Maven could not resolve org\.apache\.rocketmq:rocketmq-client:4\.99\.1"
    ):
        maven.resolve("org.apache.rocketmq:rocketmq-client:4.99.1")


def test_the_command_records_a_users_scenarios_into_a_golden_directory_with_their_provenance(
    committed, tmp_path, capsys
):
    """``golden record --scenarios``: a recorded line asked again (its answers ignored), imported
    into a golden directory whose run names the coordinates and each jar's SHA-256."""
    for tool in ("mvn", "javac", "java"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    release = RELEASES[-1]
    mine = [record for path, records in committed.items() if path.startswith(f"{release}/") for record in records][
        ::300
    ]
    scenarios = tmp_path / "mine.jsonl"
    scenarios.write_text("".join(json.dumps(record) + "\n" for record in mine), encoding="utf-8")
    assert (
        cli.main(
            ["golden", "record", "--release", release, "--scenarios", str(scenarios), "--out", str(tmp_path / "g")]
        )
        == 0
    )
    assert f"org.apache.rocketmq:rocketmq-client:{release} (" in capsys.readouterr().out
    golden = load_golden(tmp_path / "g", validate=True)
    assert sorted(case.id for case in golden.cases) == sorted(record["id"] for record in mine)
    (run,) = golden.runs.values()
    assert (run.rocketmq, run.commit, run.maven) == (release, None, f"org.apache.rocketmq:rocketmq-client:{release}")
    assert len(dict(run.jars)[f"rocketmq-client-{release}.jar"]) == 64
    recorded = {record["id"]: record for record in harness_records(tmp_path / "g")[f"{release}/AVG.jsonl"]}
    assert recorded and _answers(recorded.values()) == _answers(record for record in mine if record["id"] in recorded)


def test_the_reference_ports_reproduce_what_java_answers_to_generated_scenarios(tmp_path, capsys):
    """The project's generator (record/generate.py), a new seed each run (printed; replay it with
    RMQ_RECORD_SEED), asked of the newest committed release: the reference ports give every answer."""
    for tool in ("mvn", "javac", "java"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    seed = int(os.environ.get("RMQ_RECORD_SEED") or random.randrange(2**31))
    print(f"generator seed {seed} (replay: RMQ_RECORD_SEED={seed})")
    release = RELEASES[-1]
    argv = ["golden", "record", "--release", release, "--generate", "120", "--seed", str(seed), "--out", str(tmp_path / "g")]
    assert cli.main(argv) == 0
    assert cli.main(["replay", "--golden", str(tmp_path / "g")]) == 0, f"seed {seed}"
    assert "the reference ports reproduce every answer" in capsys.readouterr().out


def test_every_recorded_run_s_jars_are_the_ones_maven_central_serves(capsys):
    """``golden provenance``: each shipped run's coordinates resolved again (one Maven for them all),
    every jar's SHA-256 the one its manifest recorded."""
    if shutil.which("mvn") is None:
        pytest.skip("mvn is not installed")
    assert cli.main(["golden", "provenance"]) == 0
    out = capsys.readouterr().out.splitlines()
    runs = [run for directory in shipped_dirs() for run in load_golden(directory, strategies=()).runs.values()]
    assert all(run.maven is not None for run in runs), "a shipped run without Maven coordinates"
    coordinates = {run.maven for run in runs}
    assert out[-1] == f"{len(coordinates)} of {len(coordinates)} artifacts as recorded"


def test_the_shipped_runs_are_every_version_maven_central_serves():
    """golden/ holds a run of every rocketmq-client release and rocketmq-client-java version Maven
    Central lists (``golden releases``): a new one fails here until ``tox -e record-all`` records it."""
    from pytest_rmq_conformance.record.served import client_java_versions, rocketmq_releases

    runs = [run for directory in shipped_dirs() for run in load_golden(directory, strategies=()).runs.values()]
    assert sorted({run.rocketmq for run in runs if run.client is None}, key=parse_release) == list(rocketmq_releases().recorded)
    assert [f"rocketmq-client-java {version}" for version in client_java_versions().recorded] == sorted(
        {run.client for run in runs if run.client is not None}, key=lambda client: parse_release(client.split()[-1])
    )
