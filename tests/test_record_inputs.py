"""What ``rmq-conformance golden record`` refuses before it asks Maven or Java anything: a
release that is not one, coordinates that are not ones, a scenario file it cannot read (of either
kind); and the comparisons tests/test_record_allocation.py and tests/test_record_producer.py make
see a moved queue."""

from __future__ import annotations

import json

import pytest
from test_golden_import import harness_records
from test_record_allocation import _answers
from test_record_producer import committed_answers, differences

from pytest_rmq_conformance import cli
from pytest_rmq_conformance.engine.golden.data import schema_problems
from pytest_rmq_conformance.engine.records import Run
from pytest_rmq_conformance.engine.resources import golden_dir
from pytest_rmq_conformance.record import maven


@pytest.mark.parametrize("release", ["five", "5.3", "5.3.3-SNAPSHOT"])
def test_a_release_that_is_not_one_is_one_line_and_exit_2(release, tmp_path, capsys):
    assert cli.main(["golden", "record", "--release", release, "--out", str(tmp_path / "g")]) == 2
    assert (
        capsys.readouterr().err
        == f"rmq-conformance: error: --release {release}: RocketMQ release must look like 4.9.8 or 5.3.3 (4.x or 5.x), not {release!r}\n"
    )
    assert not (tmp_path / "g").exists()


