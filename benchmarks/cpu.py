"""CPU time of whole processes, measured in pairs: the yardsticks every ratio here is read against."""

from __future__ import annotations

import os
import resource
import statistics
import subprocess

__all__ = ["cpu_of", "median_ratio"]


def cpu_of(command, cwd) -> float:
    """CPU seconds (user + system) a child process used; it must exit 0. Bytecode is written
    (``PYTHONDONTWRITEBYTECODE`` dropped), as in a user's repeated runs."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def median_ratio(measured, yardstick, repeat: int, cwd) -> tuple[float, float]:
    """The median CPU seconds of ``measured`` and of ``yardstick``, run ``repeat`` times each,
    interleaved (so that load changes hit both alike), after one warm-up run of each."""
    cpu_of(measured, cwd), cpu_of(yardstick, cwd)
    ours, theirs = [], []
    for _ in range(repeat):
        ours.append(cpu_of(measured, cwd))
        theirs.append(cpu_of(yardstick, cwd))
    return statistics.median(ours), statistics.median(theirs)
