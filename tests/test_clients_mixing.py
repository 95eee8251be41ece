"""clients/mixing.py: clients are mixed by what their harness serves (a new entry of
versions.toml needs no code), and what it writes carries no timing."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from conftest import load_script

pytest.importorskip("numpy", reason="the mix sweep counts with numpy: the sweep extra")

MIXING = Path(__file__).resolve().parent.parent / "clients" / "mixing.py"
HARNESS = f"exec:{sys.executable} -m pytest_rmq_conformance.harness"


@pytest.fixture
def mixing():
    return load_script(MIXING, "clients_mixing")


LISTED = {
    "consumer-and-keys": {
        "registry": "npm",
        "pinned": "1.2.3",
        "harness": f"{HARNESS} AVG CONSISTENT_HASH SELECTOR_HASH",
    },
    "groups-only": {"registry": "pypi", "pinned": "5.0.0", "harness": f"{HARNESS} GROUP_HASH PUBLISH_ROUND_ROBIN"},
    "nothing-to-mix": {"registry": "pypi", "pinned": "0.1", "harness": f"{HARNESS} PUBLISH_ROUND_ROBIN"},
}


def test_the_judged_clients_are_read_from_versions_toml(mixing):
    listed = mixing.clients()
    assert listed and all(entry["harness"].startswith("exec:") and entry["pinned"] for entry in listed.values())


def test_clients_are_mixed_by_the_families_their_harness_serves(mixing, capsys):
    consumer, producer, names = mixing._entries(LISTED)
    first, second = LISTED["consumer-and-keys"]["harness"], LISTED["groups-only"]["harness"]
    assert consumer == [(first, "AVG"), (first, "CONSISTENT_HASH")]
    assert producer == [(first, "SELECTOR_HASH"), (second, "GROUP_HASH")]
    assert names[first] == "consumer-and-keys 1.2.3"
    assert "nothing-to-mix: its harness serves nothing to mix with Java" in capsys.readouterr().err


@pytest.mark.heavy
@pytest.mark.once
@pytest.mark.skipif(importlib.util.find_spec("pyspark") is None, reason="the sweep runs on PySpark: the sweep extra")
def test_the_driver_writes_the_mixing_pages_without_timings(mixing, tmp_path, monkeypatch):
    from pytest_rmq_conformance.pipeline.allocation.space import SweepSpace
    from pytest_rmq_conformance.pipeline.message_groups.space import GroupSpace

    monkeypatch.setattr(mixing, "CONSUMER_SPACE", SweepSpace(queues=(1, 20), consumers=(1, 5), count=6))
    monkeypatch.setattr(mixing, "GROUP_SPACE", GroupSpace(groups=50, queues=(1, 4)))
    listed = {name: LISTED[name] for name in ("consumer-and-keys", "groups-only")}
    summary = mixing.run(tmp_path / "mixing", listed, say=lambda line: None)
    written = sorted(path.name for path in (tmp_path / "mixing").iterdir())
    assert written == ["mix_consumer.png", "mix_split.png", "report.html", "report.md", "summary.json", "table.md"]
    stored = json.loads((tmp_path / "mixing" / "summary.json").read_text())
    assert (
        stored == summary
        and stored["consumer"]["elapsed_seconds"] is None
        and stored["groups"]["elapsed_seconds"] is None
    )
    assert all(row["seconds"] is None for side in ("consumer", "groups") for row in stored[side]["rows"])
    assert [(v["strategy"], v["safe"]) for v in summary["verdicts"]] == [
        ("consumer-and-keys 1.2.3 [AVG]", True), ("consumer-and-keys 1.2.3 [CONSISTENT_HASH]", True),
        ("consumer-and-keys 1.2.3 [SELECTOR_HASH]", True), ("groups-only 5.0.0 [GROUP_HASH]", True),
    ]  # fmt: skip
    table = (tmp_path / "mixing" / "table.md").read_text()
    assert table == mixing.table_markdown(summary) and table.startswith(
        "| Strategy | Family | Side | Safe to mix with Java |"
    )
    assert "| groups-only 5.0.0 | GROUP_HASH | producer | yes | nothing | 0 of n = 200 |" in table
    report = (tmp_path / "mixing" / "report.md").read_text()
    assert " s." not in report.split("## The run")[1]  # no elapsed time
