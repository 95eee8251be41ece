"""The layers keep their promises: the engine never imports pytest, and an installed plugin
that a run does not use imports none of the engine."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest_rmq_conformance

PACKAGE = Path(pytest_rmq_conformance.__file__).parent
NO_PYTEST = ["engine", "strategies", "processqueue", "pipeline", "matrix"]


def _modules(folder):
    for path in sorted((PACKAGE / folder).rglob("*.py")):
        if path.name == "fixtures.py" or path.name in ("job.py", "plots.py", "summary.py"):  # fixtures: pytest's; Spark and plots: the extra
            continue
        dotted = ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
        yield f"pytest_rmq_conformance.{dotted}".removesuffix(".__init__")


def test_the_engine_imports_with_pytest_blocked():
    modules = [m for folder in NO_PYTEST for m in _modules(folder)] + ["pytest_rmq_conformance.cli"]
    script = textwrap.dedent(
        f"""
        import importlib, sys
        sys.modules["pytest"] = None  # any import of pytest now fails
        sys.modules["_pytest"] = None
        for name in {modules!r}:
            importlib.import_module(name)
        print(len({modules!r}))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == len(modules) > 30


def test_an_unused_plugin_imports_no_engine(pytester):
    pytester.makepyfile(
        test_own="import sys\n\n"
        "def test_own():\n"
        "    loaded = sorted(m for m in sys.modules if m.startswith(('pytest_rmq_conformance.engine', 'pytest_rmq_conformance.strategies', 'jsonschema')))\n"
        "    assert loaded == []\n"
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str()
    assert "rmq-conformance:" not in result.stdout.str()
