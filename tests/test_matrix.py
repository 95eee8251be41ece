"""rmq-conformance matrix: cells per family and release, divergences classified by impact, and
what it writes (JSON valid against its schema, Markdown, a self-contained HTML page, badges); and
the same classification in the closing summary of a pytest run."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

import pytest_rmq_conformance
from pytest_rmq_conformance.cli import main
from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.divergence import COUNTER_DRIFT, ERROR_BEHAVIOUR, FAULT, WRONG_QUEUES, worst
from pytest_rmq_conformance.engine.kinds import names
from pytest_rmq_conformance.kinds.allocation.cases import Expected, JavaError
from pytest_rmq_conformance.kinds.allocation.replay import Answer, Mismatch, classify
from pytest_rmq_conformance.matrix.cells import build_matrix, golden_runs
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
    # six consumer families; the other kinds' columns are left out, since no row is of them
    consumer = [family for family in names() if kinds.get(family).kind == "allocation"]
    assert all(len(row["cells"]) == len(consumer) == 6 for row in matrix["implementations"])
    assert matrix["families"] == consumer


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
    assert errors_only["golden"]["classes"] == {WRONG_QUEUES: 0, FAULT: 0, COUNTER_DRIFT: 0, ERROR_BEHAVIOUR: errors_only["golden"]["differ"]}
    first = wrong["firstDivergence"]
    assert first["check"] == "golden" and first["class"] == WRONG_QUEUES
    assert first["repro"] == (
        "pytest --rmq-strategy=miniatures:AvgRemainderToLast --rmq-reference-version=5.3.3 "
        f"--rmq-checks=golden --rmq-case={first['case']}"
    )
    verdicts = [row["verdict"]["status"] for row in matrix["implementations"]]
    assert verdicts == ["pass", "pass", WRONG_QUEUES, ERROR_BEHAVIOUR]


def test_a_crash_is_a_fault_and_the_matrix_completes(tmp_path, monkeypatch):
    (tmp_path / "crashing.py").write_text(
        "import os\nfrom pytest_rmq_conformance.ports.allocation import AllocateMessageQueueAveragely\n\n"
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
    # past its restarts the harness is given up: the cases left say so in every rendering
    not_run = avg["golden"]["notRun"]
    assert not_run > 0
    written = write_matrix(doc, tmp_path / "out")
    for kind in ("md", "html"):
        text = written[kind].read_text(encoding="utf-8")
        assert f"{not_run} not run" in text, kind
        assert "the harness kept failing and was given up" in text, kind  # its legend entry


def test_on_case_hears_every_golden_case_as_the_cell_counts_it():
    heard = []
    doc = build_matrix(
        ["miniatures:AvgRemainderToLast"], ["5.3.3"], checks=["golden"], on_case=lambda *args: heard.append(args)
    )
    avg = cell(doc, 0, "AVG")
    assert {(spec, release, family) for spec, release, family, _, _ in heard} == {
        ("miniatures:AvgRemainderToLast", "5.3.3", "AVG")
    }
    assert len({case for _, _, _, case, _ in heard}) == len(heard) == avg["golden"]["cases"]
    came_to = Counter(outcome for *_, outcome in heard)
    assert came_to["pass"] == avg["golden"]["passed"]
    assert {name: came_to[name] for name in avg["golden"]["classes"]} == avg["golden"]["classes"]
    assert came_to[WRONG_QUEUES] > 0
    assert (avg["firstDivergence"]["case"], avg["firstDivergence"]["class"]) in {
        (case, outcome) for *_, case, outcome in heard
    }


def test_two_implementations_of_one_name_get_badges_named_by_their_specs(tmp_path):
    doc = build_matrix(["AVG"], ["5.3.3"], checks=["golden"])
    first = doc["implementations"][0]
    doc["implementations"] = [{**first, "spec": "mystrat:Averagely", "name": "Averagely"},
                              {**first, "spec": "otherstrat:Averagely", "name": "Averagely"}]
    written = write_matrix(doc, tmp_path)
    assert written["badge:mystrat:Averagely"].name == "mystrat.Averagely.svg"
    assert written["badge:otherstrat:Averagely"].name == "otherstrat.Averagely.svg"


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


def test_the_command_finds_a_module_in_the_current_directory(tmp_path, capsys, monkeypatch):
    """As pytest and the sweep do: mine.py where the command runs loads, without PYTHONPATH."""
    (tmp_path / "mine.py").write_text(
        "from pytest_rmq_conformance.ports.allocation import AllocateMessageQueueAveragely\n\n"
        "class Averagely(AllocateMessageQueueAveragely):\n"
        "    def allocate(self, group, cid, mq_all, cid_all):\n"
        "        got = super().allocate(group, cid, mq_all, cid_all)\n"
        "        return got[1:] if len(got) > 1 else got\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    # the module it loads must not outlive the test: an in-process pytester run later in this
    # worker would import this `mine` instead of its own (seen: "mine has no attribute DiesUnderSeed2")
    monkeypatch.setitem(sys.modules, "mine", None)
    monkeypatch.delitem(sys.modules, "mine")
    assert main(["matrix", "mine:Averagely", "--release", "5.3.3", "--checks", "golden", "--out", "m", "--quiet"]) == 0
    row = json.loads((tmp_path / "m" / "matrix.json").read_text())["implementations"][0]
    assert row["verdict"]["status"] == "wrong-queues" and row["verdict"]["cellsRun"] == 1, row
    assert "Averagely" in capsys.readouterr().out


@pytest.mark.parametrize(
    "spec, says",
    [
        ("AVGG", "AVGG: no such strategy (did you mean AVG?)"),
        ("no_such_module:Nothing", "no module named 'no_such_module'"),
    ],
)
def test_a_spec_that_cannot_be_loaded_is_a_usage_error(tmp_path, capsys, spec, says):
    assert main(["matrix", "AVG", spec, "--release", "5.3.3", "--out", str(tmp_path / "m")]) == 2
    assert says in capsys.readouterr().err
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--release", "4.9.7"], "--release 4.9.7: no golden vectors for RocketMQ 4.9.7"),
        (["--release", "9.9.9"], "--release 9.9.9: RocketMQ release must look like"),
        (["--checks", "golden,vibes"], "--checks vibes: not one of golden, generated"),
        (["--examples", "0"], "--examples must be at least 1"),
    ],
)
def test_bad_arguments_are_named(tmp_path, capsys, argv, says):
    assert main(["matrix", "AVG", "--out", str(tmp_path), *argv]) == 2
    assert says in capsys.readouterr().err


@pytest.mark.cross_product
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


class _Page(HTMLParser):
    """What the checks of the page need: each cell's kind and text, the legend's text, every
    tag with its attributes, the text of each ``<pre>``'s code, the release headers, the style."""

    def __init__(self, text: str):
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.cells: list[tuple[str, str]] = []  # (kind, text)
        self.who: list[str] = []
        self.headers: list[str] = []
        self.legend = ""
        self.reruns: list[str] = []
        self.verdict_svgs = 0
        self.style = ""
        self._open: list[tuple[str, dict[str, str | None]]] = []
        self._text: dict[int, list[str]] = {}
        self.feed(text)
        self.close()

    def _inside(self, tag: str, cls: str | None = None) -> bool:
        return any(t == tag and (cls is None or cls in (a.get("class") or "").split()) for t, a in self._open)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if tag == "svg" and self._inside("td", "verdict"):
            self.verdict_svgs += 1
        if tag not in ("meta", "br", "rect", "img", "link", "input"):
            self._open.append((tag, attributes))
            self._text[len(self._open)] = []

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if not self._open or self._open[-1][0] != tag:
            return
        text = "".join(self._text.pop(len(self._open)))
        _, attributes = self._open.pop()
        if self._open:
            self._text[len(self._open)].append(text)
        classes = (attributes.get("class") or "").split()
        if tag == "td" and "cell" in classes:
            self.cells.append((classes[1], text))
        elif tag == "td" and "who" in classes:
            self.who.append(text)
        elif tag == "th":
            self.headers.append(text)
        elif tag == "ul" and "legend" in classes:
            self.legend = text
        elif tag == "code" and self._inside("pre"):
            self.reruns.append(text)
        elif tag == "style":
            self.style += text

    def handle_data(self, data):
        if self._open:
            self._text[len(self._open)].append(data)

    def rule(self, selector: str) -> str:
        """The declarations of the style rule for ``selector``."""
        found = re.search(r"(?:^|})\s*" + re.escape(selector) + r"\s*\{([^}]*)\}", self.style)
        return found.group(1) if found else ""


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """``rmq-conformance matrix`` run as a user runs it: a reference port, the built-in harness
    serving AVG and a wrong-queues miniature, at 5.3.3; the output directory."""
    out = tmp_path_factory.mktemp("matrix")
    tests = str(Path(__file__).parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [tests, os.environ.get("PYTHONPATH")]))}
    command = [
        sys.executable, "-c", "import sys; from pytest_rmq_conformance.cli import main; sys.exit(main(sys.argv[1:]))",
        "matrix", "AVG", f"{PYTHON_HARNESS} AVG", "miniatures:AvgRemainderToLast",
        "--release", "5.3.3", "--examples", "2", "--out", str(out),
    ]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="module")
