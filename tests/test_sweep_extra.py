"""``rmq-conformance sweep`` without the sweep extra: one line naming the extra and the Python it
needs, exit 2, in every mode; no traceback and no Spark started."""

import subprocess
import sys

import pytest

from pytest_rmq_conformance.cli import main, sweep_extra_problem

#: every mode of the sweep, as its flags select it, on a small space should it start after all
MODES = {
    "allocation": ["--scenarios", "1", "--queues", "1:2"],
    "producer": ["--producer", "--scenarios", "1", "--queues", "1:2"],
    "groups": ["--groups", "10", "--queues", "1:2"],
    "mix": ["--mix", "--strategy", "AVG", "--scenarios", "1", "--queues", "1:2"],
    "mix-groups": ["--mix", "--groups", "10", "--strategy", "GROUP_HASH", "--queues", "1:2"],
}
#: the modules of the sweep extra: none of them installed
EXTRA = ("pyspark", "pyarrow", "pandas", "numpy", "matplotlib")


@pytest.mark.parametrize("mode", list(MODES))
def test_every_mode_without_the_extra_says_which_extra_in_one_line(mode, monkeypatch, capsys, tmp_path):
    for name in EXTRA:
        monkeypatch.setitem(sys.modules, name, None)  # as if not installed: `import pyspark` raises
    assert main(["sweep", *MODES[mode], "--quiet", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    why = (
        "(this is Python 3.10, where the extra installs without PySpark): with Python 3.11+, "
        if sys.version_info < (3, 11)
        else "(pyspark, pyarrow, pandas, numpy, matplotlib not installed): "
    )
    assert err.splitlines() == [
        f"rmq-conformance sweep: error: the sweep needs the sweep extra on Python 3.11 or newer {why}"
        "pip install '.[sweep]' in a clone of pytest-rmq-conformance"
    ]
    assert not (tmp_path / "out").exists()


def _only_missing(monkeypatch, *names):
    """As if exactly ``names`` of the extra were missing, whatever this environment has."""
    from pytest_rmq_conformance import cli

    monkeypatch.setattr(cli, "_importable", lambda name: name not in names)


@pytest.mark.parametrize("mode", list(MODES))
def test_every_mode_without_pyspark_alone_names_it(mode, monkeypatch, capsys, tmp_path):
    """What `pip install '.[sweep]'` leaves on Python 3.10: everything but PySpark."""
    monkeypatch.setitem(sys.modules, "pyspark", None)
    _only_missing(monkeypatch, "pyspark")
    assert main(["sweep", *MODES[mode], "--quiet", "--out", str(tmp_path / "out")]) == 2
    if sys.version_info < (3, 11):
        assert "(this is Python 3.10, where the extra installs without PySpark)" in capsys.readouterr().err
    else:
        assert "(pyspark not installed): pip install '.[sweep]' in a clone" in capsys.readouterr().err


def test_on_python_3_10_it_says_the_extra_leaves_pyspark_out(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspark", None)  # what `pip install '.[sweep]'` leaves on 3.10
    assert sweep_extra_problem((3, 10, 14)) == (
        "the sweep needs the sweep extra on Python 3.11 or newer (this is Python 3.10, where the extra installs "
        "without PySpark): with Python 3.11+, pip install '.[sweep]' in a clone of pytest-rmq-conformance"
    )


def test_every_missing_module_of_the_extra_is_named(monkeypatch):
    _only_missing(monkeypatch, "pyspark", "matplotlib")
    assert "(pyspark, matplotlib not installed)" in sweep_extra_problem((3, 12))


def test_nothing_is_said_when_the_extra_is_there():
    pytest.importorskip("pyspark", reason="the sweep extra is not installed here")
    assert sweep_extra_problem() is None


BLOCKED = "import sys; sys.modules['pyspark'] = None; from pytest_rmq_conformance.cli import main; sys.exit(main())"


def test_the_console_command_prints_no_traceback(tmp_path):
    result = subprocess.run(
        [sys.executable, "-c", BLOCKED, "sweep", *MODES["allocation"], "--out", "out"], cwd=tmp_path, capture_output=True, text=True,
        timeout=300,
    )
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and "the sweep needs the sweep extra on Python 3.11 or newer" in result.stderr
