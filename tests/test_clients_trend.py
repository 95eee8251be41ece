"""The trend of the real clients across versions (clients/trend.py), from committed runs: no
install, no network. tests/data/trend-runs.json is crafted: a divergence class that appears,
goes and comes back, a family a version does not serve, a case that changes class, a yanked
version, and versions that sort only as numbers (1.9.0 before 1.10.0)."""

import copy
import json
from pathlib import Path

import pytest
from conftest import load_script

ROOT = Path(__file__).resolve().parent.parent
RUNS = json.loads((ROOT / "tests" / "data" / "trend-runs.json").read_text(encoding="utf-8"))


def _load_trend():
    return load_script(ROOT / "clients" / "trend.py", "clients_trend")


trend = _load_trend()


@pytest.fixture(scope="module")
def doc():
    return trend.trend(RUNS)


def _family(doc, name):
    client = doc["clients"][0]
    return next(family for family in client["families"] if family["family"] == name)


def _step(family, to):
    return next(step for step in family["steps"] if step["to"] == to)


def test_rows_count_each_version_by_class(doc):
    rows = {row["version"]: row for row in _family(doc, "PUBLISH_ROUND_ROBIN")["rows"]}
    assert list(rows) == ["1.0.0", "1.2.0", "1.9.0", "1.10.0"]
    assert rows["1.0.0"] | {"classes": None} == {
        "version": "1.0.0",
        "served": True,
        "cases": 4,
        "passed": 2,
        "differ": 1,
        "classes": None,
        "notImplemented": 1,
        "notRun": 0,
    }
    assert rows["1.0.0"]["classes"]["wrong-queues"] == 1
    assert rows["1.2.0"]["classes"]["counter-drift"] == 1
    assert rows["1.10.0"]["differ"] == 2
    assert _family(doc, "GROUP_HASH")["rows"][0] == {"version": "1.0.0", "served": False}


def test_a_class_that_appears_disappears_and_comes_back(doc):
    history = {item["class"]: item["events"] for item in _family(doc, "PUBLISH_ROUND_ROBIN")["classes"]}
    assert history["wrong-queues"] == [
        {"version": "1.0.0", "event": "brought", "firstJudged": True},
        {"version": "1.2.0", "event": "removed"},
        {"version": "1.10.0", "event": "brought", "firstJudged": False},
    ]
    assert history["counter-drift"] == [
        {"version": "1.2.0", "event": "brought", "firstJudged": False},
        {"version": "1.9.0", "event": "removed"},
    ]
    assert history["error-behaviour"] == [
        {"version": "1.9.0", "event": "brought", "firstJudged": False},
        {"version": "1.10.0", "event": "removed"},
    ]
    assert "fault" not in history


def test_steps_name_the_cases_that_began_stopped_or_changed_class(doc):
    family = _family(doc, "PUBLISH_ROUND_ROBIN")
    first = _step(family, "1.2.0")
    assert first["from"] == "1.0.0"
    assert first["began"] == [{"class": "counter-drift", "count": 1, "cases": ["p-1"], "other": {"pass": 1}}]
    assert first["stopped"] == [{"class": "wrong-queues", "count": 1, "cases": ["p-2"], "other": {"pass": 1}}]
    assert first["moved"] == []
    # p-4 was not implemented in 1.0.0 and passes in 1.2.0: neither began nor stopped differing
    assert "p-4" not in json.dumps(first)
    last = _step(family, "1.10.0")
    assert last["began"] == [{"class": "wrong-queues", "count": 1, "cases": ["p-2"], "other": {"pass": 1}}]
    assert last["stopped"] == []
    assert last["moved"] == [{"from": "error-behaviour", "to": "wrong-queues", "count": 1, "cases": ["p-4"]}]


def test_a_family_a_version_does_not_serve(doc):
    family = _family(doc, "GROUP_HASH")
    assert _step(family, "1.2.0")["began"] == [
        {"class": "wrong-queues", "count": 1, "cases": ["g-2"], "other": {"not-served": 1}}
    ]
    assert _step(family, "1.9.0")["stopped"] == [
        {"class": "wrong-queues", "count": 1, "cases": ["g-2"], "other": {"pass": 1}}
    ]
    history = {item["class"]: item["events"] for item in family["classes"]}
    assert history["wrong-queues"][0] == {"version": "1.2.0", "event": "brought", "firstJudged": True}
    assert history["wrong-queues"][2]["version"] == "1.10.0"


def test_the_first_case_ids_only(doc):
    runs = copy.deepcopy(RUNS)
    last = runs["clients"][0]["versions"][-1]["families"]["GROUP_HASH"]
    last.update({f"g-{n:02d}": "wrong-queues" for n in range(3, 20)})
    began = _step(_family(trend.trend(runs), "GROUP_HASH"), "1.10.0")["began"][0]
    assert began["count"] == 19  # g-1, g-2 and the 17 new ones
    assert began["other"] == {"not-served": 17, "pass": 2}
    assert began["cases"] == ["g-03", "g-04", "g-05", "g-06", "g-07"]