def page(written):
    return _Page((written / "matrix.html").read_text(encoding="utf-8"))


def test_every_mark_in_a_cell_is_in_the_legend(page, written):
    kinds = {kind for kind, _ in page.cells}
    assert {"pass", WRONG_QUEUES, "not-implemented", "absent"} <= kinds  # what this matrix must show
    plain = set("().,:#/-")
    marks = {char for _, text in page.cells for char in text if not (char.isalnum() or char.isspace() or char in plain)}
    assert "—" in marks
    assert marks <= set(page.legend), f"not in the legend: {sorted(marks - set(page.legend))}"
    legend_kinds = {attributes["class"].split()[1] for tag, attributes in page.tags
                    if tag == "span" and (attributes.get("class") or "").startswith("chip ")}
    assert kinds <= legend_kinds
    markdown = (written / "matrix.md").read_text(encoding="utf-8")
    table, legend = markdown.split("| mark | meaning |")
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line][1:]
    shown = {char for line in rows for char in line.split(" | ", 4)[4] if not (char.isalnum() or char.isspace() or char in plain | set("|[]"))}
    assert "—" in shown and shown <= set(legend)


def test_the_page_loads_nothing_from_elsewhere(page):
    loads = [(tag, name, value) for tag, attributes in page.tags for name, value in attributes.items()
             if name in ("src", "srcset", "data", "poster", "background", "xlink:href", "action")
             or (name == "href" and tag != "a")]
    assert loads == []
    links = [attributes["href"] for tag, attributes in page.tags if tag == "a" and attributes.get("href")]
    assert all(href.startswith(("#", "https://", "http://")) for href in links), links  # anchors and homepages only
    assert "url(" not in page.style and "@import" not in page.style
    assert page.verdict_svgs == 3  # each badge inline, in its row


