"""Class data sharing for the tests' Spark drivers: a driver JVM loads some fifteen thousand classes
at each start, about 3 of the 8 CPU seconds an empty local session costs here. Where
``RMQ_SPARK_CDS`` names a folder (``.ci/run`` keeps one in its cache), the classes a small session
loads are archived there once per PySpark install and JDK, and every later driver maps them.

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
from pathlib import Path

#: what the archive's users add to their JVM options
_USE = "-XX:SharedArchiveFile={archive} -Xlog:cds=off,cds+dynamic=off"
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
    """The JVM options that map the archive of ``folder`` (made first when it is missing), or ``""``
    when there is no folder, no PySpark or no Java."""
    java = shutil.which("java")
    if not folder or java is None or importlib.util.find_spec("pyspark") is None:
        return ""
    jars = Path(importlib.util.find_spec("pyspark").origin).parent / "jars"
    identity = f"{jars.resolve()}|{Path(java).resolve()}|{Path(java).resolve().stat().st_mtime_ns}"
    archive = Path(folder) / f"spark-{hashlib.sha256(identity.encode()).hexdigest()[:16]}.jsa"
    if not archive.exists() and "PYTEST_XDIST_WORKER" not in os.environ:
        _record(archive)
    return _USE.format(archive=archive)


def _record(archive: Path) -> None:
    """Run the small session once with the JVM writing the classes it loaded at exit; the archive
    appears whole or not at all."""
    archive.parent.mkdir(parents=True, exist_ok=True)
    partial = archive.with_name(f"{archive.name}.{os.getpid()}.partial")
    scratch = archive.with_name(f"{archive.name}.{os.getpid()}.parquet")
    env = {
        **os.environ,
        "PYSPARK_PYTHON": sys.executable,
        "SPARK_SUBMIT_OPTS": f"-XX:TieredStopAtLevel=1 -XX:ArchiveClassesAtExit={partial} -Xlog:cds=off,cds+dynamic=off",
    }
    try:
        done = subprocess.run(
            [sys.executable, "-c", _SESSION, str(scratch)], env=env, capture_output=True, timeout=300, check=False
        )
        if done.returncode == 0 and partial.exists():
            os.replace(partial, archive)
    except (OSError, subprocess.TimeoutExpired):
        pass
    finally:
        partial.unlink(missing_ok=True)
        shutil.rmtree(scratch, ignore_errors=True)
