"""clients/survey.toml and its renderer: the data holds its rules, every entry reaches the page,
and a broken entry or a moved registry is named (no network: the registries are stand-ins)."""

import io
import json
import os
import sys
from pathlib import Path

import pytest
from conftest import load_script

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest brings tomli to 3.10
    import tomli as tomllib

CLIENTS = Path(__file__).resolve().parent.parent / "clients"
survey = load_script(CLIENTS / "survey.py", "rmq_clients_survey")

TEXT = (CLIENTS / "survey.toml").read_text(encoding="utf-8")
PACKAGES = tomllib.loads(TEXT)["package"]
TITLE = "Every npm and PyPI package named for RocketMQ, and the Apache RocketMQ Go clients"


def test_the_committed_survey_holds_its_rules_and_agrees_with_versions_toml():
    data = survey.load()
    assert len(data["package"]) == len(PACKAGES) >= 30
    assert {p["registry"] for p in PACKAGES} == set(survey.REGISTRIES) == {"npm", "pypi", "go"}


def test_every_name_of_the_survey_is_named_for_rocketmq_or_says_so_in_its_summary():
    for p in PACKAGES:
        assert (
            survey.NAMED.search(p["name"])
            or "rocketmq" in (p["summary"] + p["delegates"]).lower()
            or p["name"] in {"ali-ons", "@aliyunmq/mq-http-sdk"}
        ), p["name"]


@pytest.mark.parametrize("render", ["to_markdown", "to_html"])
def test_rendering_lists_every_entry_once_with_its_version_and_verdict(render):
    page = getattr(survey, render)()
    for p in PACKAGES:
        if render == "to_markdown":
            row = f"| {p['registry']} | `{p['name']}` | {p['version']} |"
        else:
            row = (
                f"<td>{p['registry']}</td><td><code>{survey.html.escape(p['name'])}</code></td><td>{p['version']}</td>"
            )
        assert page.count(row) == 1, row
    if render == "to_markdown":
        rows = [line for line in page.splitlines() if line.startswith(("| npm | `", "| pypi | `", "| go | `"))]
        assert len(rows) == len(PACKAGES)
        judged = [row for row in rows if "| yes |" in row]
        assert len(judged) == sum(p["judged"] for p in PACKAGES)
        assert page.startswith(f"## {TITLE}\n")
    else:
        assert page.startswith(f'<section id="survey">\n<h2>{TITLE}</h2>\n')


def test_rendering_counts_packages_per_registry_and_says_how_each_was_enumerated():
    page, html = survey.to_markdown(), survey.to_html()
    head = tomllib.loads(TEXT)["survey"]
    for registry, named in (("npm", "npm"), ("pypi", "PyPI"), ("go", "the Go module proxy")):
        mine = [p for p in PACKAGES if p["registry"] == registry]
        assert mine, registry
        total, own, judged = len(mine), sum(bool(p["balances"]) for p in mine), sum(p["judged"] for p in mine)
        assert f"| {registry} | {total} | {own} | {judged} |" in page
        assert (
            f'<tr><td>{registry}</td><td class="r">{total}</td><td class="r">{own}</td><td class="r">{judged}</td></tr>'
            in html
        )
        said = f"How {named} was enumerated: {' '.join(head[registry].split())}"
        assert f"\n{said}\n" in page and f"<p>{survey.html.escape(said)}</p>" in html
    asks = "again and prints what moved."
    assert f"`python clients/survey.py --refresh` asks npm, PyPI and the Go module proxy {asks}" in page
    assert f"<code>python clients/survey.py --refresh</code> asks npm, PyPI and the Go module proxy {asks}" in html


def test_the_go_text_says_which_modules_are_listed_and_that_others_are_not():
    said = " ".join(tomllib.loads(TEXT)["survey"]["go"].split())
    go = [p["name"] for p in PACKAGES if p["registry"] == "go"]
    assert sorted(go) == ["github.com/apache/rocketmq-client-go/v2", "github.com/apache/rocketmq-clients/golang/v5"]
    assert all(name in said for name in go)
    assert "no search" in said and "not enumerated" in said