def test_markdown_and_html_show_the_rows_steps_and_history(doc):
    markdown = trend.to_markdown(doc)
    assert "| 1.2.0 (yanked) | ≈ counter drift | 4 | 3 | 1 | 0 | 0 | 1 | 0 | 0 | 0 |" in markdown
    assert "| 1.0.0 | ○ not served |" in markdown
    assert (
        "- wrong queues: there since 1.0.0, the first version judged on it, removed by 1.2.0, back by 1.10.0"
        in markdown
    )
    assert "| 1.9.0 → 1.10.0 | 1 wrong queues: `p-2` | — | 1 error behaviour only → wrong queues: `p-4` |" in markdown
    assert "1 wrong queues (were: 1 not served): `g-2`" in markdown
    # the summary: a row per version, a cell per family
    assert "| version | GROUP_HASH | PUBLISH_ROUND_ROBIN |" in markdown
    assert "| 1.0.0 | ○ not served | ✗ 1 of 4 differ: 1 wrong queues (1 not run or not implemented) |" in markdown
    assert "| 1.9.0 | ✓ 0 of 2 differ | ! 1 of 4 differ: 1 error behaviour only |" in markdown
    page = trend.to_html(doc)
    assert page.startswith("<!DOCTYPE html>") and page.endswith("</html>\n")
    assert "<code>p-4</code>" in page and "1.2.0 <small>(yanked)</small>" in page
    assert "1970" not in markdown + page  # no clock time


def test_versions_out_of_order_are_refused():
    runs = copy.deepcopy(RUNS)
    versions = runs["clients"][0]["versions"]
    versions[2], versions[3] = versions[3], versions[2]  # 1.10.0 before 1.9.0
    with pytest.raises(trend.TrendError, match="crafted-client: versions must be oldest first"):
        trend.trend(runs)


def test_write_is_deterministic(tmp_path, doc):
    first = [path.read_bytes() for path in trend.write(doc, tmp_path / "a")]
    second = [path.read_bytes() for path in trend.write(trend.trend(RUNS), tmp_path / "b")]
    assert first == second
    assert json.loads(first[2]) == doc


def test_steps_where_nothing_changed_are_listed_apart():
    runs = copy.deepcopy(RUNS)
    versions = runs["clients"][0]["versions"]
    versions[2]["families"] = copy.deepcopy(versions[1]["families"])  # 1.9.0 answers as 1.2.0
    doc = trend.trend(runs)
    family = _family(doc, "PUBLISH_ROUND_ROBIN")
    assert _step(family, "1.9.0") | {"from": None} == {
        "from": None,
        "to": "1.9.0",
        "began": [],
        "stopped": [],
        "moved": [],
    }
    markdown = trend.to_markdown(doc)
    assert "| 1.2.0 → 1.9.0 |" not in markdown
    assert "At the other steps no case changed: 1.2.0 → 1.9.0." in markdown
    assert "At the other steps no case changed: 1.2.0 → 1.9.0." in trend.to_html(doc)


def test_a_version_that_serves_no_family_says_why(doc):
    client = doc["clients"][1]
    assert client["unserved"] == {"0.1.0": "crafted.js: unimportable-client 0.1.0 does not load: no dist/"}
    (family,) = client["families"]
    assert family["rows"][0] == {"version": "0.1.0", "served": False}
    assert family["classes"] == [
        {"class": "wrong-queues", "events": [{"version": "0.2.0", "event": "brought", "firstJudged": True}]}
    ]
    markdown = trend.to_markdown(doc)
    assert "- 0.1.0: crafted.js: unimportable-client 0.1.0 does not load: no dist/" in markdown
    assert "<li>0.1.0: crafted.js: unimportable-client 0.1.0 does not load: no dist/</li>" in trend.to_html(doc)


# -- checking the committed trend (--check, --sample) ----------------------------------------------

TABLES = {client["name"]: {"trend": [entry["version"] for entry in client["versions"]]} for client in RUNS["clients"]}


def _ran(picks):
    """The trend of the versions ``picks`` names per client, out of the crafted runs."""
    runs = copy.deepcopy(RUNS)
    runs["clients"] = [
        client | {"versions": [entry for entry in client["versions"] if entry["version"] in picks[client["name"]]]}
        for client in runs["clients"]
        if client["name"] in picks
    ]
    return trend.trend(runs)


def test_a_sample_picks_neighbouring_versions_of_each_client_by_its_seed():
    tables = {"a": {"trend": ["1", "2", "3", "4", "5"]}, "b": {"trend": ["9"]}, "c": {"pinned": "1"}}
    picks = {seed: trend.chosen(tables, seed=seed) for seed in range(40)}
    assert all(set(pick) == {"a", "b"} and pick["b"] == ["9"] for pick in picks.values())
    windows = {tuple(pick["a"]) for pick in picks.values()}
    assert windows == {("1", "2"), ("2", "3"), ("3", "4"), ("4", "5")}
    assert trend.chosen(tables, seed=3) == picks[3]  # the seed replays it
    assert trend.chosen(tables) == {"a": ["1", "2", "3", "4", "5"], "b": ["9"]}


