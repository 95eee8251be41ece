"""The real clients' pins: clients/versions.toml is the one list, and the install files agree."""

import json
import sys
from pathlib import Path

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
            assert dependencies.get(name) == entry["pinned"], name


def _pins(file: str) -> dict:
    return dict(line.split("==") for line in (CLIENTS / "python" / file).read_text(encoding="utf-8").split())


def test_every_pypi_client_is_pinned_in_requirements_or_isolated_as_in_versions_toml():
    # isolated.txt: clients that cannot share a site-packages with the others (tox installs each alone)
    pins = {**_pins("requirements.txt"), **_pins("isolated.txt")}
    for name, entry in _versions().items():
        if entry["registry"] == "pypi":
            assert pins.get(name) == entry["pinned"], name


def test_no_pypi_client_is_pinned_twice():
    assert not set(_pins("requirements.txt")) & set(_pins("isolated.txt"))
