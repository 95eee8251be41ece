"""Recording many versions at once, without the network: the release names the suite gives
Maven's versions, what ``golden changes`` reads from a golden directory, the gRPC import of a
folder per version, and the arguments ``golden record --every-release`` refuses."""

from __future__ import annotations

import json

import pytest

from pytest_rmq_conformance import cli
from pytest_rmq_conformance.engine.golden.changes import histories
from pytest_rmq_conformance.engine.golden.data import GoldenDataError, load_golden, read_cases
from pytest_rmq_conformance.engine.resources import golden_dir
from pytest_rmq_conformance.kinds.grpc.golden_import import import_vectors
from pytest_rmq_conformance.record import generate, served


@pytest.mark.parametrize(
    "maven, release",
    [("4.0.0-incubating", "4.0.0"), ("4.1.0-incubating", "4.1.0"), ("4.2.0", "4.2.0"), ("5.5.0", "5.5.0")],
)
def test_the_incubating_releases_go_by_their_number(maven, release):
    assert served.release_of(maven) == release
    assert served.maven_version(release) == maven
    assert served.maven_version(maven) == maven


def test_pre_releases_are_left_out_and_releases_sorted(monkeypatch):
    listed = ["4.0.0-incubating", "4.9.8", "5.0.0-ALPHA", "5.0.0", "5.0.0-PREVIEW", "4.10.0"]
    monkeypatch.setattr(served, "served", lambda group, artifact: listed)
    found = served.rocketmq_releases()
    assert found == served.Served(("4.0.0", "4.9.8", "4.10.0", "5.0.0"), ("5.0.0-ALPHA", "5.0.0-PREVIEW"))


def test_the_shipped_history_names_the_changes_the_vectors_know():
    """The machine room's two fixes, the fault strategy's rewrites and 4.7.1's abs(MIN_VALUE) in
    the hash selector are changes; the averaging strategies never change in 35 releases."""
    found = {history.family: history for history in histories([golden_dir(), golden_dir() / "producer"])}
    (avg,) = found["AVG"].behaviours
    assert len(avg) == 35 and (avg[0], avg[-1]) == ("4.0.0", "5.5.0") and not found["AVG"].changes
    steps = {family: [(c.before, c.after) for c in found[family].changes] for family in found}
    assert steps["MACHINE_ROOM"] == [("4.7.1", "4.8.0"), ("4.9.2", "4.9.3")]
    assert steps["FAULT_STRATEGY"] == [
        ("4.7.1", "4.8.0"), ("4.8.0", "4.9.0"), ("4.9.3", "4.9.4"), ("4.9.6", "4.9.8"), ("4.9.8", "5.0.0"),
        ("5.0.0", "5.1.0"), ("5.1.0", "5.1.1"), ("5.1.3", "5.1.4"), ("5.1.4", "5.2.0"),
    ]
    (selector,) = found["SELECTOR_HASH"].changes
    assert (selector.before, selector.after, selector.cases, selector.total) == ("4.7.1", "4.8.0", 25, 884)
    assert "min-value" in selector.first


def test_a_moved_answer_is_a_change_and_an_unasked_case_is_counted_apart(tmp_path):
    """One answer moved at 5.3.3 is a change of one case there; a case 4.7.1 could not be asked
    arrives at 4.9.8, counted apart from the answers that changed."""
    kept = ("4.7.1", "4.9.8", "5.3.3")
    manifest = json.loads((golden_dir() / "manifest.json").read_text())
    manifest["files"] = {"AVG.jsonl": manifest["files"]["AVG.jsonl"]}
    manifest["runs"] = {run: {key: value for key, value in manifest["runs"][run].items() if key != "sameAs"} for run in kept}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    lines = []
    for case in read_cases(golden_dir() / "AVG.jsonl"):
        case["expect"] = [{**group, "runs": [run for run in group["runs"] if run in kept]} for group in case["expect"]]
        lines.append(json.dumps(case))
    case = json.loads(lines[5])
    (group,) = case["expect"]
    moved = json.loads(json.dumps(group))
    moved["results"][0]["queues"] = moved["results"][0]["queues"][1:] or [0]
    case["expect"] = [{**group, "runs": ["4.7.1", "4.9.8"]}, {**moved, "runs": ["5.3.3"]}]
    lines[5] = json.dumps(case)
    first = json.loads(lines[0])
    first["expect"] = [{**first["expect"][0], "runs": ["4.9.8", "5.3.3"]}]
    lines[0] = json.dumps(first)
    (tmp_path / "AVG.jsonl").write_text("\n".join(lines) + "\n")
    (history,) = histories([tmp_path])
    assert [(c.before, c.after, c.cases, c.first, c.added) for c in history.changes] == [
        ("4.7.1", "4.9.8", 0, None, 1),
        ("4.9.8", "5.3.3", 1, case["id"], 0),
    ]
    assert history.behaviours == (("4.7.1",), ("4.9.8",), ("5.3.3",))