@pytest.mark.parametrize(
    "picks",
    [
        {"crafted-client": ["1.2.0", "1.9.0"], "unimportable-client": ["0.1.0", "0.2.0"]},
        {"crafted-client": ["1.0.0", "1.2.0", "1.9.0", "1.10.0"]},
        {"unimportable-client": ["0.2.0"]},
    ],
    ids=["sample", "every-version", "one-version"],
)
def test_the_versions_that_ran_agree_with_the_trend_of_all_of_them(doc, picks):
    assert trend.differences(_ran(picks), doc, TABLES) == []


def test_a_row_or_a_step_that_moved_is_named_with_both_sides(doc):
    runs = copy.deepcopy(RUNS)
    runs["clients"][0]["versions"][2]["families"]["PUBLISH_ROUND_ROBIN"]["p-4"] = "pass"  # 1.9.0 mended a case
    committed = trend.trend(runs)
    found = trend.differences(_ran({"crafted-client": ["1.2.0", "1.9.0"]}), committed, TABLES)
    assert len(found) == 2, found
    assert found[0].startswith("crafted-client 1.9.0 PUBLISH_ROUND_ROBIN: the committed row is {")
    assert found[1].startswith("crafted-client 1.2.0 -> 1.9.0 PUBLISH_ROUND_ROBIN: the committed step is {")
    # the neighbours it did not run are not judged
    assert trend.differences(_ran({"crafted-client": ["1.0.0", "1.2.0"]}), committed, TABLES) == []


def test_a_stale_committed_trend_is_named(doc):
    tables = copy.deepcopy(TABLES)
    tables["crafted-client"]["trend"].append("1.11.0")
    found = trend.differences(_ran({"crafted-client": ["1.9.0", "1.10.0"]}), doc, tables)
    assert found == [
        "crafted-client: the committed trend has versions ['1.0.0', '1.2.0', '1.9.0', '1.10.0'], "
        "versions.toml ['1.0.0', '1.2.0', '1.9.0', '1.10.0', '1.11.0']"
    ]
    ran = _ran({"unimportable-client": ["0.1.0"]})
    ran["clients"][0]["unserved"]["0.1.0"] = "another reason"
    ran["clients"][0]["pinned"] = "0.1.0"
    assert [line.split(":")[1] for line in trend.differences(ran, doc, TABLES)] == [
        " pinned is '0.1.0', the committed trend says '0.2.0'",
        " serves nothing, saying 'another reason'; the committed trend says 'crafted.js",
    ]


def test_committed_pages_that_the_json_does_not_render_are_named(tmp_path, doc):
    trend.write(doc, tmp_path)
    assert trend.check(_ran({"crafted-client": ["1.0.0", "1.2.0"]}), tmp_path, TABLES) == []
    page = tmp_path / "clients-trend.md"
    page.write_text(page.read_text(encoding="utf-8").replace("1.9.0", "1.9.1"), encoding="utf-8")
    assert trend.check(_ran({"crafted-client": ["1.0.0", "1.2.0"]}), tmp_path, TABLES) == [
        f"{page}: not what {tmp_path / 'clients-trend.json'} renders"
    ]


def test_a_sample_without_check_is_refused(capsys):
    with pytest.raises(SystemExit) as exit_:
        trend.main(["--home", "h", "--sample", "3"])
    assert exit_.value.code == 2
    assert "--sample runs part of the trend, which can only be checked: add --check DIR" in capsys.readouterr().err


def test_a_version_that_does_not_install_is_a_row_saying_so_and_only_the_pin_stops_the_trend(monkeypatch, tmp_path):
    tables = {"c": {"registry": "go", "harness": "exec:x", "pinned": "v1.1.0", "releases": ["5.3.3"]}}
    failing = {"v1.0.0"}

    def install(name, registry, version, root, log):
        if version in failing:
            raise trend.TrendError(f"installing {name} {version} failed (x):\nclients/go/build.py: m@{version} does not build: e.go:1: undefined: x")
        return tmp_path

    monkeypatch.setattr(trend, "install", install)
    monkeypatch.setattr(trend, "replay", lambda spec, home, releases, log: ("v1.1.0", ["RocketMQ 5.3.3"], {"AVG": {"pub-AVG-0001-x": "passed"}}))
    runs = trend.collect(tables, tmp_path, lambda line: None, {"c": ["v1.0.0", "v1.1.0"]})
    first, pinned = runs["clients"][0]["versions"]
    assert first == {"version": "v1.0.0", "families": {}, "unserved": "does not install: clients/go/build.py: m@v1.0.0 does not build: e.go:1: undefined: x"}
    assert pinned["families"] == {"AVG": {"pub-AVG-0001-x": "passed"}}
    assert "- v1.0.0: does not install: clients/go/build.py: m@v1.0.0 does not build" in trend.to_markdown(trend.trend(runs))
    failing.add("v1.1.0")
    with pytest.raises(trend.TrendError, match=r"installing c v1\.1\.0 failed"):
        trend.collect(tables, tmp_path, lambda line: None, {"c": ["v1.0.0", "v1.1.0"]})
