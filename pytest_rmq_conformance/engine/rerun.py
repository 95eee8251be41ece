"""The one-line commands that rerun a golden case or replay a generated check."""

from __future__ import annotations

import shlex
from pathlib import Path

__all__ = ["rerun_command", "replay_command", "suite_node"]


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
    """One command line that replays the generated ``test`` (a ``path::name`` node) with its seed."""
    words = [*_words(settings), f"--rmq-profile={settings.profile}", f"--rmq-seed={settings.seed}"]
    if settings.examples is not None:
        words.append(f"--rmq-examples={settings.examples}")
    return " ".join(shlex.quote(word) for word in [*words[:1], test, *words[1:]])


def suite_node(module: str, name: str) -> str:
    """The node id of a test of the installed suite, e.g. ``suite_node("test_reference", "test_matches_reference[AVG]")``."""
    return f"{Path(__file__).resolve().parent.parent / 'suite' / module}.py::{name}"
