"""A second kind of strategy under test, added without touching the engine: the toy round-robin
selector of ``tests/toy_kind`` goes through the golden replay, the generated differential, the
exec protocol (its own harness, and the built-in one with ``--rmq-isolate``) and the matrix, and
each of its wrong twins is rejected. Every run is the real command line, in a fresh process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
TOY = TESTS / "toy_kind"
HARNESS = f"exec:{sys.executable} {TOY / 'harness.py'}"
#: its deliberately wrong twins (tests/toy_kind; not imported here, so that this process knows the built-in kinds only)
WRONG = ["FloorMod", "NoWrap", "PicksFromEmpty", "StartsOneLate"]


@pytest.fixture
def run(tmp_path):
    """Run a command of the suite in ``tmp_path``, the toy kind importable and, with
    ``entry_point=True``, registered by its entry point (as an installed package would be)."""

    def run(*args: str, entry_point: bool = False, tool: str = "pytest") -> subprocess.CompletedProcess:
        path = [str(TESTS)] + ([str(TOY / "entry-point")] if entry_point else [])
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
        command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist"] if tool == "pytest" else [
            sys.executable, "-m", "pytest_rmq_conformance.cli"]
        return subprocess.run([*command, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)

    return run


def outcomes(result: subprocess.CompletedProcess) -> str:
    return result.stdout.strip().splitlines()[-1]


def test_its_reference_passes_golden_and_generated_and_only_its_checks_run(run):
    result = run("--rmq-strategy=toy_kind:RoundRobin", "-rA")
    assert result.returncode == 0, result.stdout[-3000:]
    assert "golden vectors: 8 ROUND_ROBIN cases" in result.stdout
    assert "PASSED test_reference.py::test_matches_reference" in result.stdout
    # the checks of consumer allocation (invariants, one answer, rebalance), the producer's
    # invariants and the gRPC balancers' invariants do not apply to it
    assert "9 passed, 42 deselected" in outcomes(result)


@pytest.mark.parametrize("name", WRONG)
def test_each_wrong_twin_is_rejected_by_the_golden_vectors(run, name):
    result = run(f"--rmq-strategy=toy_kind:{name}", "--rmq-checks=golden")
    assert result.returncode == 1, result.stdout[-3000:]
    assert "failed" in outcomes(result)
    rerun = next(line.split("rerun: ", 1)[1] for line in result.stdout.splitlines() if "rerun: " in line)
    assert "--rmq-checks=golden" in rerun and "--rmq-case=toy-RR-" in rerun


@pytest.mark.parametrize("name", ["FloorMod", "NoWrap", "StartsOneLate"])
def test_the_generated_differential_rejects_the_twins_that_pick_otherwise(run, name):
    result = run(f"--rmq-strategy=toy_kind:{name}", "--rmq-checks=reference", "--rmq-seed=3")
    assert result.returncode == 1, result.stdout[-3000:]
    assert "differs from the reference on a generated selection" in result.stdout
    assert "replay: pytest " in result.stdout


def test_a_built_in_name_comes_from_the_kind_s_entry_point(run):
    assert run("--rmq-strategy=ROUND_ROBIN").returncode == 4  # not registered: a usage error
    result = run("--rmq-strategy=ROUND_ROBIN", "-rs", entry_point=True)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "the strategy under test is the reference port itself" in result.stdout


def test_its_own_harness_speaks_its_messages_and_its_broken_variant_is_rejected(run):
    result = run(f"--rmq-strategy={HARNESS}", entry_point=True)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "harness toy-round-robin 1.0.0 (Python): families ROUND_ROBIN" in result.stdout
    broken = run(f"--rmq-strategy={HARNESS} --broken=floor-mod", "--rmq-checks=golden", entry_point=True)
    assert broken.returncode == 1 and "2 failed" in outcomes(broken), broken.stdout[-3000:]


def test_the_built_in_harness_serves_it_in_a_process_of_its_own(run):
    assert run("--rmq-strategy=toy_kind:RoundRobin", "--rmq-isolate").returncode == 0
    result = run("--rmq-strategy=toy_kind:NoWrap", "--rmq-isolate", "--rmq-checks=golden")
    assert result.returncode == 1 and "1 failed" in outcomes(result), result.stdout[-3000:]


def test_the_matrix_has_a_column_for_it(run, tmp_path):
    result = run(
        "matrix", "ROUND_ROBIN", "toy_kind:FloorMod", HARNESS, "--release", "5.5.0",
        "--out", str(tmp_path / "m"), tool="cli", entry_point=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    matrix = json.loads((tmp_path / "m" / "matrix.json").read_text())
    assert "ROUND_ROBIN" in matrix["families"]
    cells = {row["spec"]: {cell["family"]: cell for cell in row["cells"]} for row in matrix["implementations"]}
    assert cells["ROUND_ROBIN"]["ROUND_ROBIN"]["status"] == "pass"
    floor = cells["toy_kind:FloorMod"]["ROUND_ROBIN"]
    assert floor["status"] == "differs" and floor["impact"] == "wrong-queues" and floor["golden"]["differ"] == 2
    assert "--rmq-case=toy-RR-" in floor["firstDivergence"]["repro"]
    assert cells[HARNESS]["ROUND_ROBIN"]["status"] == "pass"
