"""Internal: the Spark plumbing every sweep mode shares.

A session on a master (Spark's own logging quietened, what the JVM prints sent to
``spark.log``), result columns as Arrow and Spark types, ids evaluated in partitions with
progress lines, and outputs that appear atomically: everything is written under a staging
directory next to ``out`` and moved into place once complete, so ``out`` never holds a
half-written report.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pytest_rmq_conformance.pipeline.errors import SparkStartError, SweepFailed

__all__ = [
    "spark_session",
    "with_retries",
    "arrow_schema",
    "spark_ddl",
    "staged",
    "Progress",
    "progress_line",
    "partitions_for",
    "run_batches",
    "write_json",
    "publish",
    "Say",
    "say_to_stderr",
]

#: where a sweep's progress and closing lines go
Say = Callable[[str], None]


def say_to_stderr(line: str) -> None:
    """The default :data:`Say`: a line on stderr, flushed, so that the progress shows as it comes."""
    print(line, file=sys.stderr, flush=True)

_LOG4J = Path(__file__).with_name("log4j2.properties")


def arrow_schema(fields: Sequence[tuple[str, str]]):
    """The Arrow schema of result rows with ``fields`` (``(name, kind)`` pairs)."""
    import pyarrow as pa

    types = {
        "int64": pa.int64(),
        "int32": pa.int32(),
        "string": pa.string(),
        "bool": pa.bool_(),
        "float64": pa.float64(),
        "list<string>": pa.list_(pa.string()),
        "list<int64>": pa.list_(pa.int64()),
    }
    return pa.schema([(name, types[kind]) for name, kind in fields])


def spark_ddl(fields: Sequence[tuple[str, str]]) -> str:
    """The same columns as Spark's DDL string."""
    types = {
        "int64": "bigint",
        "int32": "int",
        "string": "string",
        "bool": "boolean",
        "float64": "double",
        "list<string>": "array<string>",
        "list<int64>": "array<bigint>",
    }
    return ", ".join(f"{name} {types[kind]}" for name, kind in fields)


def with_retries(master: str, attempts: int = 4) -> str:
    """Local mode retries a failed task only when told how often: ``local[2]`` -> ``local[2,4]``."""
    match = re.fullmatch(r"local\[(\*|\d+)\]", master)
    if master == "local":
        return f"local[1,{attempts}]"
    return f"local[{match.group(1)},{attempts}]" if match else master


@contextmanager
def _stderr_to(path: Path | None):
    """While the JVM starts, file descriptor 2 points at ``path``: the JVM (and the Python
    workers it forks) keep writing there for their lifetime; this process gets its own back."""
    if path is None:
        yield
        return
    sys.stderr.flush()
    saved = os.dup(2)
    target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.dup2(target, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(target)
        os.close(saved)


def spark_session(master: str, quiet: bool = True, log: Path | None = None):
    """A Spark session on ``master`` whose workers run this Python with this ``PYTHONPATH``, with Spark's logging
    limited to errors (``quiet``) and, given ``log``, everything the JVM prints sent there;
    in local mode a failed task is tried up to 4 times."""
    warnings.filterwarnings("ignore", category=FutureWarning, module="pyspark")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master(with_retries(master))
        .appName("rmq-conformance sweep")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.task.maxFailures", "4")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "256")
    )
    if os.environ.get("PYTHONPATH"):  # the workers' path as it is now, not as when this process started the JVM
        builder = builder.config("spark.executorEnv.PYTHONPATH", os.environ["PYTHONPATH"])
    if quiet:
        options = f"-Dlog4j2.configurationFile={_LOG4J.as_uri()}"
        builder = builder.config("spark.driver.extraJavaOptions", options).config("spark.executor.extraJavaOptions", options)
    with _stderr_to(log):
        session = builder.getOrCreate()
    if quiet:
        session.sparkContext.setLogLevel("ERROR")
    return session


class Progress:
    """Prints how many of the evaluation's tasks are done, once a second, on stderr."""

    def __init__(self, spark, total: int, enabled: bool, say: Callable[[str], None]):
        self.spark, self.total, self.enabled, self.say = spark, total, enabled, say
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self):
        if self.enabled:
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self.enabled:
            self._thread.join()

    def _watch(self) -> None:
        tracker = self.spark.sparkContext.statusTracker()
        last = None
        started = time.monotonic()
        while not self._stop.wait(1.0):
            done = running = 0
            for stage_id in tracker.getActiveStageIds():
                info = tracker.getStageInfo(stage_id)
                if info is not None:
                    done += info.numCompletedTasks
                    running += info.numActiveTasks
            if done != last and (done or running):  # a line when a partition finishes
                self.say(progress_line(done, self.total, time.monotonic() - started))
                last = done


