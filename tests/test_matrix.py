"""rmq-conformance matrix: cells per family and release, divergences classified by impact, and
what it writes (JSON valid against its schema, Markdown, HTML, badges); and the same
classification in the closing summary of a pytest run."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

from pytest_rmq_conformance.cli import main
from pytest_rmq_conformance.engine.divergence import ERROR_BEHAVIOUR, FAULT, WRONG_QUEUES, classify, worst
from pytest_rmq_conformance.engine.golden import Expected, JavaError
from pytest_rmq_conformance.engine.replay import Answer, Mismatch
from pytest_rmq_conformance.matrix.cells import build_matrix
from pytest_rmq_conformance.matrix.render import MatrixError, validate, write_matrix
from pytest_rmq_conformance.model import MessageQueue

PYTHON_HARNESS = f"exec:{sys.executable} -m pytest_rmq_conformance.harness"
QUEUE = MessageQueue("t", "b", 0)


def mismatch(caller, expected: Expected, answer: Answer) -> Mismatch:
    return Mismatch("case", "5.3.3", expected, answer, "differs")


@pytest.mark.parametrize(
    "caller, expected, answer, cls",
    [
        pytest.param("c1", Expected("c1", queues=(QUEUE,)), Answer(queues=()), WRONG_QUEUES, id="member-misses-a-queue"),
        pytest.param("c1", Expected("c1", queues=()), Answer(queues=(QUEUE,)), WRONG_QUEUES, id="member-gets-an-extra-queue"),
        pytest.param("c1", Expected("c1", queues=(QUEUE,)), Answer(exception=ValueError("x")), WRONG_QUEUES, id="member-raises"),
        pytest.param("c9", Expected("c9", queues=()), Answer(queues=(QUEUE,)), ERROR_BEHAVIOUR, id="non-member"),
        pytest.param(None, Expected(None, error=JavaError("java.lang.IllegalArgumentException", "x")), Answer(queues=()),
                     ERROR_BEHAVIOUR, id="null-caller-answered"),
        pytest.param("c1", Expected("c1"), Answer(queues=()), ERROR_BEHAVIOUR, id="java-null-member"),
        pytest.param("c1", Expected("c1", queues=(QUEUE,)), Answer(fault="hung"), FAULT, id="no-answer"),
    ],
)
def test_each_divergence_is_classified_by_its_impact(caller, expected, answer, cls):
    assert classify(mismatch(caller, expected, answer), ("c1", "c2")) == cls


def test_a_case_takes_its_worst_class():
    assert worst([ERROR_BEHAVIOUR, WRONG_QUEUES]) == WRONG_QUEUES
    assert worst([ERROR_BEHAVIOUR, FAULT]) == FAULT
    assert worst([]) is None


def cell(doc, implementation: int, family: str, release: str = "5.3.3"):
    (found,) = [c for c in doc["implementations"][implementation]["cells"] if (c["family"], c["release"]) == (family, release)]
    return found


@pytest.fixture(scope="module")
def matrix():
    """A reference port, a harness serving one family, a wrong-queues and an error-only miniature."""
    return build_matrix(
        ["AVG", f"{PYTHON_HARNESS} AVG", "miniatures:AvgRemainderToLast", "miniatures:AvgNoArgumentCheck"],
        ["5.3.3"],
        examples=5,
    )


def test_the_matrix_is_valid_and_has_a_row_per_implementation(matrix):
    validate(matrix)
    assert [row["spec"] for row in matrix["implementations"]] == ["AVG", f"{PYTHON_HARNESS} AVG", "miniatures:AvgRemainderToLast", "miniatures:AvgNoArgumentCheck"]
    assert all(len(row["cells"]) == 6 for row in matrix["implementations"])


def test_a_reference_port_passes_its_family_and_is_absent_from_the_others(matrix, golden):
    avg = cell(matrix, 0, "AVG")
    cases = sum(1 for case in golden.by_strategy("AVG") if "5.3.3" in case.runs)
    assert (avg["status"], avg["golden"]["passed"], avg["golden"]["cases"]) == ("pass", cases, cases)
    assert avg["generated"]["status"] == "reference"
    assert cell(matrix, 0, "CONFIG")["status"] == "absent"
    assert matrix["implementations"][0]["verdict"] == {"status": "pass", "cellsPassed": 1, "cellsRun": 1}


def test_a_harness_names_itself_and_its_missing_families_are_not_implemented(matrix):
    row = matrix["implementations"][1]
    assert row["name"] == "AVG" and row["language"].startswith("Python 3.")
    assert cell(matrix, 1, "AVG")["status"] == "pass"
    assert cell(matrix, 1, "AVG")["generated"]["status"] == "pass"
    assert {cell(matrix, 1, f)["status"] for f in ("AVG_BY_CIRCLE", "CONSISTENT_HASH", "CONFIG")} == {"not-implemented"}


def test_wrong_queues_and_error_behaviour_only_are_told_apart(matrix):
    wrong, errors_only = cell(matrix, 2, "AVG"), cell(matrix, 3, "AVG")
    assert (wrong["status"], wrong["impact"]) == ("differs", WRONG_QUEUES)
    assert wrong["golden"]["classes"][WRONG_QUEUES] > 0
    assert wrong["generated"]["class"] == WRONG_QUEUES
    assert (errors_only["status"], errors_only["impact"]) == ("differs", ERROR_BEHAVIOUR)
    assert errors_only["golden"]["classes"] == {WRONG_QUEUES: 0, FAULT: 0, ERROR_BEHAVIOUR: errors_only["golden"]["differ"]}
    first = wrong["firstDivergence"]
    assert first["check"] == "golden" and first["class"] == WRONG_QUEUES
    assert first["repro"] == (
        "pytest --rmq-strategy=miniatures:AvgRemainderToLast --rmq-reference-version=5.3.3 "
        f"--rmq-case={first['case']}"
    )
    verdicts = [row["verdict"]["status"] for row in matrix["implementations"]]
    assert verdicts == ["pass", "pass", WRONG_QUEUES, ERROR_BEHAVIOUR]


def test_a_crash_is_a_fault_and_the_matrix_completes(tmp_path, monkeypatch):
    (tmp_path / "crashing.py").write_text(
        "import os\nfrom pytest_rmq_conformance.strategies import AllocateMessageQueueAveragely\n\n"
        "class ExitsOnFourClients(AllocateMessageQueueAveragely):\n"
        "    def allocate(self, group, cid, mq_all, cid_all):\n"
        "        if cid_all is not None and len(cid_all) == 4:\n            os._exit(3)\n"
        "        return super().allocate(group, cid, mq_all, cid_all)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    doc = build_matrix(["crashing:ExitsOnFourClients"], ["5.3.3"], checks=["golden"], isolate=True)
    avg = cell(doc, 0, "AVG")
    assert avg["impact"] == FAULT
    assert avg["golden"]["classes"][FAULT] >= 1
    assert avg["golden"]["passed"] > 0  # the cases after the crash ran
    assert "exited with status 3" in avg["firstDivergence"]["summary"]


def test_a_spec_that_does_not_load_is_an_error_row(tmp_path):
    doc = build_matrix(["no_such_module:Nothing"], ["5.3.3"], checks=["golden"])
    row = doc["implementations"][0]
    assert row["verdict"]["status"] == "error"
    assert {c["status"] for c in row["cells"]} == {"error"}
    assert "no_such_module" in row["cells"][0]["reason"]
    write_matrix(doc, tmp_path)


def test_a_document_that_breaks_the_schema_is_refused(matrix):
    broken = json.loads(json.dumps(matrix))
    broken["implementations"][0]["cells"][0]["status"] = "fine"
    with pytest.raises(MatrixError, match=r"implementations/0/cells/0/status"):
        validate(broken)


class _Rows(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows = 0
        self.classes: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows += 1
        if tag == "td":
            self.classes.append(dict(attrs).get("class") or "")


def test_the_command_writes_json_markdown_html_and_badges(tmp_path, capsys):
    out = tmp_path / "m"
    code = main(["matrix", "AVG", "miniatures:AvgNoArgumentCheck", "--release", "5.3.3", "--checks", "golden", "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "AvgNoArgumentCheck unknown (Python" in printed and "error-behaviour" in printed
    doc = json.loads((out / "matrix.json").read_text())
    validate(doc)
    markdown = (out / "matrix.md").read_text()
    assert "| AVG (reference port) |" in markdown
    assert "cases differ: error behaviour only" in markdown
    assert "--rmq-case=pub-AVG-" in markdown
    page = _Rows()
    page.feed((out / "matrix.html").read_text())
    assert page.rows == 2 + 2  # two header rows, one per implementation
    assert "cell error-behaviour" in page.classes and "cell pass" in page.classes
    badges = sorted(p.name for p in (out / "badges").iterdir())
    assert badges == ["AVG-reference-port.svg", "AvgNoArgumentCheck.svg"]
    svg = ET.parse(out / "badges" / "AvgNoArgumentCheck.svg").getroot()
    assert "error behaviour only" in "".join(svg.itertext())


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--release", "9.9.9"], "--release 9.9.9: no golden vectors"),
        (["--checks", "golden,vibes"], "--checks vibes: not one of golden, generated"),
        (["--examples", "0"], "--examples must be at least 1"),
    ],
)
def test_bad_arguments_are_named(tmp_path, capsys, argv, says):
    assert main(["matrix", "AVG", "--out", str(tmp_path), *argv]) == 2
    assert says in capsys.readouterr().err


@pytest.mark.parametrize(
    "spec, says",
    [
        ("miniatures:AvgNoArgumentCheck", ["by impact: * error behaviour only", "only error behaviour differs: *"]),
        ("miniatures:AvgRemainderToLast", ["by impact: * wrong queues*"]),
    ],
)
def test_the_closing_summary_classifies_failing_cases(suite, spec, says):
    result = suite.runpytest("-p", "no:cacheprovider", f"--rmq-strategy={spec}", "--rmq-checks=golden")
    assert result.ret == 1
    result.stdout.fnmatch_lines(says)
