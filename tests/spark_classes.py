"""Class data sharing for the tests' Spark drivers: a driver JVM loads some fifteen thousand classes
at each start, about 3 of the 8 CPU seconds an empty local session costs here. Where
``RMQ_SPARK_CDS`` names a folder (``.ci/run`` keeps one in its cache), the classes a small session
loads are archived there once per PySpark install and JDK, by a process of its own that the first
test run missing it starts, and every driver started after that maps them.

A missing or stale archive is no error: the JVM then loads its classes as usual, and says nothing
(its CDS log is off, so that no command's output changes).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: the recording processes started here (kept: a recording outlives the run that started it)
_RECORDERS: list[subprocess.Popen] = []
#: the options of every JVM the tests start, archive or not: they live for seconds, so the client
#: compiler alone serves them (about two thirds of the CPU the optimising one spends warming up),
#: with the serial collector (a tenth less CPU than G1's threads for a local session here)
JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
#: the JVM says nothing of its class archive, whether it maps, refuses or writes one
_QUIET = "-Xlog:cds=off,cds+dynamic=off"
#: a session that loads much of what a sweep's driver loads: a DataFrame written as Parquet and read back
_SESSION = """
import sys
from pyspark.sql import SparkSession
spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
frame = spark.createDataFrame([(1, "a")], "n long, s string")
frame.write.parquet(sys.argv[1])
spark.read.parquet(sys.argv[1]).count()
spark.stop()
"""


def spark_class_archive(folder: str | None) -> str:
    """The JVM options that map the archive of ``folder`` (started on its way when it is missing),
    or ``""`` when there is no folder, no PySpark or no Java."""
    java = shutil.which("java") if folder else None
    pyspark = importlib.util.find_spec("pyspark") if java else None
    if pyspark is None or pyspark.origin is None:
        return ""
    jars = Path(pyspark.origin).parent / "jars"
    # the JVM refuses an archive of other jars or another JDK: a reinstall of either, or other
    # options, makes a new one
    installs = (jars.resolve(), Path(java).resolve())
    identity = "|".join([*(f"{path}:{path.stat().st_mtime_ns}" for path in installs), JVM_OPTIONS])
    archive = Path(folder) / f"spark-{hashlib.sha256(identity.encode()).hexdigest()[:16]}.jsa"
    if not archive.exists() and "PYTEST_XDIST_WORKER" not in os.environ and not _recording(archive):
        # a process of its own, which outlives a short test run: the JVM writes the archive when it exits
        _RECORDERS.append(
            subprocess.Popen(
                [sys.executable, __file__, str(archive)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        )
    return f"-XX:SharedArchiveFile={archive} {_QUIET}"


def _recording(archive: Path) -> bool:
    """Whether another run is recording the archive (its partial file is younger than the time a
    recording may take); older ones are of runs stopped while they recorded, and removed."""
    busy = False
    for partial in archive.parent.glob(f"{archive.name}.*.partial"):
        if time.time() - partial.stat().st_mtime < 300:
            busy = True
        else:
            partial.unlink(missing_ok=True)
    return busy


def _record(archive: Path) -> None:
    """Run the small session once with the JVM writing the classes it loaded at exit; the archive
    appears whole or not at all, and replaces those of earlier jars or JDKs."""
    archive.parent.mkdir(parents=True, exist_ok=True)
    partial = archive.with_name(f"{archive.name}.{os.getpid()}.partial")
    scratch = Path(tempfile.mkdtemp(prefix="rmq-spark-classes-"))
    env = {
        **os.environ,
        "PYSPARK_PYTHON": sys.executable,
        "SPARK_SUBMIT_OPTS": f"{JVM_OPTIONS} -XX:ArchiveClassesAtExit={partial} {_QUIET}",
    }
    try:
        done = subprocess.run(
            [sys.executable, "-c", _SESSION, str(scratch / "frame")],
            env=env,
            capture_output=True,
            timeout=300,
            check=False,
        )
        if done.returncode == 0 and partial.exists():
            os.replace(partial, archive)
            for stale in archive.parent.glob("spark-*.jsa"):
                if stale != archive:
                    stale.unlink(missing_ok=True)
    except (OSError, subprocess.TimeoutExpired):
        pass
    finally:
        partial.unlink(missing_ok=True)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    _record(Path(sys.argv[1]))
