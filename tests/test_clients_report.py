"""clients/report.py: clients/versions.toml drives it, a harness that says another client or
version is refused, and the committed report holds one table per kind with anchors of its own.
No network: the refusal runs the suite's own Python harness."""

from __future__ import annotations

import html
import json
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest
from browser import CHROMIUM, Layout, layout
from conftest import load_script, missing

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="clients/report.py reads TOML with tomllib (3.11)")


@pytest.fixture(scope="module")
def report():
    return load_script(ROOT / "clients" / "report.py", "clients_report")


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


def test_a_client_named_apart_from_its_package_is_judged_under_its_tables_name(report):
    """Two registries may hold a package of one name (npm and PyPI rocketmq): a table's ``package``
    is what its harness must say, its key the row the report shows."""
    harness = "exec:" + shlex.join([sys.executable, "-m", "pytest_rmq_conformance.harness", "AVG"])
    entry = {"harness": harness, "pinned": "0.1.0", "kinds": ["allocation"], "releases": ["4.9.8"], "package": "AVG"}
    (doc,) = report._run({"AVG (twin)": entry})
    assert [row["name"] for row in doc["implementations"]] == ["AVG (twin)"]
    assert report._run({"AVG (twin)": {**entry, "package": "BVG"}}) is None


def test_the_shipped_versions_toml_judges_pypi_rocketmq_apart_from_npm_rocketmq(report):
    clients = report.load_clients()
    assert clients["rocketmq"]["registry"] == "npm" and "package" not in clients["rocketmq"]
    assert clients["rocketmq (PyPI)"]["registry"] == "pypi" and clients["rocketmq (PyPI)"]["package"] == "rocketmq"
    shown = json.loads((ROOT / "docs" / "clients.json").read_text(encoding="utf-8"))
    rows = {row["name"]: table["kind"] for table in shown["tables"] for row in table["implementations"]}
    assert rows["rocketmq"] == rows["rocketmq (PyPI)"] == rows["rocketmq-python-cvs"] == "producer"


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
    assert shown[1] == report.showcase(committed["tables"], mix, committed["sort"], link="docs/clients.md"), (
        "run: python clients/report.py --readme README.md"
    )


def test_every_showcase_link_lands_on_an_anchor_of_the_report(report):
    committed = json.loads((ROOT / "docs" / "clients.json").read_text(encoding="utf-8"))
    mix = json.loads(report.MIX_SUMMARY.read_text(encoding="utf-8"))
    page = (ROOT / "docs" / "clients.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(#([\w-]+)\)", report.showcase(committed["tables"], mix, committed["sort"]))
    assert links and all(f'<a id="{anchor}"></a>' in page for anchor in links), links
    assert report.MIXING in links and report.SORT in links


NODE_EXAMPLE = ROOT / "examples" / "harness-node" / "harness.js"


@pytest.mark.cross_product
@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")
@pytest.mark.parametrize(
    ("broken", "agrees"), [("", True), ("--broken=codepoint-sort", False)], ids=["sound", "codepoint-sort"]
)
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


# -- the HTML page ---------------------------------------------------------------------------------


def _committed(report):
    committed = json.loads((ROOT / "docs" / "clients.json").read_text(encoding="utf-8"))
    mix = json.loads(report.MIX_SUMMARY.read_text(encoding="utf-8"))
    causes = report.causes_text(committed)
    return committed["tables"], causes, mix, committed["sort"], committed["counterRule"]


@pytest.fixture(scope="module")
def page():
    return (ROOT / "docs" / "clients.html").read_text(encoding="utf-8")


def test_the_committed_pages_are_what_the_committed_data_makes(report, page):
    """Both pages are made from one model: the committed JSON, the mixing summary and causes.md
    make them again byte for byte, so neither can gain or lose a section alone."""
    data = _committed(report)
    assert report.markdown(*data) == (ROOT / "docs" / "clients.md").read_text(encoding="utf-8")
    assert report.html(*data) == page, "run: tox -e clients"


