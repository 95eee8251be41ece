"""clients/report.py: clients/versions.toml drives it, a harness that says another client or
version is refused, and the committed report holds one table per kind with anchors of its own.
No network: the refusal runs the suite's own Python harness."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="clients/report.py reads TOML with tomllib (3.11)")


@pytest.fixture(scope="module")
def report():
    spec = importlib.util.spec_from_file_location("clients_report", ROOT / "clients" / "report.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ENTRY = 'registry = "npm"\npinned = "1.0.0"\nharness = "exec:node x.js"\n'


@pytest.mark.parametrize(
    "text, problem",
    [
        pytest.param(ENTRY + 'kinds = ["producer"]\n', "[my-client] needs releases", id="no-releases"),
        pytest.param(ENTRY + 'kinds = []\nreleases = ["4.9.8"]\n', "[my-client] needs kinds", id="no-kinds"),
        pytest.param(ENTRY + 'kinds = ["queues"]\nreleases = ["4.9.8"]\n', "kinds ['queues']", id="unknown-kind"),
    ],
)
def test_versions_toml_needs_what_the_report_reads(report, tmp_path, text, problem):
    path = tmp_path / "versions.toml"
    path.write_text("[my-client]\n" + text, encoding="utf-8")
    with pytest.raises(SystemExit) as refused:
        report.load_clients(path)
    assert str(path) in str(refused.value) and problem in str(refused.value)


def test_the_shipped_versions_toml_loads(report):
    clients = report.load_clients()
    assert clients["ali-ons"]["kinds"] == ["allocation", "producer"]
    assert all(entry["releases"] for entry in clients.values())


def test_a_harness_that_says_another_client_is_refused(report, capsys):
    harness = "exec:" + shlex.join([sys.executable, "-m", "pytest_rmq_conformance.harness", "AVG"])
    clients = {"my-client": {"harness": harness, "pinned": "1.0.0", "kinds": ["allocation"], "releases": ["4.9.8"]}}
    assert report._run(clients) is None
    assert "not my-client 1.0.0 as clients/versions.toml pins" in capsys.readouterr().err


def test_the_committed_report_has_one_table_per_kind(report):
    shown = json.loads((ROOT / "docs" / "clients.json").read_text(encoding="utf-8"))
    assert shown["title"] == report.TITLE
    kinds = [table["kind"] for table in shown["tables"]]
    assert kinds == [kind for kind in report.KIND_TITLES if kind in kinds] and len(set(kinds)) == len(kinds)
    for table in shown["tables"]:
        for row in table["implementations"]:
            assert {cell["family"] for cell in row["cells"]} <= set(table["families"])
    text = (ROOT / "docs" / "clients.md").read_text(encoding="utf-8")
    anchors = re.findall(r'<a id="([^"]+)"></a>', text)
    assert len(anchors) == len(set(anchors))
    assert set(re.findall(r"\]\(#([^)]+)\)", text)) == set(anchors)


def test_the_readmes_clients_table_is_the_committed_reports(report):
    """The README's showcase is what the report's committed JSON and the mixing summary make of it,
    each cell linking into docs/clients.md: a client or a count cannot change in one alone."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = re.search(r"<!-- clients:start[^>]*-->\n(.*)<!-- clients:end -->", readme, flags=re.S)
    assert shown is not None, "README.md has no clients:start / clients:end markers"
    committed = json.loads((ROOT / "docs" / "clients.json").read_text(encoding="utf-8"))
    mix = json.loads(report.MIX_SUMMARY.read_text(encoding="utf-8"))
    assert shown[1] == report.showcase(committed["tables"], mix, committed["sort"], link="docs/clients.md"), "run: python clients/report.py --readme README.md"


def test_every_showcase_link_lands_on_an_anchor_of_the_report(report):
    committed = json.loads((ROOT / "docs" / "clients.json").read_text(encoding="utf-8"))
    mix = json.loads(report.MIX_SUMMARY.read_text(encoding="utf-8"))
    page = (ROOT / "docs" / "clients.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(#([\w-]+)\)", report.showcase(committed["tables"], mix, committed["sort"]))
    assert links and all(f'<a id="{anchor}"></a>' in page for anchor in links), links
    assert report.MIXING in links and report.SORT in links


NODE_EXAMPLE = ROOT / "examples" / "harness-node" / "harness.js"


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")
@pytest.mark.parametrize(("broken", "agrees"), [("", True), ("--broken=codepoint-sort", False)], ids=["sound", "codepoint-sort"])
def test_the_sort_check_of_an_allocation_client_passes_a_sound_sort_and_names_a_wrong_one(report, broken, agrees):
    harness = "exec:" + shlex.join(["node", str(NODE_EXAMPLE), *([broken] if broken else [])])
    clients = {"example": {"harness": harness, "pinned": "1", "kinds": ["allocation"], "releases": ["4.9.8"]}}
    (row,) = report.sort_checks(clients)
    assert (row["client"], row["release"]) == ("example", "4.9.8")
    assert row["golden"]["lists"] > 300
    assert (row["golden"]["differ"] == 0 and row["generated"]["passed"]) is agrees
    assert (row["first"] is None) is agrees
    if not agrees:
        assert "the orders part at position" in row["first"]["divergence"]
        assert "--rmq-checks=sort --rmq-case=pub-AVG-" in row["first"]["rerun"]


def test_a_client_of_another_kind_has_no_sort_row(report):
    clients = {"grpc-only": {"harness": "exec:false", "pinned": "1", "kinds": ["grpc"], "releases": ["5.3.3"]}}
    assert report.sort_checks(clients) == []
