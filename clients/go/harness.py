"""Run a Go client's harness for the suite: ``exec:python clients/go/harness.py rocketmq-client-go``.

With ``RMQ_CLIENT_HOME`` naming a folder that ``build.py --home`` built a version in (the
trend's), that build; otherwise the version the harness's ``go.mod`` requires (the pin, as
``clients/versions.toml`` says it), built by ``build.py`` first when its cache has no build of
it (about a minute the first time, seconds after). The harness then takes this process's place,
so the suite talks to the Go program itself. A build that fails is one line on stderr, exit 2.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path

# build.py beside this file, by its path: the name ``build`` is also PyPI's build package
_spec = importlib.util.spec_from_file_location("clients_go_build", Path(__file__).resolve().parent / "build.py")
assert _spec is not None and _spec.loader is not None
build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build)


def pinned(name: str) -> str:
    """The version of its module that the harness ``name``'s go.mod requires."""
    module = build.MODULES[name]
    gomod = (build.HERE / name / "go.mod").read_text(encoding="utf-8")
    return next(line.split()[2] for line in gomod.splitlines() if line.strip().startswith(f"require {module} "))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("harness", choices=sorted(build.MODULES))
    args = parser.parse_args(argv)
    home = Path(os.environ["RMQ_CLIENT_HOME"]) if os.environ.get("RMQ_CLIENT_HOME") else None
    version = pinned(args.harness) if home is None else build.built_version(home)
    if version is None:
        print(f"clients/go/harness.py: RMQ_CLIENT_HOME={home} holds no build (clients/go/build.py --home)", file=sys.stderr)
        return 2
    try:
        binary, _ = build.build(args.harness, version, home)
    except build.BuildError as exc:
        print(f"clients/go/harness.py: {exc}", file=sys.stderr)
        return 2
    os.execv(binary, [str(binary)])
    return 0  # not reached: execv does not return


if __name__ == "__main__":
    sys.exit(main())