def test_each_rerun_line_is_one_unwrapped_selectable_line(page, written):
    doc = json.loads((written / "matrix.json").read_text())
    repros = [c["firstDivergence"]["repro"] for row in doc["implementations"] for c in row["cells"] if c["firstDivergence"]]
    assert repros and all(repro and "\n" not in repro for repro in repros)
    assert page.reruns == repros  # each in a <pre><code>, in the order of the cells
    assert "white-space: pre" in page.rule(".rerun pre") and "overflow-x: auto" in page.rule(".rerun pre")
    assert "white-space: pre" in page.rule(".rerun code") and "user-select: all" in page.rule(".rerun code")
    assert "overflow-x: auto" in page.rule(".scroll")  # the table scrolls in its box, not the page
    assert any(tag == "meta" and attributes.get("name") == "viewport" for tag, attributes in page.tags)


def test_the_release_shown_is_the_rocketmq_release_of_the_golden_runs(page, written, golden):
    releases = page.headers[2 + 6:]  # implementation, verdict, six families, then one column each
    assert releases == ["RocketMQ 5.3.3"] * 6
    assert "RocketMQ 5.3.3" in page.who[0] and pytest_rmq_conformance.__version__ not in page.who[0]
    doc = json.loads((written / "matrix.json").read_text())
    assert doc["implementations"][0]["version"] == "RocketMQ 5.3.3"
    (run,) = [run for run in golden.runs.values() if run.rocketmq == "5.3.3"]
    assert doc["goldenRuns"] == [{"run": run.id, "rocketmq": "5.3.3", "jdk": run.jdk, "fileEncoding": "UTF-8",
                                  "defaultCharset": "UTF-8", "maven": "org.apache.rocketmq:rocketmq-client:5.3.3"}]
    text = (written / "matrix.html").read_text(encoding="utf-8")
    assert "RocketMQ 5.3.3 from org.apache.rocketmq:rocketmq-client:5.3.3" in text