def _broken(tmp_path, old, new, versions=None):
    assert old in TEXT, old
    path = tmp_path / "survey.toml"
    path.write_text(TEXT.replace(old, new, 1), encoding="utf-8")
    return lambda: survey.load(path, versions=versions if versions is not None else survey.VERSIONS)


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        (
            'balances = ["AVG", "FAULT_STRATEGY"]',
            'balances = ["AVERAGE"]',
            "balances names no family of the suite: AVERAGE",
        ),
        (
            'judged = true\nwhy = "the official 5.x Node.js client',
            'judged = "yes"\nwhy = "the official 5.x Node.js client',
            "judged must be a bool",
        ),
        (
            'judged = true\nwhy = "the official 5.x Node.js client',
            'judged = false\nwhy = "the official 5.x Node.js client',
            "npm rocketmq-client-nodejs says judged = false, but",
        ),
        (
            'registry = "npm"\nname = "rocketmq-grpc"',
            'registry = "maven"\nname = "rocketmq-grpc"',
            "registry must be one of npm, pypi, go",
        ),
        ('name = "rocketmq-grpc"', 'name = "rocketmq-client-nodejs"', "listed twice"),
        (
            'delegates = "mq-http-sdk: Alibaba',
            'delegate = "x"\ndelegates = "mq-http-sdk: Alibaba',
            "unknown field(s) delegate",
        ),
        ('why = "speaks HTTP; no client-side queue choice"', 'why = " "', "why is empty"),
        ('date = "2026-11-27"', 'date = "27.11.2026"', "is not YYYY-MM-DD"),
        ("[survey]", "[surveyed]", "[survey] needs date, npm, pypi and go"),
        ('go = """The Go module proxy', 'og = """The Go module proxy', "[survey] needs date, npm, pypi and go"),
        (
            'go = """The Go module proxy',
            'go = """ """\nwas = """The Go module proxy',
            "[survey] needs date, npm, pypi and go",
        ),
    ],
)
def test_a_broken_entry_is_refused_naming_the_file_and_the_entry(tmp_path, old, new, said):
    with pytest.raises(survey.SurveyError) as caught:
        _broken(tmp_path, old, new)()
    assert said in str(caught.value)
    assert str(tmp_path / "survey.toml") in str(caught.value)


def test_a_client_versions_toml_judges_but_the_survey_lacks_is_refused(tmp_path):
    versions = tmp_path / "versions.toml"
    versions.write_text(
        (CLIENTS / "versions.toml").read_text(encoding="utf-8")
        + '\n[rocketmq-fresh]\nregistry = "npm"\npinned = "1.0.0"\n',
        encoding="utf-8",
    )
    with pytest.raises(survey.SurveyError, match="judges rocketmq-fresh, which the survey lacks"):
        survey.load(versions=versions)


def test_the_command_line_renders_and_refuses_with_status_2(tmp_path, capsys):
    assert survey.main([]) == 0
    assert f"## {TITLE}\n" in capsys.readouterr().out
    assert survey.main(["--html"]) == 0
    assert capsys.readouterr().out.startswith('<section id="survey">')
    assert survey.main(["--survey", str(tmp_path / "absent.toml")]) == 2
    assert "absent.toml" in capsys.readouterr().err


def test_refresh_names_moved_versions_and_new_names_and_nothing_else(tmp_path):
    surveyed = {(p["registry"], p["name"]): p["version"] for p in PACKAGES}
    registry = {key: version for key, version in surveyed.items()}
    registry[("pypi", "rocketmq")] = "9.9.9"
    del registry[("npm", "wm-rocketmq")]
    registry[("pypi", "rocketmq-brand-new")] = "0.1.0"
    registry[("go", "github.com/apache/rocketmq-clients/golang/v5")] = "v5.1.5"
    newest = {name: (lambda wanted, reg=name: registry.get((reg, wanted))) for name in survey.REGISTRIES}
    names = tmp_path / "names.tsv"
    names.write_text(
        "rocketmq-brand-new\t0.1.0\tx\nrocketmq\t0.4.4\nrabbit-rmq\t1\nrocketmq-gone\t1\n", encoding="utf-8"
    )
    out = io.StringIO()
    assert survey.refresh(names=[str(names)], newest=newest, out=out) == 1
    said = out.getvalue().splitlines()
    assert said == [
        "npm wm-rocketmq: surveyed 0.0.1, now gone from the registry",
        "pypi rocketmq: surveyed 0.4.4, now 9.9.9",
        "go github.com/apache/rocketmq-clients/golang/v5: surveyed v5.1.4, now v5.1.5",
        "pypi rocketmq-brand-new 0.1.0: named for RocketMQ, not in the survey",
        "4 to update",
    ]
    current = io.StringIO()
    same = {name: (lambda wanted, reg=name: surveyed.get((reg, wanted))) for name in survey.REGISTRIES}
    assert survey.refresh(newest=same, out=current) == 0
    assert current.getvalue() == "the survey is current\n"


