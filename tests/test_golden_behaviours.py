"""Releases that answer alike are stored once, and the ports reproduce a release through the one
they model whose answers it gives.

Every release Maven Central serves is a run of the shipped vectors; the case files name one run
per behaviour (``sameAs`` in the manifest names the rest). Readers see every run, as recorded.
"""

import json
from functools import partial
from pathlib import Path

import pytest

from pytest_rmq_conformance.engine.golden.data import (
    GoldenDataError,
    compact_runs,
    expand_runs,
    load_golden,
    read_cases,
    shipped_dirs,
    shipped_releases,
    write_golden,
)
from pytest_rmq_conformance.engine.golden.modelled import NotModelled, modelled_release
from pytest_rmq_conformance.engine.kinds import reference_strategy
from pytest_rmq_conformance.kinds.allocation.replay import replay_case
from pytest_rmq_conformance.releases import DEFAULT_RELEASE, RELEASES

pytestmark = pytest.mark.once

#: the families whose Java answers at some release are none of the modelled releases', and where
#: (docs/releases.md shows the steps); every other family at every release is reproduced
NOT_MODELLED = {
    "MACHINE_ROOM": ["4.8.0", "4.9.0", "4.9.1", "4.9.2"],
    "FAULT_STRATEGY": [
        "4.8.0", "4.9.0", "4.9.1", "4.9.2", "4.9.3", "4.9.4", "4.9.5", "4.9.6", "5.0.0", "5.1.0", "5.1.1", "5.1.2", "5.1.3",
        "5.1.4",
    ],
    "SELECTOR_RANDOM": ["4.0.0", "4.1.0"],
}


def _shipped():
    for directory in shipped_dirs():
        manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
        for name in manifest["files"]:
            yield directory / name, manifest


def test_the_shipped_runs_are_every_release_and_client_version_maven_central_served():
    runs = [run for directory in shipped_dirs() for run in load_golden(directory, strategies=()).runs.values()]
    releases = sorted({run.rocketmq for run in runs if run.client is None})
    assert len(releases) == 35 and "4.0.0" in releases and "5.5.0" in releases
    assert sorted({run.client for run in runs if run.client is not None}) == [
        f"rocketmq-client-java {version}" for version in
        ("5.0.0", "5.0.2", "5.0.3", "5.0.4", "5.0.5", "5.0.6", "5.0.7", "5.0.8", "5.1.0", "5.2.0")
    ]
    assert all(run.maven is not None and run.commit is None for run in runs)


def test_the_default_release_is_the_newest_recorded():
    assert shipped_releases()[-1] == DEFAULT_RELEASE


@pytest.mark.parametrize("path", [path for path, _ in _shipped()], ids=lambda path: path.stem)
def test_each_family_stores_one_run_per_behaviour(path):
    """No two runs a file names answer every case alike: they would be one behaviour."""
    stored: dict[str, list[int | None]] = {}
    lines = path.read_text(encoding="utf-8").splitlines()
    for n, line in enumerate(lines):
        for index, group in enumerate(json.loads(line)["expect"]):
            for run in group["runs"]:
                stored.setdefault(run, [None] * len(lines))[n] = index
    seen = [tuple(answers) for answers in stored.values()]
    assert len(seen) == len(set(seen))


def test_every_release_of_a_family_is_reproduced_or_said_not_to_be():
    found: dict[str, list[str]] = {}
    for path, manifest in _shipped():
        family = path.stem
        for run in manifest["runs"].values():
            if run.get("client") is None and modelled_release(family, run["rocketmq"]) is None:
                found.setdefault(family, []).append(run["rocketmq"])
    assert {family: sorted(set(releases)) for family, releases in found.items()} == NOT_MODELLED


@pytest.mark.parametrize("family", ["AVG", "CONSISTENT_HASH", "MACHINE_ROOM"])
def test_a_port_asked_for_a_release_it_reproduces_through_another_gives_that_release_s_answers(family):
    golden = load_golden(strategies=[family])
    through: dict[tuple[str, str], object] = {}  # of the runs built through each release and charset, the oldest
    for run in golden.runs.values():
        modelled = modelled_release(family, run.rocketmq, run.default_charset)
        if run.rocketmq not in RELEASES and modelled is not None and any(run.id in case.runs for case in golden.cases):
            through.setdefault((modelled, run.default_charset), run)
    runs = list(through.values())
    assert runs
    for run in runs:
        for case in golden.cases:
            if run.id in case.runs:
                build = partial(reference_strategy, family, case.params_for(run), run.rocketmq)
                assert not replay_case(build, case, run.id), (case.id, run.id)


def test_a_port_asked_for_a_release_it_does_not_reproduce_refuses_saying_why():
    with pytest.raises(NotModelled, match=r"the built-in MACHINE_ROOM port reproduces RocketMQ 4\.7\.1, 4\.9\.8, 5\.3\.3, and Java's MACHINE_ROOM at 4\.9\.1 answers as none"):
        reference_strategy("MACHINE_ROOM", {"consumeridcs": ["a"]}, "4.9.1")


