"""Building golden/ from Java harness output: round trip, de-duplication, refusals."""

import json

import pytest

from pytest_rmq_conformance.cli import main
from pytest_rmq_conformance.engine.golden.data import GoldenDataError, load_golden, read_cases
from pytest_rmq_conformance.engine.resources import golden_dir
from pytest_rmq_conformance.kinds.allocation.golden_import import import_harness

pytestmark = pytest.mark.once

REFERENCE = {
    "rocketmq": "5.3.3",
    "commit": "29d90a4ff96c04c094039685a6106870c58a7e40",
    "jdk": "OpenJDK Runtime Environment 17.0.15+6-Debian-1deb12u1",
    "fileEncoding": "UTF-8",
    "defaultCharset": "UTF-8",
}


def harness_records(directory, families=None):
    """Turn a golden directory (those of its ``families``, default all) back into harness files:
    {relative path: [record, ...]}."""
    manifest = json.loads((directory / "manifest.json").read_text())
    files = {}
    for path in sorted(directory.glob("*.jsonl")):
        if families is not None and path.stem not in families:
            continue
        for case in read_cases(path):
            mq_all, cid_all = case["mqAll"], case["cidAll"]
            sorted_ = case["javaSorted"]
            for group in case["expect"]:
                results = []
                for answer in group["results"]:
                    result = dict(answer)
                    if "queues" in result:
                        result["queues"] = [mq_all[q] if isinstance(q, int) else q for q in result["queues"]]
                    results.append(result)
                for run in group["runs"]:
                    reference = {key: value for key, value in manifest["runs"][run].items() if key != "sameAs"}
                    release, _, charset = run.partition("+")
                    name = case["strategy"] + (f".{charset}" if charset else "")
                    files.setdefault(f"{release}/{name}.jsonl", []).append(
                        {
                            "id": case["id"],
                            "strategy": case["strategy"],
                            "params": case["params"],
                            "consumerGroup": case["consumerGroup"],
                            "mqAll": mq_all,
                            "cidAll": cid_all,
                            "tags": [case["category"], *case["flags"]],
                            "reference": reference,
                            "results": results,
                            "javaSorted": {
                                "mqAll": sorted_["mqAll"]
                                if not isinstance(sorted_["mqAll"], list)
                                else [mq_all[i] for i in sorted_["mqAll"]],
                                "cidAll": sorted_["cidAll"]
                                if not isinstance(sorted_["cidAll"], list)
                                else [cid_all[i] for i in sorted_["cidAll"]],
                            },
                        }
                    )
    return files


def write_harness(root, files):
    for relative, records in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r) + "\n" for r in records))


def record(case_id="pub-AVG-0001-grid", results=None, reference=REFERENCE, **changes):
    data = {
        "id": case_id,
        "strategy": "AVG",
        "params": {},
        "consumerGroup": "g",
        "mqAll": [["t", "b", 1], ["t", "b", 0]],
        "cidAll": ["c2", "c1"],
        "tags": ["grid", "nq=2"],
        "reference": reference,
        "results": results or [{"currentCID": "c2", "queues": [["t", "b", 1]]}, {"currentCID": "c1", "queues": [["t", "b", 0]]}],
        "javaSorted": {"mqAll": [["t", "b", 0], ["t", "b", 1]], "cidAll": ["c1", "c2"]},
    }
    data.update(changes)
    return data


#: the families the round trip rebuilds, a fifth of the records: the machine room's three
#: behaviours, and releases (4.0.0 to 4.2.0) without the nearby strategy
ROUND_TRIP = ("CONFIG", "MACHINE_ROOM", "MACHINE_ROOM_NEARBY")


@pytest.mark.heavy
def test_round_trip_rebuilds_the_shipped_golden_byte_for_byte(tmp_path):
    write_harness(tmp_path / "harness", harness_records(golden_dir(), ROUND_TRIP))
    report = import_harness(tmp_path / "harness", tmp_path / "out")
    assert sum(report.records.values()) == (22 + 130) * 35 + 159 * 32  # 4.0.0 to 4.2.0 have no nearby strategy
    for family in ROUND_TRIP:
        assert (tmp_path / "out" / f"{family}.jsonl").read_bytes() == (golden_dir() / f"{family}.jsonl").read_bytes(), family
    shipped = json.loads((golden_dir() / "manifest.json").read_text())
    rebuilt = json.loads((tmp_path / "out" / "manifest.json").read_text())

    def runs(manifest):  # each run's provenance, and which run it answers as in the families rebuilt
        out = {}
        for run, data in manifest["runs"].items():
            same = {family: stored for family, stored in data.get("sameAs", {}).items() if family in ROUND_TRIP}
            out[run] = {key: value for key, value in data.items() if key != "sameAs"} | ({"sameAs": same} if same else {})
        return out

    assert runs(rebuilt) == {run: data for run, data in runs(shipped).items() if "+" not in run}
    assert rebuilt["files"] == {name: count for name, count in shipped["files"].items() if name[:-6] in ROUND_TRIP}

    def sources(manifest):  # variant file names (".latin1") are the harness's own choice
        found = [(s["run"], s["path"].split("/")[1].split(".")[0], s["lines"]) for s in manifest["sources"]]
        return sorted(source for source in found if source[1] in ROUND_TRIP)

    assert sources(rebuilt) == sources(shipped)