# -- evidence: every verdict names the files and lines it is read from ----------------------------


def test_every_verdict_cites_the_files_and_lines_it_is_read_from():
    for p in PACKAGES:
        assert p.get("evidence"), f"{p['registry']} {p['name']} cites no evidence"
        for cited in p["evidence"]:
            assert survey.EVIDENCE.fullmatch(cited), cited


def test_a_package_that_balances_in_its_own_code_cites_it_at_the_function_that_does():
    """The two ctypes clients balance by their hashing_queue_selector: their survey says so, and where."""
    for name in ("rocketmq", "rocketmq-python-cvs"):
        (entry,) = [p for p in PACKAGES if p["registry"] == "pypi" and p["name"] == name]
        assert entry["balances"] == ["SELECTOR_HASH"] and entry["judged"]
        assert "rocketmq/client.py:164-166 hashing_queue_selector" in entry["evidence"]


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ('evidence = ["index.js:1-5', 'evidenc = ["index.js:1-5', "evidence must be a list"),
        ("evidence = [\"index.js:1-5 require('rocketmq')\"]", "evidence = []", "evidence is empty"),
        ("\"index.js:1-5 require('rocketmq')\"", "\"index.js require('rocketmq')\"", "is not 'FILE:FIRST[-LAST] WORD'"),
        (
            "\"index.js:1-5 require('rocketmq')\"",
            "\"index.js:5-1 require('rocketmq')\"",
            "is not 'FILE:FIRST[-LAST] WORD'",
        ),
        ("\"index.js:1-5 require('rocketmq')\"", '"index.js:1-5"', "is not 'FILE:FIRST[-LAST] WORD'"),
    ],
)
def test_a_verdict_without_evidence_is_refused_naming_the_entry(tmp_path, old, new, said):
    with pytest.raises(survey.SurveyError) as caught:
        _broken(tmp_path, old, new)()
    assert said in str(caught.value) and "(npm wm-rocketmq)" in str(caught.value)


def _entry(*cited):
    return {"registry": "pypi", "name": "demo", "version": "1.0", "evidence": list(cited)}


def test_a_citation_its_package_does_not_bear_out_is_named(tmp_path):
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "client.py").write_text("a = 1\ndef hashing_queue_selector(n, m, arg):\n    return 0\n")
    assert (
        survey.cited_problems(_entry("demo/client.py:2-3 hashing_queue_selector", "demo/client.py:1 a = 1"), tmp_path)
        == []
    )
    problems = survey.cited_problems(
        _entry(
            "demo/absent.py:1 x",
            "demo/client.py:3-9 return 0",
            "demo/client.py:1 hashing_queue_selector",
        ),
        tmp_path,
    )
    assert problems == [
        "pypi demo 1.0: evidence 'demo/absent.py:1 x': the package has no file demo/absent.py",
        "pypi demo 1.0: evidence 'demo/client.py:3-9 return 0': demo/client.py has 3 lines",
        "pypi demo 1.0: evidence 'demo/client.py:1 hashing_queue_selector': lines 1-1 do not hold 'hashing_queue_selector'",
    ]


@pytest.mark.parametrize("kind", ["wheel", "sdist", "npm"])
def test_an_archive_is_unpacked_to_the_paths_the_survey_cites(tmp_path, kind):
    import tarfile
    import zipfile

    source = tmp_path / "source"
    top = {"wheel": source, "sdist": source / "demo-1.0", "npm": source / "package"}[kind]
    (top / "demo").mkdir(parents=True)
    (top / "demo" / "client.py").write_text("x = 1\n")
    archive = tmp_path / {"wheel": "demo-1.0-py3-none-any.whl", "sdist": "demo-1.0.tar.gz", "npm": "demo-1.0.tgz"}[kind]
    if kind == "wheel":
        with zipfile.ZipFile(archive, "w") as made:
            made.write(top / "demo" / "client.py", "demo/client.py")
    else:
        with tarfile.open(archive, "w:gz") as made:
            made.add(top, top.name)
    into = tmp_path / "files"
    into.mkdir()
    survey._unpack(archive, into)
    assert (into / "demo" / "client.py").read_text() == "x = 1\n"


def test_fetch_takes_a_package_unpacked_before_from_the_cache(tmp_path):
    files = tmp_path / "npm" / "@scope+demo-1.0" / "files"
    files.mkdir(parents=True)
    assert survey.fetch({"registry": "npm", "name": "@scope/demo", "version": "1.0"}, tmp_path) == files


