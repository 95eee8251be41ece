"""scripts/seeds.py, the runner of the built-ins on many seeds: what it runs, a tiny run, and a
failing run reported with a replay command that fails the same way."""

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_rmq_conformance.plugin.options import CHECKS

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "seeds.py"
#: a balancer of tests/grpc_mutants.py that the generated in-range invariant catches on any seed
MUTANT = "grpc_mutants:OutOfRoute"


def seeds(*args, cwd=None):
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=cwd or ROOT, env=environment,
                          capture_output=True, text=True, timeout=1800)


def listed(*args):
    """``--list``'s runs: label -> the replay commands, seed by seed."""
    done = seeds("--list", *args)
    assert done.returncode == 0, done.stderr
    runs: dict[str, list[str]] = {}
    for line in done.stdout.splitlines():
        if " seed " in line:
            label, _, command = line.partition(": ")
            runs.setdefault(label.rsplit(" seed ", 1)[0], []).append(command)
    return done.stdout, runs


def test_every_built_in_family_runs_at_each_release_of_its_vectors():
    _, runs = listed("--seeds", "1")
    families = {label.split()[0] for label in runs}
    assert families >= {"AVG", "CONSISTENT_HASH", "CONFIG", "FAULT_STRATEGY", "SELECTOR_HASH", "GROUP_HASH", "SUBSCRIBE_ROUND_ROBIN"}
    assert {label for label in runs if label.startswith("AVG ")} == {"AVG 4.7.1", "AVG 4.9.8", "AVG 5.3.3"}
    assert [label for label in runs if label.startswith("GROUP_HASH ")] == ["GROUP_HASH 5.3.3"]  # the gRPC vectors: one run
    charset_run = runs["CONSISTENT_HASH 4.9.8+ISO-8859-1"][0]
    assert "--rmq-reference-version=4.9.8 --rmq-charset=ISO-8859-1" in charset_run


def test_the_golden_part_runs_with_the_first_seed_only():
    _, runs = listed("--seeds", "3,1..2", "--families", "AVG", "--releases", "5.3.3")
    first, *others = runs["AVG 5.3.3"]
    assert "--rmq-seed=3" in first and "--rmq-checks" not in first
    every_other_part = ",".join(part for part in CHECKS if part != "golden")
    assert [command.split()[-2:] for command in others] == [
        [f"--rmq-seed={seed}", f"--rmq-checks={every_other_part}"] for seed in (1, 2)
    ]
    _, runs = listed("--seeds", "3", "--families", "AVG", "--releases", "5.3.3", "--no-golden")
    assert runs["AVG 5.3.3"][0].endswith(f"--rmq-checks={every_other_part}")


def test_a_slice_is_printed_and_drawn_by_its_key():
    out, _ = listed("--slice", "2", "--slice-key", "ci-4187", "--families", "GROUP_HASH")
    again, _ = listed("--slice", "2", "--slice-key", "ci-4187", "--families", "GROUP_HASH")
    other, _ = listed("--slice", "2", "--slice-key", "ci-4188", "--families", "GROUP_HASH")
    head = out.splitlines()[0]
    assert head.startswith("seeds slice: ") and head.endswith("(--slice 2 --slice-key ci-4187)")
    drawn = [int(seed) for seed in head.removeprefix("seeds slice: ").split(" (")[0].split(", ")]
    assert len(set(drawn)) == 2 and all(1 <= seed < 2**32 for seed in drawn)
    assert again == out and other.splitlines()[0] != head
    assert f"--rmq-seed={drawn[1]}" in out


@pytest.mark.parametrize("args, message", [
    (["--seeds", "5..1"], "--seeds: '5..1' is not a range of seeds"),
    (["--seeds", "x"], "--seeds: 'x' is not a seed or a range like 1..20"),
    (["--families", "AVG,NOPE"], "--families: unknown NOPE; the built-in families are AVG,"),
    (["--families", "GROUP_HASH", "--releases", "4.9.8"], "--releases: no vectors of GROUP_HASH at 4.9.8"),
    (["--strategy", MUTANT], "--strategy: name its family with --families"),
], ids=["empty-range", "not-a-seed", "unknown-family", "no-vectors", "strategy-alone"])
def test_bad_arguments_are_named(args, message):
    done = seeds("--list", *args)
    assert done.returncode == 2
    assert message in done.stderr


def test_a_tiny_run_passes(tmp_path):
    done = seeds("--families", "GROUP_HASH", "--seeds", "1", "-j", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "FAILED" not in done.stdout
    assert done.stdout.splitlines()[-1] == "seeds 1: 1 families x releases, 1 runs, 1 passed, 0 failed"


@pytest.mark.once
def test_a_failing_run_is_reported_with_a_replay_that_fails_alike(tmp_path):
    done = seeds("--strategy", MUTANT, "--families", "GROUP_HASH", "--seeds", "1", "--no-golden", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED ")]
    assert len(failed) == 1
    assert failed[0].startswith("FAILED GROUP_HASH 5.3.3 seed 1: ")
    assert "test_invariants.py::test_balancer_invariant[in-range]" in failed[0]
    assert done.stdout.splitlines()[-1] == "seeds 1: 1 families x releases, 1 runs, 0 passed, 1 failed"
    replay = shlex.split(failed[0].split(" | replay: ", 1)[1])
    assert replay[:4] == ["pytest", "-p", "no:cacheprovider", f"--rmq-strategy={MUTANT}"]
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "tests")}
    again = subprocess.run([sys.executable, "-m", *replay, "-rf"], cwd=tmp_path, env=environment,
                           capture_output=True, text=True, timeout=900)
    assert again.returncode == 1
    assert "test_balancer_invariant[in-range]" in again.stdout


def test_a_run_past_its_time_limit_fails(tmp_path):
    done = seeds("--families", "GROUP_HASH", "--seeds", "1", "--no-golden", "--timeout", "0.001", cwd=tmp_path)
    assert done.returncode == 1
    assert "FAILED GROUP_HASH 5.3.3 seed 1: no verdict within 0.001 s (--timeout)" in done.stdout


def test_one_release_runs_each_family_once_a_seed_at_a_release_of_its_vectors():
    _, every = listed("--seeds", "1")
    out, runs = listed("--seeds", "7,8", "--one-release", "--no-golden")
    again, _ = listed("--seeds", "7,8", "--one-release", "--no-golden")
    assert out == again
    assert set(runs) <= set(every)
    for seed in (7, 8):
        families = [label.split()[0] for label, commands in runs.items() for command in commands if f"--rmq-seed={seed} " in command]
        assert sorted(families) == sorted({label.split()[0] for label in every})