def test_a_charset_run_is_reproduced_through_the_4x_release_with_one():
    """4.8.0 under ISO-8859-1 hashes as 4.9.8 under it (5.x would read UTF-8)."""
    assert modelled_release("CONSISTENT_HASH", "4.8.0", "ISO-8859-1") == "4.9.8"
    assert modelled_release("CONSISTENT_HASH", "4.8.0") == "5.3.3"


RUNS = {
    "4.0.0": {"rocketmq": "4.0.0", "jdk": "j", "fileEncoding": "UTF-8", "defaultCharset": "UTF-8", "commit": "0" * 40},
    "4.1.0": {"rocketmq": "4.1.0", "jdk": "j", "fileEncoding": "UTF-8", "defaultCharset": "UTF-8", "commit": "1" * 40},
    "4.2.0": {"rocketmq": "4.2.0", "jdk": "j", "fileEncoding": "UTF-8", "defaultCharset": "UTF-8", "commit": "2" * 40},
}


def _config_case(n, groups):
    return {
        "id": f"t-CONFIG-{n:04d}-x", "strategy": "CONFIG", "params": {"messageQueueList": []}, "consumerGroup": "g",
        "mqAll": [["t", "b", 0]], "cidAll": ["c"], "category": "x", "flags": [],
        "javaSorted": {"mqAll": [0], "cidAll": [0]},
        "expect": [{"runs": runs, "results": [{"currentCID": "c", "queues": queues}]} for runs, queues in groups],
    }


def test_runs_that_answer_alike_are_stored_once_and_read_back_as_recorded(tmp_path):
    files = {"CONFIG": [
        _config_case(1, [(["4.0.0", "4.1.0", "4.2.0"], [0])]),
        _config_case(2, [(["4.0.0"], []), (["4.1.0", "4.2.0"], [0])]),
    ]}
    manifest = {"format": 1, "runs": RUNS, "files": {"CONFIG.jsonl": 2}, "sources": []}
    stored, compacted = compact_runs(manifest, files)
    assert stored["runs"]["4.1.0"]["sameAs"] == {"CONFIG": "4.2.0"}
    assert "sameAs" not in stored["runs"]["4.0.0"] and "sameAs" not in stored["runs"]["4.2.0"]
    assert [[group["runs"] for group in case["expect"]] for case in compacted["CONFIG"]] == [[["4.0.0", "4.2.0"]], [["4.0.0"], ["4.2.0"]]]
    assert [expand_runs(stored, "CONFIG", case["expect"]) for case in compacted["CONFIG"]] == [case["expect"] for case in files["CONFIG"]]
    write_golden(tmp_path / "g", manifest, files)
    assert list(read_cases(tmp_path / "g" / "CONFIG.jsonl")) == files["CONFIG"]
    golden = load_golden(tmp_path / "g")
    assert [case.runs for case in golden.cases] == [("4.0.0", "4.1.0", "4.2.0"), ("4.0.0", "4.1.0", "4.2.0")]


@pytest.mark.parametrize(
    "same, problem",
    [({"CONFIG": "4.9.9"}, "run '4.1.0' answers CONFIG as run '4.9.9', which the manifest does not list"),
     ({"CONFIG": "4.0.0"}, "run '4.1.0' answers CONFIG as run '4.0.0', which stores no answers of its own there")],
)
def test_a_same_as_that_names_no_stored_run_is_refused(tmp_path, same, problem):
    manifest = {"format": 1, "runs": {**RUNS, "4.0.0": {**RUNS["4.0.0"], "sameAs": {"CONFIG": "4.2.0"}},
                                      "4.1.0": {**RUNS["4.1.0"], "sameAs": same}},
                "files": {"CONFIG.jsonl": 1}, "sources": []}
    folder = tmp_path / "g"
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps(manifest))
    (folder / "CONFIG.jsonl").write_text(json.dumps(_config_case(1, [(["4.2.0"], [0])])) + "\n")
    with pytest.raises(GoldenDataError, match=problem.replace(".", r"\.").replace("(", r"\(")):
        load_golden(folder)


def test_the_readme_counts_the_shipped_vectors():
    """The README's table of kinds: each kind's cases and the releases (client versions) they hold."""
    from pytest_rmq_conformance.engine.resources import golden_dir

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    rows = {line.split(" | ")[0].lstrip("| "): line.split(" | ")[-1].rstrip(" |") for line in readme.splitlines() if line.startswith("| ")}

    def count(directory, family=None):
        golden = load_golden(directory, validate=False) if directory != golden_dir() else load_golden()
        cases = [case for case in golden.cases if family is None or case.strategy == family]
        return len(cases), len({run.client or run.rocketmq for run in golden.runs.values()})

    cases, releases = count(golden_dir())
    assert rows["consumer queue allocation"] == f"{cases:,} scenarios at {releases} releases"
    (traces, releases), (hashes, _), (randoms, _) = (count(golden_dir() / "producer", family) for family in ("FAULT_STRATEGY", "SELECTOR_HASH", "SELECTOR_RANDOM"))
    assert rows["producer queue selection"] == f"{traces:,} traces, {hashes:,} hash arguments, {randoms:,} random selectors at {releases} releases"
    cases, versions = count(golden_dir() / "grpc")
    assert rows["5.x gRPC balancers"] == f"{cases:,} cases at {versions} rocketmq-client-java versions"
