"""Type checkers see the public API: in a user's module, every name imported from the top level has
its real type, not ``Any`` (the names load lazily, and the ``TYPE_CHECKING`` imports declare them).

Runs mypy on a small module, as a user of the installed package would: the lint env, which has
mypy, runs it (``-m typing``); the other envs deselect it."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

import pytest_rmq_conformance

pytestmark = pytest.mark.typing

USER = '''\
from pytest_rmq_conformance import MessageQueue, reference_strategy

queue = MessageQueue("TopicTest", "broker-a", 0)
reveal_type(queue)
reveal_type(queue.queue_id)
reveal_type(reference_strategy)
'''


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory) -> Path:
    """mypy's cache for the user's module, shared by the checks here and kept between runs where
    ``MYPY_CACHE_DIR`` names a folder (.ci/run keeps it on the machine): a cache changes how fast
    mypy answers, not what it answers."""
    kept = os.environ.get("MYPY_CACHE_DIR")
    return Path(kept) / "user-module" if kept else tmp_path_factory.mktemp("mypy-cache")


def mypy(tmp_path, code: str, cache: Path) -> list[str]:
    """mypy's notes and errors on ``code``, a user's module (no configuration of this project)."""
    from mypy import api  # the lint env's (not in the test extra)

    (tmp_path / "user.py").write_text(code, encoding="utf-8")
    (tmp_path / "mypy.ini").write_text("[mypy]\n", encoding="utf-8")
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        out, err, _ = api.run(["--config-file", "mypy.ini", "--cache-dir", str(cache), "user.py"])
    finally:
        os.chdir(here)
    assert not err, err
    return [line for line in out.splitlines() if line.startswith("user.py:")]


def revealed(lines: list[str]) -> list[str]:
    return [found.group(1) for line in lines if (found := re.search(r'Revealed type is "(.*)"$', line))]


def test_a_users_module_sees_the_real_types(tmp_path, mypy_cache):
    lines = mypy(tmp_path, USER, mypy_cache)
    types = revealed(lines)
    assert types[:2] == ["pytest_rmq_conformance.model.MessageQueue", "int"], lines
    assert types[2].startswith("def (name: str") and types[2].endswith("-> Any"), lines
    assert not [line for line in lines if ": error:" in line], lines


def test_no_public_name_is_any(tmp_path, mypy_cache):
    names = list(pytest_rmq_conformance.__all__)
    code = "import pytest_rmq_conformance\n" + "".join(f"reveal_type(pytest_rmq_conformance.{name})\n" for name in names)
    lines = mypy(tmp_path, code, mypy_cache)
    types = revealed(lines)
    assert len(types) == len(names), lines
    assert [name for name, shown in zip(names, types) if shown == "Any"] == []
