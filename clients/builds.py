"""What the compiled clients' build scripts share (``clients/go/build.py``, ``clients/rust/build.py``):
a build folder per harness and version under this project's cache, stamped with what it was
built from and locked while it builds, and the launcher a ``versions.toml`` harness spec runs.

A build script is a module with ``HARNESSES`` (harness folder -> the package it builds against),
``pinned(name)`` (the version its manifest requires), ``build(name, version, home)`` (the binary
and what the registry served; :class:`BuildError` when it cannot) and ``SCRIPT`` (its path from
the repository's root, ``clients/go/build.py``; its launcher is ``harness.py`` beside it).
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType


class BuildError(Exception):
    """What stopped a build, in one line."""


def one_line(text: str) -> str:
    return " ".join(part.strip() for part in text.splitlines() if part.strip())


def cache_root() -> Path:
    """``$XDG_CACHE_HOME`` (or ``~/.cache``) ``/rmq-conformance``: outside any clone."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rmq-conformance"


def binary_of(name: str, home: Path) -> Path:
    """Where a build of the harness ``name`` in ``home`` puts its binary."""
    return home / f"{name}-harness"


def stamp(work: Path) -> dict[str, str]:
    """What the last build in ``work`` wrote of itself (``built.json``; empty: none)."""
    try:
        found = json.loads((work / "built.json").read_text())
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def built(work: Path, name: str, key: str, make: Callable[[], dict[str, str]]) -> Path:
    """The binary of ``name`` in ``work``, made by ``make`` (which returns what the stamp records
    beside ``key``) unless the last build there was of the same ``key``. Harnesses started at once
    build it once: the build holds ``work/build.lock``."""
    binary = binary_of(name, work)
    work.mkdir(parents=True, exist_ok=True)
    with (work / "build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp(work).get("key") != key or not binary.is_file():
            recorded = make()
            (work / "built.json").write_text(json.dumps({"key": key, **recorded}))
    return binary


def main(script: ModuleType, argv: list[str] | None, doc: str, example: str, served: Callable[[dict[str, str]], str]) -> int:
    """A build script's command line: ``HARNESS VERSION [--home DIR]``; the binary's path on stdout
    and ``served(what the registry served)`` on stderr, or one line saying why not, exit 2."""
    import argparse

    parser = argparse.ArgumentParser(description=doc.split("\n\n", maxsplit=1)[0])
    parser.add_argument("harness", choices=sorted(script.HARNESSES))
    parser.add_argument("version", help=f"a version the registry serves ({example})")
    parser.add_argument("--home", type=Path, help="build in this folder (default: a folder of ~/.cache/rmq-conformance)")
    args = parser.parse_args(argv)
    try:
        binary, found = script.build(args.harness, args.version, args.home)
    except BuildError as exc:
        print(f"{script.SCRIPT}: {exc}", file=sys.stderr)
        return 2
    print(f"{script.HARNESSES[args.harness]}@{served(found)}", file=sys.stderr)
    print(binary)
    return 0


def launch(script: ModuleType, argv: list[str] | None, doc: str) -> int:
    """A harness spec's launcher: the build ``RMQ_CLIENT_HOME`` names (``build.py --home``, the
    trend's), or else the version the harness's manifest requires, built when it is not; then
    the harness takes this process's place, so the suite talks to the program itself. What stops
    it is one line on stderr, exit 2."""
    import argparse

    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("harness", choices=sorted(script.HARNESSES))
    args = parser.parse_args(argv)
    launcher = script.SCRIPT.replace("build.py", "harness.py")
    home = Path(os.environ["RMQ_CLIENT_HOME"]) if os.environ.get("RMQ_CLIENT_HOME") else None
    version = script.pinned(args.harness) if home is None else stamp(home).get("version")
    if version is None:
        print(f"{launcher}: RMQ_CLIENT_HOME={home} holds no build ({script.SCRIPT} --home)", file=sys.stderr)
        return 2
    try:
        binary, _ = script.build(args.harness, version, home)
    except BuildError as exc:
        print(f"{launcher}: {exc}", file=sys.stderr)
        return 2
    os.execv(binary, [str(binary)])
    return 0  # not reached: execv does not return
