"""clients/survey.toml and its renderer: the data holds its rules, every entry reaches the page,
and a broken entry or a moved registry is named (no network: the registries are stand-ins)."""

import io
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


def test_the_committed_survey_holds_its_rules_and_agrees_with_versions_toml():
    data = survey.load()
    assert len(data["package"]) == len(PACKAGES) >= 30
    assert {p["registry"] for p in PACKAGES} == {"npm", "pypi"}


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
        rows = [line for line in page.splitlines() if line.startswith(("| npm | `", "| pypi | `"))]
        assert len(rows) == len(PACKAGES)
        judged = [row for row in rows if "| yes |" in row]
        assert len(judged) == sum(p["judged"] for p in PACKAGES)
        assert page.startswith("## Every npm and PyPI package named for RocketMQ\n")


def test_rendering_counts_packages_per_registry():
    page = survey.to_markdown()
    for registry in ("npm", "pypi"):
        mine = [p for p in PACKAGES if p["registry"] == registry]
        line = f"| {registry} | {len(mine)} | {sum(bool(p['balances']) for p in mine)} | {sum(p['judged'] for p in mine)} |"
        assert line in page


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
            "registry must be one of npm, pypi",
        ),
        ('name = "rocketmq-grpc"', 'name = "rocketmq-client-nodejs"', "listed twice"),
        (
            'delegates = "mq-http-sdk: Alibaba',
            'delegate = "x"\ndelegates = "mq-http-sdk: Alibaba',
            "unknown field(s) delegate",
        ),
        ('why = "speaks HTTP; no client-side queue choice"', 'why = " "', "why is empty"),
        ('date = "2026-11-27"', 'date = "27.11.2026"', "is not YYYY-MM-DD"),
        ("[survey]", "[surveyed]", "[survey] needs date, pypi and npm"),
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
    assert "## Every npm and PyPI package" in capsys.readouterr().out
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
    newest = {name: (lambda wanted, reg=name: registry.get((reg, wanted))) for name in ("npm", "pypi")}
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
        "pypi rocketmq-brand-new 0.1.0: named for RocketMQ, not in the survey",
        "3 to update",
    ]
    current = io.StringIO()
    same = {name: (lambda wanted, reg=name: surveyed.get((reg, wanted))) for name in ("npm", "pypi")}
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
    npm = sum(p["registry"] == "npm" for p in PACKAGES)
    assert f"was read ({len(PACKAGES)}: {npm} on npm, {len(PACKAGES) - npm} on PyPI)" in said
    own = [p for p in PACKAGES if p["balances"]]
    judged = [p for p in PACKAGES if p["judged"]]
    assert f"; {len(own)} balance queues in their own code, and the {len(judged)} of them that run here" in said
    assert all(p["balances"] for p in judged)
    for p in own:
        assert (f"`{p['name']}`" in said) is not p["judged"], p["name"]


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
