"""Run a Go client's harness for the suite: ``exec:python clients/go/harness.py rocketmq-client-go``.

With ``RMQ_CLIENT_HOME`` naming a folder that ``build.py --home`` built a version in (the
trend's), that build; otherwise the version the harness's ``go.mod`` requires (the pin, as
``clients/versions.toml`` says it), built by ``build.py`` first when its cache has no build of
it (about a minute the first time, seconds after). The harness then takes this process's place,
so the suite talks to the Go program itself. A build that fails is one line on stderr, exit 2.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

# build.py beside this file, by its path: the name ``build`` is also PyPI's build package
_spec = importlib.util.spec_from_file_location("clients_go_build", Path(__file__).resolve().parent / "build.py")
assert _spec is not None and _spec.loader is not None
build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build)
pinned = build.pinned

if __name__ == "__main__":
    sys.exit(build.builds.launch(build, None, __doc__))