def test_the_html_has_the_markdowns_sections_in_its_order_with_its_anchors(page):
    text = (ROOT / "docs" / "clients.md").read_text(encoding="utf-8")
    titles = re.findall(r"^## (.+)$", text, flags=re.M)
    assert titles[:2] == ["The 5.x gRPC clients' balancers", "Consumer queue allocation"]
    assert {"The rebalance sort", "Mixing with Java", "Why they differ"} <= set(titles)
    shown = [re.sub(r"<[^>]+>", "", title) for title in re.findall(r"<h2[^>]*>(.*?)</h2>", page)]
    assert [html.unescape(title) for title in shown] == titles
    anchors = re.findall(r'<a id="([^"]+)"></a>', text)
    assert {"d1", "producer-d1", "rebalance-sort", "mixing-with-java"} <= set(anchors)
    at = [page.find(f'id="{anchor}"') for anchor in anchors]
    assert -1 not in at, [anchor for anchor, where in zip(anchors, at) if where == -1]
    assert at == sorted(at), "the anchors are not in the Markdown's order"
    assert page.index("<table") < page.index('id="d1"')  # the showcase comes first, as in the Markdown
    for heading in re.findall(
        r"^#{2,3} (.+)$", (ROOT / "clients" / "causes.md").read_text(encoding="utf-8"), flags=re.M
    ):
        assert f">{html.escape(heading, quote=False)}</h" in page, heading


def test_every_link_of_the_readme_into_the_report_lands_in_the_html_too(page):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = set(re.findall(r"docs/clients\.md#([\w-]+)", readme))
    assert {"d1", "producer-d2", "rebalance-sort", "mixing-with-java"} <= links
    ids = set(re.findall(r'\sid="([^"]+)"', page))
    assert links <= ids, sorted(links - ids)
    internal = set(re.findall(r'href="#([^"]+)"', page))
    assert internal <= ids, sorted(internal - ids)


def test_the_committed_html_reads_on_a_phone(report, page):
    assert report.html_problems(page) == []
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert page.count("<table") == page.count('<div class="scroll') > 5


@pytest.mark.parametrize(
    ("broken", "problem"),
    [
        pytest.param(
            lambda page: page.replace('<meta name="viewport" content="width=device-width, initial-scale=1">', ""),
            'no <meta name="viewport"',
            id="no-viewport",
        ),
        pytest.param(
            lambda page: page.replace('<div class="scroll">', "<div>", 1),
            "table 1 is inside 'div.'",
            id="table-outside-a-scroll-box",
        ),
        pytest.param(
            lambda page: page.replace("</body>", "<section><table><tr><td>x</td></tr></table></section></body>"),
            "is inside 'section.'",
            id="survey-like-bare-table",
        ),
        pytest.param(lambda page: page.replace('id="d2"', 'id="d1"', 1), "id 'd1' is given twice", id="twice"),
    ],
)
def test_a_page_that_would_not_read_on_a_phone_is_told(report, page, broken, problem):
    problems = report.html_problems(broken(page))
    assert any(problem in line for line in problems), problems


CAUSES = """## Why they differ, 1 < 2

Read `a<b>` and **bold with `code` in it**, see [the matrix](matrix.md#d1).
A second line & more.

### some-client 1.0.2

- **First.** continued
  on an indented line with `x_y`.
- Second, AVG_BY_CIRCLE as is.

Closing paragraph.
"""


def test_the_causes_render_as_headings_paragraphs_lists_and_code_escaped(report):
    shown = report.prose_html(CAUSES, "causes.md")
    assert '<h2 id="why-they-differ-1--2">Why they differ, 1 &lt; 2</h2>' in shown
    assert '<h3 id="some-client-102">some-client 1.0.2</h3>' in shown
    assert (
        "<p>Read <code>a&lt;b&gt;</code> and <strong>bold with <code>code</code> in it</strong>, see "
        '<a href="matrix.md#d1">the matrix</a>. A second line &amp; more.</p>'
    ) in shown
    assert (
        "<ul><li><strong>First.</strong> continued on an indented line with <code>x_y</code>.</li>"
        "<li>Second, AVG_BY_CIRCLE as is.</li></ul>"
    ) in shown
    assert shown.endswith("<p>Closing paragraph.</p>")


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("| a | b |", "headings, paragraphs"),
        ("> quoted", "headings, paragraphs"),
        ("1. numbered", "headings, paragraphs"),
        ("```", "headings, paragraphs"),
        ("some *emphasis* here", "not *emphasis*"),
        ("a `code span", "does not close"),
        ("raw <b>html</b>", "raw HTML"),
    ],
)
def test_markdown_the_html_would_show_otherwise_is_refused_with_its_line(report, line, problem):
    with pytest.raises(SystemExit) as refused:
        report.prose_html(f"## Title\n\n{line}\n", "clients/causes.md")
    assert "clients/causes.md:3" in str(refused.value) and problem in str(refused.value)