def test_the_table_shows_where_each_verdict_is_read(tmp_path):
    page = survey.to_markdown()
    html = survey.to_html()
    for p in PACKAGES:
        places = [cited.split(" ", 1)[0] for cited in p["evidence"]]
        assert ", ".join(f"`{place}`" for place in places) + " |" in page, p["name"]
        assert "<br>".join(f"<code>{survey.html.escape(place)}</code>" for place in places) in html, p["name"]


# -- the README's paragraph: its numbers counted from the survey -----------------------------------

README = CLIENTS.parent / "README.md"


def test_the_readmes_paragraph_on_the_clients_is_the_surveys():
    shown = survey.readme_shown(README)
    assert shown is not None, "README.md has no survey:start / survey:end markers"
    assert shown == survey.readme_paragraph(), "run: python clients/survey.py --readme README.md"
    said = " ".join(shown.split())
    npm, pypi, go = (sum(p["registry"] == registry for p in PACKAGES) for registry in ("npm", "pypi", "go"))
    assert npm + pypi + go == len(PACKAGES) and go == 2
    assert f"were read ({len(PACKAGES)}: {npm} on npm, {pypi} on PyPI, {go} on the Go module proxy)" in said
    own = [p for p in PACKAGES if p["balances"]]
    judged = [p for p in PACKAGES if p["judged"]]
    assert f"; {len(own)} balance queues in their own code, and the {len(judged)} of them that run here" in said
    assert all(p["balances"] for p in judged)
    for p in own:
        assert (f"`{p['name']}`" in said) is not p["judged"], p["name"]
    left = [f"`{p['name']}`" for p in survey._ordered(PACKAGES) if p["balances"] and not p["judged"]]
    assert len(left) >= 2 and f"({', '.join(left[:-1])} and {left[-1]} do not: the survey says why)" in said


def test_the_paragraph_counts_what_the_survey_holds(tmp_path):
    path = tmp_path / "survey.toml"
    path.write_text(
        TEXT.replace(
            'balances = []\ndelegates = "nothing to delegate',
            'balances = ["GROUP_HASH"]\ndelegates = "nothing to delegate',
            1,
        ),
        encoding="utf-8",
    )
    before, after = " ".join(survey.readme_paragraph().split()), " ".join(survey.readme_paragraph(path).split())
    own = sum(bool(p["balances"]) for p in PACKAGES)
    assert f"; {own} balance queues" in before and f"; {own + 1} balance queues" in after
    assert "`rocketmq-client`" in after and "`rocketmq-client`" not in before


def test_the_paragraph_is_written_between_the_markers_and_refused_without_them(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# x\n\n<!-- survey:start (kept) -->\nold text\n<!-- survey:end -->\n\nafter\n", encoding="utf-8")
    assert survey.main(["--readme", str(readme)]) == 0
    text = readme.read_text(encoding="utf-8")
    assert (
        text == "# x\n\n<!-- survey:start (kept) -->\n" + survey.readme_paragraph() + "<!-- survey:end -->\n\nafter\n"
    )
    readme.write_text("# no markers\n", encoding="utf-8")
    with pytest.raises(survey.SurveyError, match="no <!-- survey:start --> / <!-- survey:end --> markers"):
        survey.write_readme(readme)


# -- the Go module proxy: go in module mode, its answers and its errors (a stand-in go) ------------

MODULE = "github.com/apache/rocketmq-client-go/v2"
REFUSED = f"{MODULE}@v2.0.1: reading https://goproxy.invalid/{MODULE}/@v/v2.0.1.info: 403 Forbidden\n\tserver response: This module version is not available."
STAND_IN = """import json, os, sys
from pathlib import Path
settings = {key: os.environ.get(key) for key in ("GOFLAGS", "GOTOOLCHAIN")}
Path(os.environ["STAND_IN_LOG"]).write_text(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(), **settings}))
answer = json.loads(Path(os.environ["STAND_IN_ANSWER"]).read_text())
sys.stdout.write(answer["stdout"])
sys.stderr.write(answer["stderr"])
sys.exit(answer["code"])
"""


@pytest.fixture
def go(tmp_path, monkeypatch):
    """A stand-in ``go`` first on PATH: ``go(stdout=..., stderr=..., code=...)`` sets what it answers
    and returns what it was called with (arguments, folder, GOFLAGS and GOTOOLCHAIN)."""
    if os.name == "nt":
        pytest.skip("the stand-in go is a script run by its #! line")
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "go").write_text(f"#!{sys.executable}\n{STAND_IN}", encoding="utf-8")
    (folder / "go").chmod(0o755)
    log, answer = tmp_path / "go.log", tmp_path / "go.answer"
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("STAND_IN_LOG", str(log))
    monkeypatch.setenv("STAND_IN_ANSWER", str(answer))

    def answers(stdout="", stderr="", code=0):
        answer.write_text(json.dumps({"stdout": stdout, "stderr": stderr, "code": code}), encoding="utf-8")
        return lambda: json.loads(log.read_text(encoding="utf-8"))

    return answers


