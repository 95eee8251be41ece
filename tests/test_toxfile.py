"""toxfile.py: the Pythons pyenv installed off PATH are found for tox, and the missing ones are said."""

import os
from pathlib import Path

from conftest import load_script

ROOT = Path(__file__).resolve().parent.parent


def _toxfile():
    return load_script(ROOT / "toxfile.py", "project_toxfile")


def _python(folder: Path, minor: str) -> Path:
    binary = folder / "bin" / f"python{minor}"
    binary.parent.mkdir(parents=True)
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    return binary.parent


def test_pythons_off_path_are_added_from_pyenv_and_the_missing_are_said(tmp_path):
    toxfile = _toxfile()
    on_path = _python(tmp_path / "shims", "3.11")
    versions = tmp_path / "pyenv" / "versions"
    _python(versions / "3.12.7", "3.12")
    newest = _python(versions / "3.12.10", "3.12")
    newest_313 = _python(versions / "3.13.1", "3.13")
    environ = {"PATH": str(on_path), "PYENV_ROOT": str(tmp_path / "pyenv")}
    said = []
    assert toxfile.find_pythons(environ, said.append) == ["3.10"]
    assert environ["PATH"].split(os.pathsep) == [str(on_path), str(newest), str(newest_313)]
    assert said[0] == f"toxfile.py: python3.12 is not on PATH; using pyenv's {newest}"
    assert said[-1].startswith("toxfile.py: no Python 3.10 on PATH or in ") and "tox skips py310" in said[-1]


def test_nothing_is_added_or_said_when_every_python_is_on_path(tmp_path):
    toxfile = _toxfile()
    folders = [_python(tmp_path / minor, minor) for minor in toxfile.MINORS]
    environ = {"PATH": os.pathsep.join(map(str, folders)), "PYENV_ROOT": str(tmp_path / "none")}
    said = []
    assert toxfile.find_pythons(environ, said.append) == []
    assert said == [] and environ["PATH"] == os.pathsep.join(map(str, folders))
