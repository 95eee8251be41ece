"""A sweep's bad input and failures, as an operator meets them (and its progress line): each is one line on stderr with
its exit code (2: an option, before Spark starts; 3: Spark did not start or no master answers;
1: the sweep failed part-way), Spark's own text is kept in ``spark.log``, and nothing half
written is left in place."""

import importlib.util
import json
import os
import socket
import subprocess
import sys

import pytest

from pytest_rmq_conformance.cli import main
from pytest_rmq_conformance.pipeline.masters import standalone_addresses, unreachable, url_problem

needs_spark = pytest.mark.skipif(importlib.util.find_spec("pyspark") is None, reason="the sweep runs on PySpark: the sweep extra")

#: a strategy whose calls kill the Python worker Spark runs it in (the load-time probe passes)
KILLER = """
import os
from pytest_rmq_conformance.ports.allocation import AllocateMessageQueueAveragely

class Kills(AllocateMessageQueueAveragely):
    def allocate(self, group, cid, mq_all, cid_all):
        if len(mq_all) > 3:
            os._exit(7)
        return super().allocate(group, cid, mq_all, cid_all)
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _no_staging(folder) -> bool:
    return not [path for path in folder.iterdir() if ".tmp-" in path.name]


@pytest.mark.parametrize("mode", [[], ["--producer"], ["--groups", "100"], ["--mix", "--strategy", "AVG"],
                                  ["--mix", "--groups", "100", "--strategy", "GROUP_HASH"]])
@pytest.mark.parametrize(
    "options, error",
    [
        (["--master", "bogus://x"], "--master bogus://x: Spark takes local, local[N], local[*], local[N,RETRIES], "
         "spark://HOST:PORT[,HOST:PORT...], yarn or k8s://URL"),
        (["--master", "spark://head"], "--master spark://head: a standalone master is spark://HOST:PORT"),
        (["--master", "local[0]"], "--master local[0]: local mode needs at least one thread"),
        (["--partitions", "0"], "--partitions must be 1 or more, not 0"),
        (["--out", "a-file"], "--out a-file: a file is there, not a directory"),
        (["--out", "a-file/out/x"], "--out a-file/out/x: "),
    ],
)
def test_every_sweeps_options_are_checked_before_spark_starts(tmp_path, monkeypatch, capsys, mode, options, error):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file").write_text("")
    assert main(["sweep", *mode, *options]) == 2
    err = capsys.readouterr().err
    assert err == f"rmq-conformance sweep: error: {error}" + err[len("rmq-conformance sweep: error: ") + len(error):]
    assert err.count("\n") == 1 and _no_staging(tmp_path)


@pytest.mark.parametrize("options, error", [
    (["--scenarios", "-1"], "--scenarios must be 1 or more, not -1"),
    (["--scenarios", "0"], "--scenarios must be 1 or more, not 0"),
    (["--timeout", "-2"], "--timeout must be 0 (no limit) or more seconds, not -2.0"),
])
def test_scenarios_and_timeouts_are_checked_before_spark_starts(capsys, options, error):
    assert main(["sweep", *options]) == 2
    assert capsys.readouterr().err == f"rmq-conformance sweep: error: {error}\n"


def test_master_urls():
    assert standalone_addresses("spark://a:7077, b:7078") == [("a", 7077), ("b", 7078)]
    assert standalone_addresses("spark://[::1]:7077") == [("::1", 7077)]
    assert standalone_addresses("spark://a:99999") == [] and standalone_addresses("local[2]") is None
    for good in ("local", "local[*]", "local[2]", "local[2,4]", "local-cluster[2,1,1024]", "yarn", "k8s://https://k:6443",
                 "spark://127.0.0.1:7077"):
        assert url_problem(good) is None, good
    assert unreachable("local[2]") is None


def test_a_standalone_master_nobody_answers_at_is_one_line_and_exit_3(tmp_path, capsys):
    port = _free_port()
    assert main(["sweep", "--groups", "10", "--master", f"spark://127.0.0.1:{port}", "--out", str(tmp_path / "out")]) == 3
    err = capsys.readouterr().err
    assert err.startswith(f"rmq-conformance sweep: error: no Spark master answers at spark://127.0.0.1:{port} "
                          f"(127.0.0.1:{port}: Connection refused): check that the master runs")
    assert err.count("\n") == 1
    assert not (tmp_path / "out").exists() and _no_staging(tmp_path)


def _sweep(tmp_path, *argv, **env):
    """``rmq-conformance sweep`` in a process of its own (no Spark session of this test process to reuse)."""
    return subprocess.run(
        [sys.executable, "-c", "import sys; from pytest_rmq_conformance.cli import main; sys.exit(main())", "sweep", *argv],
        cwd=tmp_path, capture_output=True, text=True, timeout=600, env={**os.environ, **env},
    )


@pytest.mark.once
@needs_spark
def test_a_spark_that_does_not_start_is_one_line_and_exit_3_with_its_log_kept(tmp_path):
    done = _sweep(tmp_path, "--groups", "10", "--master", "local[2]", "--out", "out", JAVA_HOME=str(tmp_path / "no-java"))
    assert done.returncode == 3, done.stderr
    last = done.stderr.splitlines()[-1]
    assert last == ("rmq-conformance sweep: error: Spark did not start on --master local[2]: [JAVA_GATEWAY_EXITED] Java gateway "
                    f"process exited before sending its port number; Spark's own text is in {os.path.join('out', 'spark.log')}")
    assert "no-java/bin/java" in (tmp_path / "out" / "spark.log").read_text()
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["spark.log"] and _no_staging(tmp_path)
    assert "Traceback" not in done.stderr


@pytest.mark.heavy
@pytest.mark.once
@needs_spark
def test_a_sweep_that_fails_part_way_publishes_nothing_and_keeps_the_earlier_sweep(tmp_path):
    (tmp_path / "killer.py").write_text(KILLER)
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").write_text(json.dumps({"an": "earlier sweep"}))
    done = _sweep(tmp_path, "--scenarios", "4", "--no-references", "--strategy", "killer:Kills", "--master", "local[2]",
                  "--partitions", "2", "--out", "out", "--quiet")
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines()[-1] == (
        "rmq-conformance sweep: error: the sweep failed part-way on local[2] and wrote nothing to out: a task failed 4 times, "
        f"the last time: Python worker exited unexpectedly (crashed); Spark's own text is in {os.path.join('out', 'spark.log')}"
    )
    assert sorted(p.name for p in out.iterdir()) == ["spark.log", "summary.json"]
    assert json.loads((out / "summary.json").read_text()) == {"an": "earlier sweep"} and _no_staging(tmp_path)
    assert "Traceback" not in done.stderr


def test_the_progress_line_gives_an_eta_at_the_pace_so_far():
    from pytest_rmq_conformance.pipeline.spark import progress_line

    assert progress_line(0, 8, 2.0) == "  evaluating: 0/8 partitions done in 2 s"
    assert progress_line(3, 8, 30.0) == "  evaluating: 3/8 partitions done in 30 s, about 50 s left"
    assert progress_line(1, 64, 120.0) == "  evaluating: 1/64 partitions done in 120 s, about 2.1 h left"
    assert progress_line(8, 8, 80.0) == "  evaluating: 8/8 partitions done in 80 s"
