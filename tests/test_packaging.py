"""The sdist and the wheel carry the data, and an installed wheel finds it.

Slow (builds, creates a virtualenv, installs from the package index): run
with ``-m packaging``, as the ``packaging`` tox environment does.
"""

import os
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.packaging

ROOT = Path(__file__).resolve().parent.parent
DATA = {
    folder: sorted(p.relative_to(ROOT / folder).as_posix() for p in (ROOT / folder).rglob("*") if p.is_file())
    for folder in ("golden", "schemas")
}


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """The sdist and the wheel built from it, as installers build them: by ``python -m build``
    here, or the pair in ``$RMQ_DIST`` that the same command wrote (``.ci/run`` builds them once,
    and every tox env installs that wheel)."""
    given = os.environ.get("RMQ_DIST")
    out = Path(given) if given else tmp_path_factory.mktemp("dist")
    if not given:
        subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], check=True, capture_output=True)
    wheels, sdists = sorted(out.glob("*.whl")), sorted(out.glob("*.tar.gz"))
    assert len(wheels) == len(sdists) == 1, f"{out}: one wheel and one sdist expected, found {wheels + sdists}"
    return {"wheel": wheels[0], "sdist": sdists[0]}


def test_wheel_holds_golden_data_and_schemas_inside_the_package(dist):
    names = set(zipfile.ZipFile(dist["wheel"]).namelist())
    for folder, files in DATA.items():
        for name in files:
            assert f"pytest_rmq_conformance/data/{folder}/{name}" in names
    assert "pytest_rmq_conformance/py.typed" in names  # the package's annotations are for its users too
    assert "pytest_rmq_conformance/pipeline/log4j2.properties" in names  # the sweeps' Spark logging (pipeline/spark.py)
    assert dist["wheel"].stat().st_size < 3 * 1024 * 1024


def test_sdist_holds_golden_data_and_schemas(dist):
    with tarfile.open(dist["sdist"]) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for folder, files in DATA.items():
        for name in files:
            assert f"{folder}/{name}" in names


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    home = tmp_path_factory.mktemp("venv")
    venv.create(home, with_pip=True)
    return home / "bin"


def run(env, *args, cwd):
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    return subprocess.run([str(env / args[0]), *args[1:]], cwd=cwd, env=clean, capture_output=True, text=True)


WHERE = "from pytest_rmq_conformance.engine.resources import golden_dir, schemas_dir; print(golden_dir()); print(schemas_dir())"


def test_installed_wheel_finds_its_data_and_replays(dist, env, tmp_path):
    install = run(env, "python", "-m", "pip", "install", "-q", str(dist["wheel"]), cwd=tmp_path)
    assert install.returncode == 0, install.stderr
    where = run(env, "python", "-c", WHERE, cwd=tmp_path)
    golden, schemas = where.stdout.split()
    assert "site-packages" in golden and golden.endswith("pytest_rmq_conformance/data/golden")
    assert schemas.endswith("pytest_rmq_conformance/data/schemas")
    replay = run(env, "rmq-conformance", "replay", "--release", "5.3.3", cwd=tmp_path)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "the reference ports reproduce every answer" in replay.stdout


def test_editable_install_uses_the_checkout(env, tmp_path):
    install = run(env, "python", "-m", "pip", "install", "-q", "--no-deps", "-e", str(ROOT), cwd=tmp_path)
    assert install.returncode == 0, install.stderr
    golden, schemas = run(env, "python", "-c", WHERE, cwd=tmp_path).stdout.split()
    assert Path(golden) == ROOT / "golden" and Path(schemas) == ROOT / "schemas"