def _grpc_records(version: str) -> dict[str, list[dict]]:
    """The committed gRPC cases as harness records of ``rocketmq-client-java <version>``."""
    reference = {"client": f"rocketmq-client-java {version}", "jdk": "OpenJDK 17", "fileEncoding": "UTF-8",
                 "defaultCharset": "UTF-8", "calls": ["PublishingLoadBalancer(AtomicInteger, TopicRouteData)"],
                 "maven": {"coordinates": f"org.apache.rocketmq:rocketmq-client-java:{version}",
                           "jars": {f"rocketmq-client-java-{version}.jar": "ab" * 32}}}
    out: dict[str, list[dict]] = {}
    for path in sorted((golden_dir() / "grpc").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines()[:40]:
            case = json.loads(line)
            (answer,) = case["expect"]
            inputs = {key: case[key] for key in case if key not in ("id", "strategy", "category", "flags", "params", "expect")}
            out.setdefault(path.stem, []).append({
                "id": case["id"], "family": case["strategy"], "tags": [case["category"], *case["flags"]], **inputs,
                "expect": {key: value for key, value in answer.items() if key != "runs"}, "reference": reference,
            })
    return out


def _write(folder, records):
    folder.mkdir(parents=True)
    for family, lines in records.items():
        (folder / f"{family}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_the_grpc_import_keeps_one_answer_per_group_of_versions(tmp_path):
    old, new = _grpc_records("5.1.0"), _grpc_records("5.2.0")
    changed = new["SUBSCRIBE_ROUND_ROBIN"][0]
    changed["expect"] = {**changed["expect"], "indexAfter": changed["expect"]["indexAfter"] + 1}
    gone = old["PUBLISH_ROUND_ROBIN"].pop(3)["id"]
    _write(tmp_path / "src" / "5.2.0", new)
    _write(tmp_path / "src" / "5.1.0", old)
    report = import_vectors(tmp_path / "src", tmp_path / "out")
    golden = load_golden(tmp_path / "out", validate=True)
    assert list(golden.runs) == ["5.3.3+java-5.1.0", "5.3.3+java-5.2.0"] and report.cases["GROUP_HASH"] == 40
    expect = {case["id"]: case["expect"] for path in (tmp_path / "out").glob("*.jsonl") for case in read_cases(path)}
    assert [group["runs"] for group in expect[changed["id"]]] == [["5.3.3+java-5.1.0"], ["5.3.3+java-5.2.0"]]
    assert [group["runs"] for group in expect[gone]] == [["5.3.3+java-5.2.0"]]
    assert all(len(groups) == 1 and len(groups[0]["runs"]) == 2 for case, groups in expect.items() if case not in (changed["id"], gone))


def test_the_grpc_import_refuses_a_case_that_asks_otherwise_in_another_version(tmp_path):
    old, new = _grpc_records("5.1.0"), _grpc_records("5.2.0")
    new["PUBLISH_ROUND_ROBIN"][0]["index"] += 1
    _write(tmp_path / "src" / "5.1.0", old)
    _write(tmp_path / "src" / "5.2.0", new)
    with pytest.raises(GoldenDataError, match=rf"{new['PUBLISH_ROUND_ROBIN'][0]['id']} asks otherwise in 5.3.3\+java-5.2.0"):
        import_vectors(tmp_path / "src", tmp_path / "out")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "arguments, says",
    [
        (["--every-release", "--release", "5.3.3"], "--every-release asks every version Maven Central serves: leave out --release and --client-java"),
        (["--release", "4.0.0-beta"], "--release 4.0.0-beta: RocketMQ release must look like 4.9.8 or 5.3.3 (4.x or 5.x), not '4.0.0-beta'"),
    ],
    ids=["every-and-one", "not-a-release"],
)
def test_every_release_is_asked_alone(arguments, says, tmp_path, capsys):
    assert cli.main(["golden", "record", *arguments, "--out", str(tmp_path / "g")]) == 2
    assert capsys.readouterr().err == f"rmq-conformance: error: {says}\n"


def test_the_generator_is_seeded_and_each_scenario_stands_alone():
    """A seed gives the same scenarios, a larger count only adds some, another seed gives others;
    the families take turns and each scenario has the input fields the allocation harness reads."""
    first, more, other = generate.allocation(12, 5), generate.allocation(30, 5), generate.allocation(12, 6)
    assert first == more[:12] and first != other
    assert [s["strategy"] for s in first[:6]] == list(generate.FAMILIES)
    assert all(set(s) == {"id", "strategy", "params", "consumerGroup", "mqAll", "cidAll", "tags"} for s in more)
    assert len({s["id"] for s in more}) == 30 and more[7]["id"] == "gen5-AVG_BY_CIRCLE-0007"


@pytest.mark.parametrize("kind, draw", [("producer", generate.producer), ("grpc", generate.grpc)])
def test_the_producer_and_grpc_draws_are_seeded_and_in_the_harness_s_fields(kind, draw):
    """The generated checks' draws, taken under a seed: the same seed the same scenarios, another
    seed others; every family of the kind, each scenario with its family's input fields."""
    from pytest_rmq_conformance.record import grpc, producer

    inputs = {"producer": producer.INPUTS, "grpc": grpc.INPUTS}[kind]
    first, again, other = draw(30, 5), draw(30, 5), draw(30, 6)
    assert first == again and first != other
    assert {s["family"] for s in first} == set(inputs)
    assert all(set(s) == set(inputs[s["family"]]) for s in first)
    assert len({s["id"] for s in first}) == 30 and all(s["id"].startswith(f"gen5-{s['family']}-") for s in first)


def test_generate_and_scenarios_are_refused_together(tmp_path, capsys):
    (tmp_path / "mine.jsonl").write_text("{}\n")
    argv = ["golden", "record", "--release", "5.3.3", "--generate", "5", "--scenarios", str(tmp_path / "mine.jsonl"), "--out", str(tmp_path / "g")]
    assert cli.main(argv) == 2
    assert capsys.readouterr().err == "rmq-conformance: error: --generate draws the scenarios to ask: leave out --scenarios\n"

