"""``rmq-conformance golden import`` on producer vectors: converted, de-duplicated, validated, traced to its sources."""

import json

import pytest

from pytest_rmq_conformance.cli import main
from pytest_rmq_conformance.engine.golden.data import GoldenDataError, load_golden, read_cases
from pytest_rmq_conformance.kinds.producer.golden_import import import_vectors

REFERENCE = {"commit": "0" * 40, "jdk": "OpenJDK 17"}
ROUTE = {"queueDatas": [["A", 2, 6], ["B", 1, 6]], "brokerDatas": [["A", [0]], ["B", [0]]], "orderTopicConf": None}


def trace(release, queue):
    return {
        "id": "pub-FAULT_STRATEGY-0001-spec-example", "family": "FAULT_STRATEGY", "tags": ["spec-example", "S1"],
        "topic": "TopicTest", "route": ROUTE,
        "config": {"sendLatencyFaultEnable": False, "latencyMax": None, "notAvailableDuration": None},
        "initial": {"clockMs": 0, "sendIndex": 0, "sendIndexSeed": 1, "worstIndex": 0, "worstIndexSeed": 1},
        "reference": {"rocketmq": release, **REFERENCE}, "publishListRuns": [["A", 2], ["B", 1]],
        "steps": [{"op": "advance", "ms": 5},
                  {"op": "select", "lastBroker": None, "resetIndex": False,
                   "expect": {"queue": queue, "listIndex": 1, "storedIndexAfter": 1}}],
    }


def selector(release, index):
    return {
        "id": "pub-SELECTOR_HASH-0001-string", "family": "SELECTOR_HASH", "tags": ["string"],
        "arg": {"type": "string", "value": "123"}, "queueCounts": [10, 0], "argHashCode": 48690,
        "reference": {"rocketmq": release, **REFERENCE},
        "results": [{"n": 10, "index": index}, {"n": 0, "error": "java.lang.ArithmeticException", "message": "/ by zero"}],
    }


def write_source(root, lines_by_release):
    root.mkdir()
    (root / "vector.schema.json").write_text(json.dumps({"type": "object", "required": ["family", "id"]}))
    for release, lines in lines_by_release.items():
        folder = root / release
        folder.mkdir(parents=True)
        for family in {line["family"] for line in lines}:
            text = "".join(json.dumps(line) + "\n" for line in lines if line["family"] == family)
            (folder / f"{family}.jsonl").write_text(text)


def test_releases_that_answer_alike_share_one_group_and_the_inputs_are_kept_once(tmp_path):
    write_source(tmp_path / "src", {
        "4.7.1": [trace("4.7.1", ["A", 1]), selector("4.7.1", 0)],
        "4.9.8": [trace("4.9.8", ["A", 1]), selector("4.9.8", 0)],
        "5.3.3": [trace("5.3.3", ["B", 0]), selector("5.3.3", 0)],
    })
    report = import_vectors(tmp_path / "src", tmp_path / "out")
    assert report.cases == {"FAULT_STRATEGY": 1, "SELECTOR_HASH": 1} and report.groups == 3
    (case,) = read_cases(tmp_path / "out" / "FAULT_STRATEGY.jsonl")
    assert [group["runs"] for group in case["expect"]] == [["4.7.1", "4.9.8"], ["5.3.3"]]
    assert case["steps"] == [{"op": "advance", "ms": 5}, {"op": "select", "lastBroker": None, "resetIndex": False}]
    assert case["expect"][1]["steps"] == [None, {"expect": {"queue": ["B", 0], "listIndex": 1, "storedIndexAfter": 1}}]
    (hashed,) = read_cases(tmp_path / "out" / "SELECTOR_HASH.jsonl")
    assert hashed["expect"] == [{"runs": ["4.7.1", "4.9.8", "5.3.3"],
                                 "results": [0, {"error": "java.lang.ArithmeticException", "message": "/ by zero"}]}]
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["runs"]["4.7.1"]["sameAs"] == {"FAULT_STRATEGY": "4.9.8", "SELECTOR_HASH": "5.3.3"}
    assert [source["path"] for source in manifest["sources"]] == [
        "4.7.1/FAULT_STRATEGY.jsonl", "4.7.1/SELECTOR_HASH.jsonl", "4.9.8/FAULT_STRATEGY.jsonl",
        "4.9.8/SELECTOR_HASH.jsonl", "5.3.3/FAULT_STRATEGY.jsonl", "5.3.3/SELECTOR_HASH.jsonl"]
    golden = load_golden(tmp_path / "out")
    assert [case.id for case in golden.cases] == ["pub-FAULT_STRATEGY-0001-spec-example", "pub-SELECTOR_HASH-0001-string"]
    first = (tmp_path / "out" / "FAULT_STRATEGY.jsonl").read_bytes()
    import_vectors(tmp_path / "src", tmp_path / "out")
    assert (tmp_path / "out" / "FAULT_STRATEGY.jsonl").read_bytes() == first


def test_the_cli_imports_a_producer_folder_into_golden_producer(tmp_path, capsys):
    write_source(tmp_path / "src", {"5.3.3": [trace("5.3.3", ["A", 1])]})
    assert main(["golden", "import", str(tmp_path / "src"), "--out", str(tmp_path / "golden")]) == 0
    assert "wrote 1 cases (FAULT_STRATEGY: 1)" in capsys.readouterr().out
    assert (tmp_path / "golden" / "producer" / "FAULT_STRATEGY.jsonl").is_file()


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda line: line["steps"][0].update(ms=6), "the inputs differ from the same id in another release"),
        (lambda line: line["reference"].update(rocketmq="4.7.1"), "reference.rocketmq 4.7.1 but the file is under 5.3.3/"),
        (lambda line: line.pop("id"), "breaks"),
    ],
    ids=["inputs-differ", "wrong-folder", "breaks-schema"],
)
def test_bad_vectors_are_refused_naming_the_file_and_line(tmp_path, change, message):
    late = trace("5.3.3", ["A", 1])
    change(late)
    write_source(tmp_path / "src", {"4.9.8": [trace("4.9.8", ["A", 1])], "5.3.3": [late]})
    with pytest.raises(GoldenDataError, match=message) as caught:
        import_vectors(tmp_path / "src", tmp_path / "out")
    assert "5.3.3/FAULT_STRATEGY.jsonl:1" in str(caught.value)
    assert not (tmp_path / "out" / "FAULT_STRATEGY.jsonl").exists()


def test_a_folder_without_its_schema_is_held_to_the_project_s_harness_record(tmp_path):
    """Without a vector.schema.json of its own, a folder is what ``golden record`` writes: its
    lines must follow schemas/producer-harness-record.schema.json, whose provenance names the JDK's
    encodings (these lines, in the Java vectors' format, do not)."""
    write_source(tmp_path / "src", {"5.3.3": [trace("5.3.3", ["A", 1])]})
    (tmp_path / "src" / "vector.schema.json").unlink()
    with pytest.raises(GoldenDataError, match=r"breaks schemas/producer-harness-record\.schema\.json"):
        import_vectors(tmp_path / "src", tmp_path / "out")