@pytest.mark.parametrize(
    "text, says",
    [
        ("{not json\n", "mine.jsonl:1: not a JSON object: "),
        (
            '{"id": "x", "strategy": "AVG"}\n',
            "mine.jsonl:1: a scenario needs params, consumerGroup, mqAll, cidAll, tags",
        ),
        ("\n", "mine.jsonl: no scenarios in it"),
        (
            '{"id": "x", "family": "SELECTOR_HASH", "tags": ["mine"]}\n',
            "mine.jsonl:1: a SELECTOR_HASH scenario needs arg, queueCounts",
        ),
        (
            '{"id": "x", "family": "FAULT_STRATEGY", "tags": ["mine"], "steps": []}\n',
            "mine.jsonl:1: a FAULT_STRATEGY scenario needs topic, route, config, initial",
        ),
        (
            '{"id": "x", "family": "PUBLISH_ROUND_ROBIN", "tags": ["mine"], "route": []}\n',
            "mine.jsonl:1: a PUBLISH_ROUND_ROBIN scenario needs index, steps",
        ),
    ],
    ids=["not-json", "fields-missing", "empty", "selector-fields-missing", "trace-fields-missing", "balancer-fields-missing"],
)
def test_a_scenario_file_it_cannot_use_is_named_with_its_line(text, says, tmp_path, capsys):
    scenarios = tmp_path / "mine.jsonl"
    scenarios.write_text(text, encoding="utf-8")
    versions = ["--release", "5.3.3", "--client-java", "5.2.0"]
    assert cli.main(["golden", "record", *versions, "--scenarios", str(scenarios), "--out", str(tmp_path / "g")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rmq-conformance: error: ") and says in err and err.count("\n") == 1, err
    assert not (tmp_path / "g").exists()


@pytest.mark.parametrize(
    "arguments, says",
    [
        ([], "name what to ask: --release R (rocketmq-client) and/or --client-java V (rocketmq-client-java), or --every-release"),
        (["--client-java", "5.x"], "--client-java 5.x: a rocketmq-client-java version looks like 5.2.0"),
        (["--release", "5.3.3", "--kind", "grpc"], "the grpc kind is asked of rocketmq-client-java: name its version with --client-java"),
        (["--client-java", "5.2.0", "--kind", "producer"], "the producer kind is asked of rocketmq-client: name its version with --release"),
    ],
    ids=["nothing-named", "not-a-version", "grpc-without-client-java", "producer-without-release"],
)
def test_what_to_ask_is_checked_before_maven_runs(arguments, says, tmp_path, capsys):
    assert cli.main(["golden", "record", *arguments, "--out", str(tmp_path / "g")]) == 2
    assert capsys.readouterr().err == f"rmq-conformance: error: {says}\n"
    assert not (tmp_path / "g").exists()


@pytest.mark.parametrize(
    "line, kind",
    [
        ('{"id": "x", "strategy": "AVG"}', "allocation"),
        ('{"id": "x", "family": "SELECTOR_HASH"}', "producer"),
        ('{"id": "x", "family": "GROUP_HASH"}', "grpc"),
        ("{not json", "allocation"),
    ],
)
def test_a_scenario_file_says_its_kind_by_its_first_line(line, kind, tmp_path):
    scenarios = tmp_path / "mine.jsonl"
    scenarios.write_text(f"\n{line}\n", encoding="utf-8")
    assert cli._recorded_kind(scenarios) == kind


@pytest.mark.parametrize("coordinates", ["rocketmq-client:4.9.8", "org.apache.rocketmq:rocketmq-client:latest", ""])
def test_coordinates_that_are_not_ones_are_refused_before_maven_runs(coordinates):
    with pytest.raises(maven.RecordError, match="is not Maven coordinates group:artifact:version"):
        maven.resolve(coordinates)


@pytest.mark.once  # reads every shipped vector back into harness records
def test_a_wrong_answer_would_be_seen():
    """The comparison is not blind: one queue moved in one committed answer is a difference."""
    records = harness_records(golden_dir())["5.3.3/AVG.jsonl"]
    moved = [dict(record) for record in records]
    first = next(i for i, record in enumerate(moved) if any(entry.get("queues") for entry in record["results"]))
    results = [dict(entry) for entry in moved[first]["results"]]
    owner = next(entry for entry in results if entry.get("queues"))
    owner["queues"] = owner["queues"][1:]
    moved[first] = {**moved[first], "results": results}
    assert [case for case in _answers(records) if _answers(records)[case] != _answers(moved)[case]] == [
        records[first]["id"]
    ]


def test_a_moved_producer_answer_would_be_seen():
    """The producer comparison is not blind: one select answering another queue, one selector
    call another index, are each a difference, named by their case."""
    want = committed_answers("4.7.1")
    trace = next(case for case, answers in want.items() if "steps" in answers and any(
        step and "queue" in step.get("expect", {}) for step in answers["steps"]))
    selector = next(case for case, answers in want.items() if "results" in answers)
    have = json.loads(json.dumps(want))
    step = next(step for step in have[trace]["steps"] if step and "queue" in step.get("expect", {}))
    step["expect"]["queue"] = [step["expect"]["queue"][0], step["expect"]["queue"][1] + 1]
    first = next(i for i, result in enumerate(have[selector]["results"]) if isinstance(result, int))
    have[selector]["results"][first] += 1
    assert differences(want, have) == sorted([trace, selector], key=list(want).index)
    assert differences(want, {case: have[case] for case in have if case != trace}) == [trace, selector]


MAVEN = {"coordinates": "org.apache.rocketmq:rocketmq-client:5.3.3", "jars": {"rocketmq-client-5.3.3.jar": "ab" * 32}}
RUN = {"rocketmq": "5.3.3", "jdk": "OpenJDK 17", "fileEncoding": "UTF-8", "defaultCharset": "UTF-8"}


@pytest.mark.parametrize(
    "provenance, valid",
    [
        ({"maven": MAVEN}, True),
        ({"commit": "29d90a4ff96c04c094039685a6106870c58a7e40"}, True),
        ({}, False),
        ({"maven": {**MAVEN, "jars": {"a.jar": "not-a-digest"}}}, False),
    ],
    ids=["maven", "commit", "neither", "bad-digest"],
)
def test_a_run_names_the_commit_or_the_maven_artifact_that_answered(provenance, valid):
    manifest = {"format": 1, "runs": {"5.3.3": RUN | provenance}, "files": {}, "sources": []}
    problems = schema_problems("golden-manifest", manifest)
    assert not problems if valid else problems, problems


def test_a_maven_run_reads_and_writes_back_as_it_was():
    data = RUN | {"maven": MAVEN}
    run = Run.from_json("5.3.3", data)
    assert (run.commit, run.maven, dict(run.jars)) == (None, MAVEN["coordinates"], MAVEN["jars"])
    assert run.to_json() == data
