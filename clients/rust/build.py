"""Build a Rust client's harness against one version crates.io serves.

    python clients/rust/build.py rocketmq-client-rust 1.0.0              # prints the harness binary's path
    python clients/rust/build.py rocketmq-client-rust 1.0.0 --home DIR   # builds it in DIR instead

The harness crate (``clients/rust/<harness>/``: ``Cargo.toml`` and ``src/``) is copied into a
folder of this project's cache (``$XDG_CACHE_HOME`` or ``~/.cache``,
``rmq-conformance/rust/<harness>@<version>/``), its ``Cargo.toml`` requiring the client at
``=VERSION`` and each other crate the client depends on too (its model crate, ``cheetah-string``)
at the client's own requirement, so that the harness and the client name the same types. Cargo
keeps the crates it downloads in its registry (``~/.cargo``, outside the clone) and compiles into
one target folder per harness (``rmq-conformance/cargo-target/<harness>``), so that the
dependencies the versions share are compiled once; the binary is copied into the build folder.
The resolved version and the client's repository reach the harness as ``RMQ_CRATE_VERSION`` and
``RMQ_CRATE_REPOSITORY`` at build time (its hello says them). ``--home`` builds in another folder
(the trend's, one per version), which ``RMQ_CLIENT_HOME`` then names to
``clients/rust/harness.py``. A build whose sources are unchanged is reused. Exit 2 with one line
saying why when the version does not resolve or the build fails (the compiler's first error).
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("clients_builds", HERE.parent / "builds.py")
assert _spec is not None and _spec.loader is not None
builds = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(builds)

SCRIPT = "clients/rust/build.py"
#: each harness folder's crate, as its Cargo.toml requires it
HARNESSES = CRATES = {"rocketmq-client-rust": "rocketmq-client-rust"}
#: cargo's jobs: the machines have two cores, which other work shares
JOBS = os.environ.get("RMQ_CARGO_JOBS", "2")
BuildError = builds.BuildError
_one_line = builds.one_line
cache_root = builds.cache_root


def _cargo(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    cargo = shutil.which("cargo")
    if cargo is None:
        raise BuildError("cargo is not installed (https://rustup.rs)")
    return subprocess.run([cargo, *args], cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True, check=False)


def _dependency_line(name: str) -> re.Pattern[str]:
    """A line of the harness's [dependencies]: ``name = { version = "REQ" ... }``."""
    return re.compile(rf'^({re.escape(name)} = \{{ version = )"([^"]*)"', re.MULTILINE)


def pinned(name: str) -> str:
    """The version of its crate that the harness ``name``'s Cargo.toml requires (``=1.0.0``: 1.0.0)."""
    found = _dependency_line(CRATES[name]).search((HERE / name / "Cargo.toml").read_text(encoding="utf-8"))
    assert found is not None, f"{name}/Cargo.toml requires no {CRATES[name]}"
    return found.group(2).lstrip("=")


def resolve(harness: Path, crate: str, version: str, scratch: Path) -> dict[str, str]:
    """crates.io's ``crate@=version`` as cargo resolves it: the version, the client's repository and
    the harness's manifest with its dependencies at the client's own requirements."""
    (scratch / "src").mkdir(parents=True, exist_ok=True)
    manifest = _dependency_line(crate).sub(rf'\1"={version}"', (harness / "Cargo.toml").read_text(encoding="utf-8"))
    with (scratch / "resolve.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        (scratch / "Cargo.toml").write_text(manifest, encoding="utf-8")
        (scratch / "src" / "main.rs").write_text("fn main() {}\n", encoding="utf-8")
        (scratch / "Cargo.lock").unlink(missing_ok=True)
        done = _cargo(["metadata", "--format-version", "1"], scratch)
    if done.returncode != 0:
        shutil.rmtree(scratch, ignore_errors=True)
        first = next((line for line in done.stderr.splitlines() if line.startswith("error")), done.stderr.strip())
        hint = next((line.strip() for line in done.stderr.splitlines() if "candidate versions found" in line), "")
        raise BuildError(f"{crate}@{version} does not resolve: {_one_line(first + ' ' + hint)}")
    metadata = json.loads(done.stdout)
    client = next(package for package in metadata["packages"] if package["name"] == crate and package["source"])
    wants = {dep["name"]: dep["req"] for dep in client["dependencies"] if dep["kind"] is None}
    for name, req in wants.items():  # the client's requirement of each crate both depend on
        if name != crate:
            manifest = _dependency_line(name).sub(rf'\1"{req}"', manifest)
    return {"version": client["version"], "repository": client.get("repository") or "", "manifest": manifest}


def _sources_key(harness: Path, found: dict[str, str]) -> str:
    digest = hashlib.sha256(f"{found['version']} {found['manifest']}".encode())
    for path in sorted(harness.rglob("*.rs")):
        digest.update(str(path.relative_to(harness)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def build(name: str, version: str, home: Path | None = None) -> tuple[Path, dict[str, str]]:
    """The harness ``name`` built against ``version`` in ``home`` (by default a folder of this
    project's cache): its binary, and what cargo resolved."""
    harness = HERE / name
    work = home or cache_root() / "rust" / f"{name}@{version}"
    found = resolve(harness, CRATES[name], version, cache_root() / "rust" / "resolve" / f"{name}@{version}")
    return builds.built(work, name, _sources_key(harness, found), lambda: _build_in(work, harness, found)), found


def _build_in(work: Path, harness: Path, found: dict[str, str]) -> dict[str, str]:
    binary = builds.binary_of(harness.name, work)
    if (work / "harness").exists():  # a build's own folder, not what else is in work
        shutil.rmtree(work / "harness")
    shutil.copytree(harness / "src", work / "harness" / "src")
    (work / "harness" / "Cargo.toml").write_text(found["manifest"], encoding="utf-8")
    target = cache_root() / "cargo-target" / harness.name
    target.mkdir(parents=True, exist_ok=True)
    env = {"CARGO_TARGET_DIR": str(target), "RMQ_CRATE_VERSION": found["version"], "RMQ_CRATE_REPOSITORY": found["repository"]}
    with (target / "rmq-build.lock").open("w") as lock:  # the versions share the target's binary
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = _cargo(["build", "--release", "--jobs", JOBS, "--message-format", "short"], work / "harness", env)
        if done.returncode != 0:
            errors = [line for line in done.stderr.splitlines() if re.search(r"(^|\s)error(\[\w+\])?: ", line)]
            first = next((line for line in errors if "could not compile" not in line), errors[0] if errors else done.stderr.strip())
            first = re.sub(r"\S*/registry/src/[^/]+/", "", first)  # a crate's file, as crates.io names it
            raise BuildError(f"{CRATES[harness.name]}@{found['version']} does not build: {_one_line(first)}")
        shutil.copy2(target / "release" / binary.name, binary)
    return {"version": found["version"], "repository": found["repository"]}


def main(argv: list[str] | None = None) -> int:
    return builds.main(sys.modules[__name__], argv, __doc__, "1.0.0", lambda found: f"{found['version']} {found['repository']}")


if __name__ == "__main__":
    sys.exit(main())
