"""The one-line commands that rerun a golden case or replay a generated check."""

from __future__ import annotations

import shlex
from pathlib import Path

__all__ = ["rerun_command", "replay_command", "suite_node"]


def _words(settings) -> list[str]:
    words = ["pytest", f"--rmq-strategy={settings.spec}", f"--rmq-reference-version={settings.version}"]
    if settings.charset != "UTF-8":
        words.append(f"--rmq-charset={settings.charset}")
    if settings.strict_order:
        words.append("--rmq-strict-order")
    if settings.isolate:
        words.append("--rmq-isolate")
    return words


def rerun_command(settings, case_id: str) -> str:
    """One command line that reruns just the golden case ``case_id`` with ``settings``."""
    return " ".join(shlex.quote(word) for word in [*_words(settings), f"--rmq-case={case_id}"])


def replay_command(settings, test: str) -> str:
    """One command line that replays the generated ``test`` (a ``path::name`` node) with its seed."""
    words = [*_words(settings), f"--rmq-profile={settings.profile}", f"--rmq-seed={settings.seed}"]
    if settings.examples is not None:
        words.append(f"--rmq-examples={settings.examples}")
    return " ".join(shlex.quote(word) for word in [*words[:1], test, *words[1:]])


def suite_node(module: str, name: str) -> str:
    """The node id of a test of the installed suite, e.g. ``suite_node("test_reference", "test_matches_reference[AVG]")``."""
    return f"{Path(__file__).resolve().parent.parent / 'suite' / module}.py::{name}"
