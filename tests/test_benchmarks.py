"""Every script in benchmarks/ runs, at a tiny size, so that a renamed API breaks the tests rather
than the benchmark. Their figures are not asserted: a benchmark measures, on a quiet machine."""

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
#: each script's tiny run; cpu.py is the yardstick module the others import
TINY = {
    "ci_run.py": ["--golden-yardstick", "--command", "python -c 'print(\"  py311: OK (3.50=setup[1.25]+cmd[2.00,0.25] seconds)\")'"],
    "detection.py": ["--seeds", "1", "Gaps"],
    "flaky_verdict.py": ["--repeat", "1", "--extra=--rmq-examples=3"],
    "generated_run.py": ["--repeat", "1", "--extra=--rmq-examples=3", "AVG"],
    "harness_speed.py": ["--rounds", "1"],
    "plugin_run.py": ["--repeat", "1", "AVG"],
    "producer_replay.py": ["--repeat", "1"],
    "rebalance_run.py": ["--repeat", "1", "AVG"],
    # no version asked (that needs Maven Central): the floor, and each kind's scenarios loaded
    "record_releases.py": ["--releases", "", "--client-java", ""],
    "startup.py": ["--repeat", "1"],
    "sweep_memory.py": ["--scenarios", "12", "--queues", "1:8", "--consumers", "1:4", "--partitions", "2", "--no-report"],
    # its Spark part calls spark_session and run_sweep as sweep_memory.py does, whose tiny run is on Spark
    "sweep_speed.py": ["--scenarios", "4", "--evaluator-scenarios", "2", "--repeat", "1", "--skip-spark", "--partitions", "2", "--growth-queues", "8", "--growth-consumers", "2",
                       "--growth-repeat", "1"],
}
LIBRARIES = {"cpu.py"}


def test_every_benchmark_has_a_tiny_run():
    assert {path.name for path in BENCHMARKS.glob("*.py")} == set(TINY) | LIBRARIES


@pytest.mark.heavy
@pytest.mark.once
@pytest.mark.parametrize("script", sorted(TINY))
def test_the_benchmark_runs_at_a_tiny_size(script):
    if script in ("sweep_speed.py", "sweep_memory.py"):
        pytest.importorskip("pyspark", reason="the sweep runs on PySpark: the sweep extra")
    done = subprocess.run([sys.executable, str(BENCHMARKS / script), *TINY[script]], cwd=BENCHMARKS.parent,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{script} {' '.join(TINY[script])}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    assert done.stdout.strip(), f"{script} printed nothing"
