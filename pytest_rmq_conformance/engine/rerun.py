"""The one-line commands that rerun a golden case or replay a generated check.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import shlex
from pathlib import Path

__all__ = ["rerun_command", "replay_command", "suite_node", "node_of"]

SUITE_PACKAGE = "pytest_rmq_conformance.suite"
SUITE_DIR = Path(__file__).resolve().parent.parent / "suite"


def _words(settings) -> list[str]:
    """``pytest`` and every choice of ``settings`` that is not its default, so that the line
    does what the run did from the directory the run started in."""
    from pytest_rmq_conformance.engine.settings import Settings

    words = ["pytest", f"--rmq-strategy={settings.spec}", f"--rmq-reference-version={settings.version}"]
    if settings.charset != "UTF-8":
        words.append(f"--rmq-charset={settings.charset}")
    if settings.strict_order:
        words.append("--rmq-strict-order")
    if settings.isolate:
        words.append("--rmq-isolate")
    if settings.timeout != Settings.timeout:
        words.append(f"--rmq-timeout={settings.timeout or 0:g}")
    if settings.max_restarts != Settings.max_restarts:
        words.append(f"--rmq-max-restarts={settings.max_restarts}")
    return words


def rerun_command(settings, case_id: str, check: str = "golden") -> str:
    """One command line that reruns just ``check`` (golden or sort) of the case ``case_id`` with ``settings``."""
    words = [*_words(settings), f"--rmq-checks={check}", f"--rmq-case={case_id}"]
    return " ".join(shlex.quote(word) for word in words)


def replay_command(settings, test: str) -> str:
    """One command line that replays the generated ``test`` with its seed: a ``path::name`` node,
    or a test of the installed suite as :func:`suite_node` names it (run with ``--pyargs``, so
    that pytest finds the rootdir and ini file of the directory the line is pasted in, as the
    run did, and not those around the installed package)."""
    words = [*_words(settings), f"--rmq-profile={settings.profile}", f"--rmq-seed={settings.seed}"]
    if settings.examples is not None:
        words.append(f"--rmq-examples={settings.examples}")
    node = ["--pyargs", test] if test.startswith(f"{SUITE_PACKAGE}.") else [test]
    return " ".join(shlex.quote(word) for word in [*words[:1], *node, *words[1:]])


def suite_node(module: str, name: str) -> str:
    """A test of the installed suite, as ``--pyargs`` names it, e.g.
    ``suite_node("test_reference", "test_matches_reference[AVG]")``."""
    return f"{SUITE_PACKAGE}.{module}::{name}"


def node_of(path: str | Path, name: str) -> str:
    """How a replay line names the test ``name`` of the file ``path``: through :func:`suite_node`
    for the suite's own modules, else by its path."""
    path = Path(path)
    if path.resolve().parent == SUITE_DIR:
        return suite_node(path.stem, name)
    return f"{path}::{name}"
