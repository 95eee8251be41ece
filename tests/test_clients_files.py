"""The real clients' pins: clients/versions.toml is the one list, and the install files agree."""

import json
import sys
from pathlib import Path

import pytest
from conftest import load_script

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest brings tomli to 3.10
    import tomli as tomllib

CLIENTS = Path(__file__).resolve().parent.parent / "clients"


def _versions() -> dict:
    return tomllib.loads((CLIENTS / "versions.toml").read_text(encoding="utf-8"))


def test_every_npm_client_is_pinned_in_package_json_as_in_versions_toml():
    dependencies = json.loads((CLIENTS / "node" / "package.json").read_text(encoding="utf-8"))["dependencies"]
    for name, entry in _versions().items():
        if entry["registry"] == "npm":
            assert dependencies.get(entry.get("package", name)) == entry["pinned"], name


def _pins(file: str) -> dict:
    return dict(line.split("==") for line in (CLIENTS / "python" / file).read_text(encoding="utf-8").split())


def test_every_pypi_client_is_pinned_in_requirements_or_isolated_as_in_versions_toml():
    # isolated.txt: clients that cannot share a site-packages with the others (tox installs each alone)
    pins = {**_pins("requirements.txt"), **_pins("isolated.txt")}
    for name, entry in _versions().items():
        if entry["registry"] == "pypi":
            assert pins.get(entry.get("package", name)) == entry["pinned"], name


def test_every_go_client_is_pinned_in_its_harness_go_mod_as_in_versions_toml():
    # clients/go/harness.py builds the version go.mod requires when RMQ_CLIENT_HOME names none
    launcher = load_script(CLIENTS / "go" / "harness.py", "clients_go_harness")
    for name, entry in _versions().items():
        if entry["registry"] == "go":
            assert launcher.build.MODULES[name] == entry["package"], name
            assert launcher.pinned(name) == entry["pinned"], name
            assert entry["harness"] == f"exec:python clients/go/harness.py {name}", name


def test_the_maven_control_row_is_pinned_in_its_harness_as_in_versions_toml():
    harness = load_script(CLIENTS / "java" / "harness.py", "clients_java_harness")
    controls = [entry for entry in _versions().values() if entry["registry"] == "maven"]
    assert [entry.get("control") for entry in controls] == [True]  # the reference itself, not a client judged
    assert controls[0]["pinned"] == harness.PINNED
    assert controls[0]["harness"] == "exec:python clients/java/harness.py"


def test_no_pypi_client_is_pinned_twice():
    assert not set(_pins("requirements.txt")) & set(_pins("isolated.txt"))


def _trend_module():
    return load_script(CLIENTS / "trend.py", "clients_trend")


def test_every_trend_ends_at_its_pin():
    """oldest first, no repeats, the pinned version last, five or more unless trend_short says why"""
    tables = _versions()
    trend = _trend_module()
    assert trend.problems(tables) == []
    for name, entry in tables.items():
        if "trend" not in entry:
            continue
        keys = [trend.version_key(version) for version in entry["trend"]]
        assert keys == sorted(set(keys)), name
        released = [v for v in entry["trend"] if not (entry["registry"] == "go" and trend.PSEUDO.search(v))]
        assert released[-1] == entry["pinned"], name
        assert len(entry["trend"]) >= 5 or entry["trend_short"], name


def test_the_clients_of_the_report_have_a_trend():
    tables = _versions()
    assert {name for name, entry in tables.items() if "trend" in entry} >= {
        "rocketmq-client-nodejs",
        "rocketmq-python-client",
    }


def test_go_versions_sort_by_number_a_pre_release_and_a_pseudo_version_before_their_release():
    key = _trend_module().version_key
    pseudo = "v2.1.3-0.20251226070945-2173d070fd1b"
    assert sorted([pseudo, "v2.1.0", "v2.1.2", "v2.1.0-rc3", "v2.0.0"], key=key) == [
        "v2.0.0",
        "v2.1.0-rc3",
        "v2.1.0",
        "v2.1.2",
        pseudo,
    ]
    assert sorted(["v2.1.3", pseudo], key=key) == [pseudo, "v2.1.3"]


def test_versions_sort_by_number_and_a_pre_release_first():
    key = _trend_module().version_key
    assert sorted(["1.10.0", "0.0.9-beta", "1.9.0", "0.0.9", "0.0.10"], key=key) == [
        "0.0.9-beta",
        "0.0.9",
        "0.0.10",
        "1.9.0",
        "1.10.0",
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"trend": ["5.0.2", "5.0.1", "5.0.3", "5.0.5", "5.1.2"]}, "oldest first"),
        ({"trend": ["5.0.1", "5.0.1", "5.0.3", "5.0.5", "5.1.2"]}, "without repeats"),
        ({"trend": ["5.0.1", "5.0.2", "5.0.3", "5.0.5", "5.1.1"]}, "end at the pinned version '5.1.2'"),
        ({"trend": ["5.0.9", "5.1.0", "5.1.2"]}, "fewer than 5"),
        ({"trend": ["5.0.9", "5.1.0", "5.1.2"], "trend_short": " "}, "fewer than 5"),
        ({"trend": ["5.1.2b1"]}, "a non-empty list of versions"),
        # a pseudo-version may follow the pin only of a Go module
        ({"trend": ["5.0.1", "5.0.2", "5.0.3", "5.0.5", "5.1.2", "5.1.3-0.20251226070945-2173d070fd1b"]}, "end at the pinned"),
        ({"trend": []}, "a non-empty list of versions"),
        ({"yanked": ["4.0.0"]}, "yanked must list versions of trend"),
        ({"registry": "nuget"}, "registry must be one of npm, pypi, go, maven"),
        ({"harness": "clients/python/harness.py"}, "harness must be an exec: spec"),
        ({"releases": []}, "releases must be a non-empty list"),
    ],
)
def test_a_wrong_trend_is_refused_naming_the_table(change, message):
    tables = _versions()
    tables["rocketmq-python-client"] = tables["rocketmq-python-client"] | {"yanked": []} | change
    found = _trend_module().problems(tables)
    assert len(found) == 1, found
    assert found[0].startswith("clients/versions.toml [rocketmq-python-client]: ")
    assert message in found[0]


def test_a_short_trend_that_says_why_is_taken():
    tables = _versions()
    tables["rocketmq-python-client"] |= {"trend": ["5.1.1", "5.1.2"], "trend_short": "only two published", "yanked": []}
    assert _trend_module().problems(tables) == []