def test_a_go_module_is_copied_writable_from_the_folder_go_mod_download_names(tmp_path, go):
    module = tmp_path / "mod" / f"{MODULE}@v2.1.2"
    (module / "producer").mkdir(parents=True)
    (module / "producer" / "selector.go").write_text("package producer\n\n\thasher := fnv.New32a()\n")
    for path in (module / "producer" / "selector.go", module / "producer", module):
        path.chmod(0o555)  # as Go's module cache keeps it
    called = go(stdout=json.dumps({"Path": MODULE, "Version": "v2.1.2", "Dir": str(module)}))
    entry = {"registry": "go", "name": MODULE, "version": "v2.1.2", "evidence": ["producer/selector.go:3 fnv.New32a()"]}
    files = survey.fetch(entry, tmp_path / "cache")
    assert files == tmp_path / "cache" / "go" / "github.com+apache+rocketmq-client-go+v2-v2.1.2" / "files"
    assert survey.cited_problems(entry, files) == []
    assert (files / "producer" / "selector.go").stat().st_mode & 0o200 and (files / "producer").stat().st_mode & 0o200
    call = called()
    assert call["argv"] == ["mod", "download", "-json", f"{MODULE}@v2.1.2"]
    assert (call["GOFLAGS"], call["GOTOOLCHAIN"]) == ("-mod=mod", "local")
    assert not Path(call["cwd"]).exists()  # an empty folder of its own, removed after
    go(code=3)  # not asked again: the copy is kept
    assert survey.fetch(entry, tmp_path / "cache") == files
    for path in (module, module / "producer"):
        path.chmod(0o755)


def test_a_version_go_cannot_download_is_one_line_naming_the_module_and_the_version(tmp_path, go):
    go(stdout=json.dumps({"Path": MODULE, "Version": "v2.0.1", "Error": REFUSED}), code=1)
    with pytest.raises(survey.SurveyError) as caught:
        survey.fetch({"registry": "go", "name": MODULE, "version": "v2.0.1"}, tmp_path / "cache")
    assert str(caught.value) == f"go {MODULE} v2.0.1: go mod download -json: {' '.join(REFUSED.split())}"
    assert list((tmp_path / "cache" / "go").iterdir()) == [
        tmp_path / "cache" / "go" / "github.com+apache+rocketmq-client-go+v2-v2.0.1"
    ]
    assert list((tmp_path / "cache" / "go" / "github.com+apache+rocketmq-client-go+v2-v2.0.1").iterdir()) == []


def test_refresh_asks_go_for_the_latest_version_and_counts_a_module_it_does_not_serve_gone(go):
    called = go(stdout=json.dumps({"Path": MODULE, "Version": "v2.1.2", "Query": "latest"}))
    assert survey.NEWEST["go"](MODULE) == "v2.1.2"
    assert called()["argv"] == ["list", "-m", "-json", f"{MODULE}@latest"]
    for status in ("403 Forbidden", "404 Not Found", "410 Gone"):
        go(stderr=f"go: module {MODULE}: reading https://goproxy.invalid/{MODULE}/@v/list: {status}\n", code=1)
        assert survey.NEWEST["go"](MODULE) is None, status


def test_refresh_stops_at_any_other_go_failure_naming_the_module(go):
    go(stderr="go: module lookup disabled by GOPROXY=off\n", code=1)
    with pytest.raises(survey.SurveyError) as caught:
        survey.NEWEST["go"](MODULE)
    assert str(caught.value) == f"go {MODULE} latest: go list -m -json: go: module lookup disabled by GOPROXY=off"


def test_without_go_on_path_a_go_module_is_named_and_nothing_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    with pytest.raises(survey.SurveyError, match=f"^go {MODULE} v2.1.2: go mod download -json: go is not on PATH"):
        survey.fetch({"registry": "go", "name": MODULE, "version": "v2.1.2"}, tmp_path / "cache")