def test_runs_that_agree_share_one_group_and_others_get_their_own(tmp_path):
    other = {**REFERENCE, "rocketmq": "4.9.8", "commit": "2bdd53ef6694ffa19fd00db0b887e4895444f63e"}
    latin1 = {**other, "fileEncoding": "ISO-8859-1", "defaultCharset": "ISO-8859-1"}
    swapped = [{"currentCID": "c2", "queues": [["t", "b", 0]]}, {"currentCID": "c1", "queues": [["t", "b", 1]]}]
    write_harness(
        tmp_path / "h",
        {
            "5.3.3/AVG.jsonl": [record()],
            "4.9.8/AVG.jsonl": [record(reference=other)],
            "4.9.8/AVG.latin1.jsonl": [record(reference=latin1, results=swapped)],
        },
    )
    report = import_harness(tmp_path / "h", tmp_path / "g")
    case = json.loads((tmp_path / "g" / "AVG.jsonl").read_text())
    assert [group["runs"] for group in case["expect"]] == [["5.3.3"], ["4.9.8+ISO-8859-1"]]  # 4.9.8's sameAs: 5.3.3
    (case,) = read_cases(tmp_path / "g" / "AVG.jsonl")
    assert [group["runs"] for group in case["expect"]] == [["4.9.8", "5.3.3"], ["4.9.8+ISO-8859-1"]]
    assert case["expect"][0]["results"][0]["queues"] == [0]
    assert case["javaSorted"] == {"mqAll": [1, 0], "cidAll": [1, 0]}
    assert report.groups == 2 and report.merged_runs == 2
    golden = load_golden(tmp_path / "g")
    assert golden.runs["4.9.8+ISO-8859-1"].default_charset == "ISO-8859-1"


def test_queues_outside_mq_all_are_kept_whole(tmp_path):
    config = record(
        "pub-CONFIG-0001-list",
        strategy="CONFIG",
        params={"messageQueueList": [["x", "y", 9]]},
        results=[{"currentCID": "c2", "queues": [["x", "y", 9], ["t", "b", 0]]}, {"currentCID": None, "null": True}],
    )
    write_harness(tmp_path / "h", {"5.3.3/CONFIG.jsonl": [config]})
    import_harness(tmp_path / "h", tmp_path / "g")
    case = json.loads((tmp_path / "g" / "CONFIG.jsonl").read_text())
    assert case["expect"][0]["results"] == [
        {"currentCID": "c2", "queues": [["x", "y", 9], 1]},
        {"currentCID": None, "null": True},
    ]


def test_import_is_deterministic(tmp_path):
    write_harness(tmp_path / "h", {"5.3.3/AVG.jsonl": [record(), record("pub-AVG-0002-grid")]})
    import_harness(tmp_path / "h", tmp_path / "a")
    import_harness(tmp_path / "h", tmp_path / "b")
    for name in ("AVG.jsonl", "manifest.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


@pytest.mark.parametrize(
    "files, message",
    [
        ({"5.3.3/AVG.jsonl": ["{not json"]}, r"5.3.3/AVG.jsonl:1: not JSON"),
        ({"5.3.3/AVG.jsonl": [record(results=[{"currentCID": "c"}])]}, r"AVG.jsonl:1 \(case pub-AVG-0001-grid\): breaks schemas/harness-record"),
        ({"4.9.8/AVG.jsonl": [record()]}, r"reference.rocketmq 5.3.3 but the file is under 4.9.8/"),
        ({"5.3.3/AVG.jsonl": [record(), record()]}, r"AVG.jsonl:2 \(case pub-AVG-0001-grid\): case appears twice in run 5.3.3"),
        (
            {"5.3.3/AVG.jsonl": [record()], "5.3.3/AVG.x.jsonl": [record(cidAll=["c1", "c2"])]},
            r"AVG.x.jsonl:1 \(case pub-AVG-0001-grid\): (case appears twice|cidAll differs)",
        ),
        (
            {"5.3.3/AVG.jsonl": [record(javaSorted={"mqAll": [["t", "b", 7], ["t", "b", 1]], "cidAll": ["c1", "c2"]})]},
            r"case pub-AVG-0001-grid: javaSorted.mqAll: sorted list holds",
        ),
        ({}, r"no <release>/<STRATEGY>.jsonl harness files found"),
    ],
    ids=["json", "schema", "folder", "duplicate", "inputs-differ", "sorted", "empty"],
)
def test_bad_harness_output_is_refused_and_leaves_golden_alone(tmp_path, files, message):
    write_harness(tmp_path / "h", {k: [] for k in files})
    for relative, records in files.items():
        (tmp_path / "h" / relative).write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    (tmp_path / "h").mkdir(exist_ok=True)
    out = tmp_path / "g"
    out.mkdir()
    (out / "keep.jsonl").write_text("untouched\n")
    with pytest.raises(GoldenDataError, match=message):
        import_harness(tmp_path / "h", out)
    assert [p.name for p in out.iterdir()] == ["keep.jsonl"]


def test_cli_import_and_check(tmp_path, capsys):
    write_harness(tmp_path / "h", {"5.3.3/AVG.jsonl": [record()]})
    assert main(["golden", "import", str(tmp_path / "h"), "--out", str(tmp_path / "g")]) == 0
    assert "wrote 1 cases (AVG: 1)" in capsys.readouterr().out
    assert main(["golden", "check", str(tmp_path / "g")]) == 0
    assert "1 valid cases" in capsys.readouterr().out
    (tmp_path / "g" / "AVG.jsonl").write_text("{}\n")
    assert main(["golden", "check", str(tmp_path / "g")]) == 2
    assert "AVG.jsonl:1" in capsys.readouterr().err