def test_a_kind_gets_columns_only_when_some_implementation_is_of_it():
    producer = build_matrix(["SELECTOR_HASH"], ["5.3.3"], checks=["golden"])
    assert producer["families"] == ["FAULT_STRATEGY", "SELECTOR_HASH", "SELECTOR_RANDOM"]
    assert [cell["status"] for cell in producer["implementations"][0]["cells"]] == ["absent", "pass", "absent"]
    both = build_matrix(["SELECTOR_HASH", "CONFIG"], ["5.3.3"], checks=["golden"])
    assert both["families"] == [family for family in names() if kinds.get(family).kind in ("allocation", "producer")]


def test_a_reference_port_at_several_releases_names_each(tmp_path):
    doc = build_matrix(["AVG"], ["4.9.8", "5.3.3"], checks=["golden"])
    assert doc["implementations"][0]["version"] == "RocketMQ 4.9.8, 5.3.3"
    assert [run["run"] for run in doc["goldenRuns"]] == ["4.9.8", "4.9.8+ISO-8859-1", "5.3.3"]
    write_matrix(doc, tmp_path)
    text = (tmp_path / "matrix.html").read_text(encoding="utf-8")
    assert "<th" in text and text.count(">RocketMQ 4.9.8</th>") == 1 and "default charset ISO-8859-1" in text


def test_a_grpc_run_filed_under_one_release_is_named_under_each_5x_column_it_answers_at():
    """The gRPC client is versioned apart from RocketMQ: its newest version answers at every 5.x
    release, and the column of each names it; a 4.x column has no gRPC run."""
    runs = golden_runs(["4.9.8", "5.3.3", "5.5.0"], ["GROUP_HASH"])
    assert [(run["rocketmq"], run["run"]) for run in runs] == [("5.3.3", "5.3.3+java-5.2.0"), ("5.5.0", "5.3.3+java-5.2.0")]


def test_a_grpc_reference_port_is_shown_by_the_java_client_its_vectors_come_from(tmp_path):
    """The gRPC vectors are rocketmq-client-java's versions, filed under RocketMQ 5.3.3 (the newest shown):
    the port's version, the progress line and the words above the table name that client."""
    lines: list[str] = []
    doc = build_matrix(["SUBSCRIBE_ROUND_ROBIN", "AVG"], ["5.3.3"], checks=["golden"], progress=lines.append)
    assert [row["version"] for row in doc["implementations"]] == ["rocketmq-client-java 5.2.0", "RocketMQ 5.3.3"]
    assert lines == ["SUBSCRIBE_ROUND_ROBIN (reference port) at rocketmq-client-java 5.2.0, with RocketMQ 5.3.3: "
                     "SUBSCRIBE_ROUND_ROBIN pass", "AVG (reference port) at RocketMQ 5.3.3: AVG pass"]
    write_matrix(doc, tmp_path)
    text = (tmp_path / "matrix.md").read_text(encoding="utf-8")
    assert "Compared with the golden vectors of the Java client of RocketMQ 5.3.3 and rocketmq-client-java 5.2.0." in text
    grpc_only = build_matrix(["GROUP_HASH"], ["5.3.3"], checks=["golden"])
    write_matrix(grpc_only, tmp_path)
    assert "Compared with the golden vectors of rocketmq-client-java 5.2.0." in (tmp_path / "matrix.md").read_text(encoding="utf-8")