def progress_line(done: int, total: int, elapsed: float) -> str:
    """How many partitions are done, and when the rest will be, at the pace so far.

    >>> progress_line(3, 8, 30.0)
    '  evaluating: 3/8 partitions done in 30 s, about 50 s left'
    """
    line = f"  evaluating: {done}/{total} partitions done in {elapsed:.0f} s"
    if 0 < done < total:
        line += f", about {_duration(elapsed / done * (total - done))} left"
    return line


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def partitions_for(session, partitions: int | None) -> int:
    """``partitions`` when given, else four a core of Spark's (at least 2)."""
    return partitions or max(2, session.sparkContext.defaultParallelism * 4)


def run_batches(
    session, count: int, parts: int, batches, ddl: str, folder: Path, progress: bool, say: Callable[[str], None]
):
    """The rows ``batches`` (a ``mapInArrow`` function) makes of the ids ``0 .. count - 1`` in
    ``parts`` partitions, written to ``folder`` as Parquet (with progress lines) and read back."""
    ids = session.range(0, count, numPartitions=parts)
    results = ids.mapInArrow(batches, ddl)
    with Progress(session, parts, progress, say):
        results.write.mode("overwrite").parquet(str(folder))
    return session.read.parquet(str(folder))


def _gist(exc: BaseException) -> str:
    """The sentence of an exception that says what went wrong. A Python traceback (a worker's)
    ends in it; a Java trace holds it after the last ``...Exception: `` of its first such line,
    with how often the task failed. Spark's advice and the stack frames are left to the log."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    frames = ("at ", "...", "Driver stacktrace", "Caused by")
    lines = [line for line in lines if not line.startswith(frames)] or [type(exc).__name__]
    if any(line.startswith("Traceback") for line in lines):
        raised = [line for line in lines if re.match(r"^[\w.]+(Error|Exception|Exit)\b", line)]
        gist = raised[-1] if raised else lines[-1]
    else:
        thrown = next((line for line in lines if re.search(r"\w(Error|Exception): ", line)), lines[0])
        gist = re.split(r"\w(?:Error|Exception): ", thrown)[-1].split(". ")[0].rstrip(".")
        failed = re.search(r"failed (\d+) times", thrown)
        if failed:
            gist = f"a task failed {failed.group(1)} times, the last time: {gist}"
    return gist if len(gist) <= 240 else gist[:239] + "…"


def _said(what: str, exc: BaseException, log: Path, out: Path) -> str:
    """``what`` happened, the gist of ``exc``, and where Spark's log is kept."""
    kept = _keep_log(log, out)
    return f"{what}: {_gist(exc)}" + (f"; Spark's own text is in {kept}" if kept else "")


def _keep_log(log: Path, out: Path) -> Path | None:
    """``log`` moved to ``out/spark.log`` (a failed sweep publishes nothing else)."""
    if not log.exists():
        return None
    out.mkdir(parents=True, exist_ok=True)
    kept = out / "spark.log"
    shutil.move(str(log), kept)
    return kept


@contextmanager
def staged(out: Path, master: str, spark):
    """``(staging, spark)``: a fresh staging folder beside ``out`` (removed on the way out, so
    the caller :func:`publish`-es what it wants to keep) and a Spark session: ``spark``, else the
    active one (a notebook's, a test's), else a new one on ``master`` logging to
    ``staging/spark.log`` and stopped on the way out.

    A session that does not start raises :class:`SparkStartError`, anything else that fails on
    the way :class:`SweepFailed`, each one sentence; Spark's log is then kept as ``out/spark.log``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.parent / f".{out.name}.tmp-{uuid.uuid4().hex[:8]}"
    staging.mkdir()
    log = staging / "spark.log"
    try:
        if spark is None:
            from pyspark.sql import SparkSession

            spark = SparkSession.getActiveSession()  # reuse a session the caller runs (a notebook, a test)
        own_session = spark is None
        if own_session:
            try:
                spark = spark_session(master, log=log)
            except Exception as exc:
                raise SparkStartError(_said(f"Spark did not start on --master {master}", exc, log, out)) from exc
        try:
            yield staging, spark
        except Exception as exc:
            raise SweepFailed(_said(f"the sweep failed part-way on {master} and wrote nothing to {out}", exc, log, out)) from exc
        finally:
            if own_session:
                spark.stop()
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def publish(staging: Path, out: Path) -> None:
    """Move the finished outputs into ``out``, replacing any earlier sweep's."""
    out.mkdir(parents=True, exist_ok=True)
    for old in ("results", "summary.json", "report.md", "report.html"):
        target = out / old
        if target.is_dir():
            shutil.rmtree(target)
    for item in sorted(staging.iterdir()):
        os.replace(item, out / item.name)