def test_the_shipped_causes_render(report):
    committed = json.loads((ROOT / "docs" / "clients.json").read_text(encoding="utf-8"))
    shown = report.prose_html(report.causes_text(committed), "clients/causes.md")
    assert shown.count("<h3 ") == len(report.load_clients())


# -- the numbers of causes.md ------------------------------------------------------------------------

#: what causes.md may say in digits besides its placeholders: facts of the code it quotes, not counts
NOT_COUNTS = (
    r"\d+\.\d+(?:\.\d+)*(?:-beta)?",  # versions: 4.9.8, 2.1.0.3, 0.0.9-beta, 5.x is no digit run of its own
    r"2\^3[12](?:-1)?",  # the ends of Java's int
    r"SHA-256|SipHash-2-4|MD5|CRC-32|FNV-1a|(?:32|64)-bit|UTF-(?:8|16)|U\+[0-9A-F]{4}|RocketMQ [45]\b|2023",  # names, code points, and the copy's year
    r"\b(?:queue|id) 0\b|id is not 0|restarts at 0|0\.\.K-1|the 8 bytes|at 1\b|to 0\b|Its own start, 0",  # ids and values of the code
    r"\d\.x",
)


def _counting_numbers(template: str) -> list[str]:
    text = re.sub(r"`[^`]*`", "", template)  # code quoted from the clients
    text = re.sub(r"\{\{.*?\}\}", "", text, flags=re.S)
    text = re.sub("|".join(NOT_COUNTS), "", text)
    return [found[0] for found in re.finditer(r".{0,30}\d[\d,]*.{0,10}", text)]


def test_every_count_of_causes_md_is_written_from_the_data(report):
    """The prose of causes.md types no count: each is a placeholder clients/causes.py fills."""
    template = (ROOT / "clients" / "causes.md").read_text(encoding="utf-8")
    assert _counting_numbers(template) == []
    assert len(report.causes_numbers.PLACEHOLDER.findall(template)) > 50


@pytest.mark.parametrize("typed", ["154 of them differ", "2,759 calls", "(97 of them"])
def test_a_typed_count_is_found(typed):
    assert _counting_numbers(f"## A\n\nSome text, {typed} here.\n")


def test_the_causes_numbers_follow_the_data(report):
    """The filled text is the data's: change a count in the data and the sentence changes with it."""
    committed = json.loads((ROOT / "docs" / "clients.json").read_text(encoding="utf-8"))
    template = "ali-ons: {{ali-ons FAULT_STRATEGY 4.9.8 differ}} differ, {{ali-ons FAULT_STRATEGY 4.9.8 cause:counter-step}} by the step, {{ali-ons SELECTOR_HASH 4.9.8 calls:calls}} calls."
    cell = next(
        cell
        for table in committed["tables"]
        for row in table["implementations"]
        if row["name"] == "ali-ons"
        for cell in row["cells"]
        if (cell["family"], cell["release"]) == ("FAULT_STRATEGY", "4.9.8")
    )
    causes = next(row for row in committed["evidence"]["traceCauses"] if (row["client"], row["release"]) == ("ali-ons", "4.9.8"))
    calls = next(row for row in committed["evidence"]["selectorCalls"] if (row["client"], row["release"]) == ("ali-ons", "4.9.8"))
    wanted = f"ali-ons: {cell['golden']['differ']:,} differ, {causes['causes']['counter-step']:,} by the step, {calls['calls']['calls']:,} calls."
    assert report.causes_numbers.fill(template, committed) == wanted
    cell["golden"]["differ"] += 1000
    assert f"{cell['golden']['differ']:,} differ" in report.causes_numbers.fill(template, committed)


def test_the_causes_split_adds_up_to_the_tables(report):
    """Every diverging trace has one of the causes the prose names, so each split sums to its cell's
    count; and the prose's claim that no SELECTOR_HASH verdict is lost to the long lists it leaves
    holds while every case run differs."""
    committed = json.loads((ROOT / "docs" / "clients.json").read_text(encoding="utf-8"))
    cells = report.causes_numbers._cells(committed["tables"])
    assert committed["evidence"]["traceCauses"]
    for row in committed["evidence"]["traceCauses"]:
        cell = cells[(row["client"], "FAULT_STRATEGY", row["release"])]
        assert sum(row["causes"].values()) == cell["differ"], row
    for row in committed["evidence"]["selectorCalls"]:
        cell = cells[(row["client"], "SELECTOR_HASH", row["release"])]
        assert row["calls"]["run"] == cell["cases"] - cell["notRun"] - cell["notImplemented"] == cell["differ"], row


