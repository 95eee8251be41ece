"""``rmq-conformance sweep`` without the sweep extra: one line naming the extra and the Python it
needs, exit 2, in every mode; no traceback and no Spark started."""

import subprocess
import sys

import pytest

from pytest_rmq_conformance.cli import main, sweep_extra_problem

#: every mode of the sweep, as its flags select it
MODES = {
    "allocation": [],
    "producer": ["--producer"],
    "groups": ["--groups", "10"],
    "mix": ["--mix", "--strategy", "AVG"],
    "mix-groups": ["--mix", "--groups", "10", "--strategy", "GROUP_HASH"],
}
SMALL = ["--scenarios", "1", "--queues", "1:2", "--quiet"]  # should the sweep start after all


@pytest.mark.parametrize("mode", list(MODES))
def test_every_mode_without_pyspark_says_which_extra_in_one_line(mode, monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "pyspark", None)  # as if not installed: `import pyspark` raises
    assert main(["sweep", *MODES[mode], *SMALL, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "rmq-conformance sweep: error: the sweep needs the sweep extra on Python 3.11 or newer (pyspark not installed): "
        "pip install '.[sweep]' in a clone of pytest-rmq-conformance"
    ]
    assert not (tmp_path / "out").exists()


def test_on_python_3_10_it_says_the_extra_leaves_pyspark_out(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspark", None)  # what `pip install '.[sweep]'` leaves on 3.10
    assert sweep_extra_problem((3, 10, 14)) == (
        "the sweep needs the sweep extra on Python 3.11 or newer (this is Python 3.10, where the extra installs "
        "without PySpark): with Python 3.11+, pip install '.[sweep]' in a clone of pytest-rmq-conformance"
    )


def test_every_missing_module_of_the_extra_is_named(monkeypatch):
    for name in ("pyspark", "matplotlib"):
        monkeypatch.setitem(sys.modules, name, None)
    assert "(pyspark, matplotlib not installed)" in sweep_extra_problem((3, 12))


def test_nothing_is_said_when_the_extra_is_there():
    pytest.importorskip("pyspark", reason="the sweep extra is not installed here")
    assert sweep_extra_problem() is None


BLOCKED = "import sys; sys.modules['pyspark'] = None; from pytest_rmq_conformance.cli import main; sys.exit(main())"


def test_the_console_command_prints_no_traceback(tmp_path):
    result = subprocess.run(
        [sys.executable, "-c", BLOCKED, "sweep", *SMALL, "--out", "out"], cwd=tmp_path, capture_output=True, text=True,
        timeout=300,
    )
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and "the sweep needs the sweep extra on Python 3.11 or newer" in result.stderr
