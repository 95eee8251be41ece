"""The README's cluster on one machine, run as written: a standalone master and one worker started
from the installed pyspark on free ports, a sweep through ``--master spark://...`` whose results
equal a ``local[2]`` run's, and both processes stopped by their ids whatever happens."""

import importlib.util
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import ExitStack

import pytest
from docs_pages import block_after

pytestmark = [
    pytest.mark.once,
    pytest.mark.skipif(importlib.util.find_spec("pyspark") is None, reason="the sweep runs on PySpark: the sweep extra"),
]

BLOCK = block_after("To try a cluster on one machine", "sh").splitlines()


def _free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    try:
        for probe in sockets:
            probe.bind(("127.0.0.1", 0))
        return [probe.getsockname()[1] for probe in sockets]
    finally:
        for probe in sockets:
            probe.close()


def _command(line, spark_class, ports):
    """A line of the README's block as arguments: the ports swapped for free ones, the redirection left to Popen."""
    for readme_port, port in zip(("7077", "8080", "8081"), ports):
        line = line.replace(readme_port, str(port))
    line = line.split(" > ")[0].replace('"$spark_class"', shlex.quote(spark_class))
    return shlex.split(line)


def _start(stack, arguments, log):
    """A daemon in its own session, killed (its whole group) on the way out, pass or fail."""
    stream = stack.enter_context(open(log, "w"))  # noqa: SIM115 - closed by the stack, after the process stops
    process = subprocess.Popen(arguments, stdout=stream, stderr=subprocess.STDOUT, start_new_session=True)

    def stop():
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()

    stack.callback(stop)
    return process


def _alive_workers(webui_port):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{webui_port}/json/", timeout=2) as page:
            return json.load(page)["aliveworkers"]
    except OSError:
        return 0


def _sweep(arguments, cwd):
    """``rmq-conformance`` started in a process of its own (this one's Spark session, if any, is
    not reused); ``communicate()`` waits for it."""
    code = "import sys; from pytest_rmq_conformance.cli import main; sys.exit(main())"
    return subprocess.Popen([sys.executable, "-c", code, *arguments[1:]], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _finished(process):
    """``process``'s return code and standard error, once it is done (killed past 15 minutes)."""
    try:
        _, stderr = process.communicate(timeout=900)
    except subprocess.TimeoutExpired:
        process.kill()
        _, stderr = process.communicate()
    return process.returncode, stderr


def _stored(out):
    import pyarrow.parquet as pq

    summary = json.loads((out / "summary.json").read_text())
    for varies in ("master", "elapsed_seconds"):
        summary.pop(varies)
    summary["cost"] = [{k: r[k] for k in ("spec", "size_bin", "scenarios")} for r in summary["cost"]["by_size"]]  # not the seconds
    rows = sorted(({k: v for k, v in row.items() if k != "seconds"} for row in pq.read_table(out / "results").to_pylist()),
                  key=lambda row: (row["scenario"], row["strategy"]))
    return summary, rows


@pytest.mark.heavy
def test_the_readme_cluster_sweeps_as_local_2_does(tmp_path):
    setup, master_line, worker_line, wait_line, sweep_line, kill_line = BLOCK
    assert wait_line.startswith("until ") and "aliveworkers" in wait_line and "8080" in wait_line
    assert kill_line == "kill %1 %2" and sweep_line.startswith("rmq-conformance sweep --master spark://127.0.0.1:7077 ")
    path = os.pathsep.join([os.path.dirname(sys.executable), os.environ["PATH"]])  # `python` is this one, as in a venv
    spark_class = subprocess.run(["sh", "-c", f"{setup} && printf %s \"$spark_class\""], capture_output=True, text=True,
                                 check=True, env={**os.environ, "PATH": path}).stdout
    assert os.access(spark_class, os.X_OK), spark_class
    ports = _free_ports(3)
    local = _command(sweep_line, spark_class, ports)
    local[local.index("--master") + 1] = "local[2]"
    local[local.index("--out") + 1] = "local-sweep"
    on_local = _sweep(local, tmp_path)  # meanwhile, the cluster starts and sweeps
    with ExitStack() as stack:
        stack.callback(lambda: on_local.poll() is None and on_local.kill())
        master = _start(stack, _command(master_line, spark_class, ports), tmp_path / "master.log")
        worker = _start(stack, _command(worker_line, spark_class, ports), tmp_path / "worker.log")
        # the page's own wait, on the free ports: a pasted script must not sweep before the worker is there
        waiting = subprocess.Popen(["sh", "-c", wait_line.replace("8080", str(ports[1]))], env={**os.environ, "PATH": path})
        stack.callback(lambda: waiting.poll() is None and waiting.kill())
        deadline = time.monotonic() + 600  # only against a worker that never registers: a loaded machine is slow to start one
        while waiting.poll() is None:
            assert master.poll() is None and worker.poll() is None, (tmp_path / "master.log").read_text()[-2000:]
            assert time.monotonic() < deadline, (tmp_path / "worker.log").read_text()[-2000:]
            time.sleep(0.5)
        assert waiting.returncode == 0 and _alive_workers(ports[1]) >= 1
        code, stderr = _finished(_sweep(_command(sweep_line, spark_class, ports), tmp_path))
        assert code == 0, stderr[-3000:]
        code, stderr = _finished(on_local)
        assert code == 0, stderr[-3000:]
        pids = (master.pid, worker.pid)
    for pid in pids:  # both stopped by their ids
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    cluster_summary, cluster_rows = _stored(tmp_path / "cluster-sweep")
    local_summary, local_rows = _stored(tmp_path / "local-sweep")
    assert cluster_summary == local_summary
    assert cluster_rows == local_rows and len(cluster_rows) == 20 * 6
