"""Build a Go client's harness against one version the Go module proxy serves.

    python clients/go/build.py rocketmq-client-go v2.1.2     # prints the harness binary's path
    python clients/go/build.py rocketmq-client-go v2.1.1 --home DIR   # builds it in DIR instead

The module is downloaded by ``go mod download`` into Go's module cache (outside the clone), and
the harness is built against a copy of it in this project's cache (``$XDG_CACHE_HOME`` or
``~/.cache``, ``rmq-conformance/go/<harness>@<version>/``): the copy is the module as the proxy
served it (its ``h1:`` sum is printed on stderr), plus the files of the harness's ``hook/``
folder, which reach what the module keeps to itself and change nothing else; ``--home`` builds in
another folder (the trend's, one per version), which ``RMQ_CLIENT_HOME`` then names to
``clients/go/harness.py``. A build whose sources are unchanged is reused. Exit 2 with one line
saying why when the version does not resolve or the build fails (the compiler's first error).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("clients_builds", HERE.parent / "builds.py")
assert _spec is not None and _spec.loader is not None
builds = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(builds)

SCRIPT = "clients/go/build.py"
#: each harness folder's module, as its go.mod requires it
HARNESSES = MODULES = {
    "rocketmq-client-go": "github.com/apache/rocketmq-client-go/v2",
    "rocketmq-clients-golang": "github.com/apache/rocketmq-clients/golang/v5",
}
BuildError = builds.BuildError
_one_line = builds.one_line


def cache_root() -> Path:
    return builds.cache_root() / "go"


def _go(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    go = shutil.which("go")
    if go is None:
        raise BuildError("go is not installed (https://go.dev/dl/)")
    env = {**os.environ, "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": os.environ.get("GOTOOLCHAIN", "local")}
    return subprocess.run([go, *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)


def download(module: str, version: str, scratch: Path) -> dict[str, str]:
    """The proxy's ``module@version``: its folder in the module cache, resolved version and sum."""
    scratch.mkdir(parents=True, exist_ok=True)
    done = _go(["mod", "download", "-json", f"{module}@{version}"], scratch)
    try:
        found = json.loads(done.stdout)
    except json.JSONDecodeError:
        found = {"Error": done.stderr.strip() or f"go mod download exited {done.returncode}"}
    if found.get("Error") or done.returncode != 0:
        raise BuildError(f"{module}@{version} does not resolve: {_one_line(found.get('Error') or done.stderr)}")
    return found


def _sources_key(harness: Path, found: dict[str, str]) -> str:
    digest = hashlib.sha256(f"{found['Version']} {found['Sum']}".encode())
    for path in sorted([harness / "main.go", harness / "go.mod", *sorted((harness / "hook").glob("*.go"))]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _package(source: Path) -> str:
    """The package a Go file's package clause names."""
    return next(line.split()[1] for line in source.read_text().splitlines() if line.startswith("package "))


def _package_dir(module: Path, package: str) -> Path:
    """Where a hook of ``package`` goes in ``module``: the folder of that name, or the module's root
    when the root's package is that one (``package golang`` of rocketmq-clients)."""
    if (module / package).is_dir():
        return module / package
    if any(_package(source) == package for source in module.glob("*.go")):
        return module
    raise BuildError(f"{module.name}: no package {package} at the module's root or in a folder of its name")


def _writable(tree: Path) -> None:
    for path in [tree, *tree.rglob("*")]:
        path.chmod(path.stat().st_mode | stat.S_IWUSR)


def pinned(name: str) -> str:
    """The version of its module that the harness ``name``'s go.mod requires."""
    module = MODULES[name]
    gomod = (HERE / name / "go.mod").read_text(encoding="utf-8")
    return next(line.split()[2] for line in gomod.splitlines() if line.strip().startswith(f"require {module} "))


def build(name: str, version: str, home: Path | None = None) -> tuple[Path, dict[str, str]]:
    """The harness ``name`` built against ``version`` in ``home`` (by default a folder of this
    project's cache): its binary, and what the proxy served."""
    harness = HERE / name
    module = MODULES[name]
    work = home or cache_root() / f"{name}@{version}"
    found = download(module, version, cache_root() / "scratch")
    return builds.built(work, name, _sources_key(harness, found), lambda: _build_in(work, harness, module, found)), found


def _build_in(work: Path, harness: Path, module: str, found: dict[str, str]) -> dict[str, str]:
    binary = builds.binary_of(harness.name, work)
    for made in (work / "module", work / "harness"):  # a build's own folders, not what else is in work
        if made.exists():
            _writable(made)
            shutil.rmtree(made)
    shutil.copytree(found["Dir"], work / "module")
    _writable(work / "module")
    for hook in sorted((harness / "hook").glob("*.go")):
        shutil.copy(hook, _package_dir(work / "module", _package(hook)) / hook.name)
    (work / "harness").mkdir()
    shutil.copy(harness / "main.go", work / "harness" / "main.go")
    gomod = (harness / "go.mod").read_text()
    pinned = next(line.split()[2] for line in gomod.splitlines() if line.strip().startswith(f"require {module} "))
    gomod = gomod.replace(f"require {module} {pinned}", f"require {module} {found['Version']}")
    (work / "harness" / "go.mod").write_text(gomod + f"\nreplace {module} => ../module\n")
    done = _go(["build", "-trimpath", "-o", str(binary), "."], work / "harness")
    if done.returncode != 0:
        first = next((line for line in done.stderr.splitlines() if ": " in line and not line.startswith("go: downloading")), done.stderr.strip())
        raise BuildError(f"{module}@{found['Version']} does not build: {first}")
    return {"version": found["Version"], "sum": found["Sum"]}


def main(argv: list[str] | None = None) -> int:
    return builds.main(sys.modules[__name__], argv, __doc__, "v2.1.2, or a pseudo-version", lambda found: f"{found['Version']} {found['Sum']}")


if __name__ == "__main__":
    sys.exit(main())
