"""clients/survey.toml and its renderer: the data holds its rules, every entry reaches the page,
and a broken entry or a moved registry is named (no network: the registries are stand-ins)."""

import importlib.util
import io
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest brings tomli to 3.10
    import tomli as tomllib

CLIENTS = Path(__file__).resolve().parent.parent / "clients"
_spec = importlib.util.spec_from_file_location("rmq_clients_survey", CLIENTS / "survey.py")
assert _spec and _spec.loader
survey = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(survey)

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
