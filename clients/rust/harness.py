"""Run a Rust client's harness for the suite: ``exec:python clients/rust/harness.py rocketmq-client-rust``.

With ``RMQ_CLIENT_HOME`` naming a folder that ``build.py --home`` built a version in (the
trend's), that build; otherwise the version the harness's ``Cargo.toml`` requires (the pin),
built by ``build.py`` first when its cache has no build of it (half an hour the first time on two
cores, while cargo compiles the client and its dependencies; a few seconds after, cargo
resolving the version again). The harness then takes this process's place, so the suite talks to
the Rust program itself. A build that fails is one line on stderr, exit 2.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

# build.py beside this file, by its path: the name ``build`` is also PyPI's build package
_spec = importlib.util.spec_from_file_location("clients_rust_build", Path(__file__).resolve().parent / "build.py")
assert _spec is not None and _spec.loader is not None
build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build)

if __name__ == "__main__":
    sys.exit(build.builds.launch(build, None, __doc__))