@pytest.mark.parametrize(
    "key", ["nobody FAULT_STRATEGY 4.9.8 differ", "ali-ons FAULT_STRATEGY 4.9.8 cause:moon", "ali-ons differ"]
)
def test_a_placeholder_that_names_nothing_stops_the_report(report, key):
    committed = json.loads((ROOT / "docs" / "clients.json").read_text(encoding="utf-8"))
    with pytest.raises(SystemExit) as refused:
        report.causes_numbers.fill(f"a {{{{{key}}}}} b", committed)
    assert key in str(refused.value)


@pytest.mark.parametrize(
    ("divergence", "case", "cause"),
    [
        ("Java threw ArithmeticException('/ by zero'); the strategy did not raise", "pub-FAULT_STRATEGY-0003-empty-route", "empty-route"),
        ("queue null, Java's A/2", "pub-FAULT_STRATEGY-0009-spec-example", "null-fallback"),
        ("queue broker-g/0, Java's broker-a/0", "pub-FAULT_STRATEGY-0400-counter-wrap", "counter-wrap"),
        ("stored counter 13, Java's 14: the next step differs", "pub-FAULT_STRATEGY-0001-spec-example", "counter-step"),
        ("queue B/0, Java's A/0", "pub-FAULT_STRATEGY-0013-round-robin", None),
    ],
)
def test_a_diverging_trace_gets_the_cause_its_first_divergence_shows(report, divergence, case, cause):
    record = {"divergence": divergence, "cause": None, "case": case}
    assert report.causes_numbers.cause_of(record) == cause


# -- the HTML page laid out by a real browser (skipped without one) ---------------------------------


def _layout(page: str, width: int, tmp_path: Path) -> Layout:
    (tmp_path / "page.html").write_text(page, encoding="utf-8")
    return layout(tmp_path / "page.html", width, tmp_path)


def _overflows(page: str, width: int, tmp_path: Path) -> list[str]:
    """What is wider than its room when ``page`` is laid out ``width`` CSS px wide: ``page`` when
    the page scrolls sideways, ``tableN`` when a table is wider than its box."""
    found = _layout(page, width, tmp_path)
    return ["page"] * found.scrolls + [table.name for table in found.tables if table.scrolls]


WIDE = '<div class="scroll"><table><tr><td style="min-width: 1500px">wide</td></tr></table></div>'


@pytest.mark.once  # a browser's layout: one Python answers for all
def test_at_1280_px_every_table_fits_and_at_390_px_only_the_boxes_scroll_each_saying_so(page, tmp_path):
    if CHROMIUM is None:
        missing("needs chromium (Debian: apt-get install chromium; .ci/run installs it)")
    assert _overflows(page, 1280, tmp_path) == []
    phone = _layout(page, 390, tmp_path)
    assert not phone.scrolls
    assert [table.name for table in phone.tables if table.scrolls and not table.cue] == []  # the survey's too
    assert sum(table.scrolls for table in phone.tables) > 5
    widened = page.replace("</body>", WIDE + "</body>")
    assert _overflows(widened, 1280, tmp_path) == [f"table{page.count('<table') + 1}"]
    bare = page.replace("</body>", WIDE.replace('<div class="scroll">', "<div>") + "</body>")
    assert "page" in _overflows(bare, 390, tmp_path)


def test_a_client_the_mixing_cannot_ask_is_named_with_its_reason_not_judged_unsafe(report):
    """PyPI rocketmq's send_orderly takes integer keys only: the mixing's names would all be answered
    notRun, which is no verdict on mixing it with Java."""
    listed = report.load_clients()
    assert listed["rocketmq (PyPI)"]["unmixed"] and listed["rocketmq-python-cvs"]["unmixed"]
    committed = (ROOT / "docs" / "clients.md").read_text(encoding="utf-8")
    mixing = committed.split('<a id="mixing-with-java"></a>', 1)[1].split("\n## ", 2)[1]
    assert "Not mixed: rocketmq (PyPI) 0.4.4 (send_orderly takes integer keys only" in mixing
    summary = json.loads((ROOT / "docs" / "mixing" / "summary.json").read_text(encoding="utf-8"))
    assert not any(v["client"].startswith(("rocketmq (PyPI)", "rocketmq-python-cvs")) for v in summary["verdicts"])
