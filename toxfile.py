"""This project's tox plugin (tox loads ``toxfile.py`` beside ``tox.ini``): find the Pythons that
pyenv installed but did not put on ``PATH``, so that ``tox`` runs every Python of ``env_list``
instead of skipping those it cannot see, and say which it still cannot find.

tox looks for ``python3.X`` on ``PATH`` only. A machine whose pyenv shims expose one version
(``pyenv global 3.11``) has the others under ``$PYENV_ROOT/versions``; this adds the newest of
each minor version the project supports to the end of ``PATH`` before tox discovers them.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

#: the Pythons of tox.ini's env_list
MINORS = ("3.10", "3.11", "3.12", "3.13")


def _newest(versions: Path, minor: str) -> Path | None:
    """The bin folder of pyenv's newest ``minor`` release (3.12.7 over 3.12.10 compares as numbers)."""
    found = []
    for folder in versions.glob(f"{minor}.*"):
        parts = folder.name.split(".")
        if len(parts) == 3 and all(part.isdigit() for part in parts) and (folder / "bin" / f"python{minor}").exists():
            found.append((tuple(int(part) for part in parts), folder / "bin"))
    return max(found)[1] if found else None


def find_pythons(environ: dict[str, str] | os._Environ = os.environ, say=lambda line: print(line, file=sys.stderr)) -> list[str]:
    """Append pyenv's bin folders of the supported Pythons missing from ``PATH`` to ``environ``'s
    ``PATH``; say what was added and what is still missing. Returns the versions still missing."""
    root = Path(environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
    missing = []
    for minor in MINORS:
        if shutil.which(f"python{minor}", path=environ.get("PATH", "")):
            continue
        folder = _newest(root / "versions", minor)
        if folder is None:
            missing.append(minor)
            continue
        environ["PATH"] = f"{environ.get('PATH', '')}{os.pathsep}{folder}"
        say(f"toxfile.py: python{minor} is not on PATH; using pyenv's {folder}")
    if missing:
        say(
            f"toxfile.py: no Python {', '.join(missing)} on PATH or in {root / 'versions'}: tox skips "
            f"{', '.join('py' + m.replace('.', '') for m in missing)} (pyenv install {missing[0]}, or run one env: tox -e py311)"
        )
    return missing


try:
    from tox.plugin import impl
except ImportError:  # imported by the tests, without tox
    pass
else:

    @impl
    def tox_add_option(parser) -> None:  # the first hook tox calls, before it looks for Pythons
        find_pythons()
