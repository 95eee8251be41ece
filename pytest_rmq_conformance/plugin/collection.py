"""Which suite tests run: ``--rmq-checks`` parts, ``--rmq-case`` patterns, and the known
divergences of ``--rmq-xfail-file`` / ``--rmq-skip-file``.

Internal: import the public names from ``pytest_rmq_conformance``.
"""

from __future__ import annotations

import warnings
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

from pytest_rmq_conformance.plugin.options import CHECKS
from pytest_rmq_conformance.plugin.state import SUITE_DIR

__all__ = ["suite_part", "case_id", "case_family", "select"]


def suite_part(path: Path) -> str | None:
    """The part of the suite a suite module holds: ``test_one_answer.py`` holds ``one-answer``."""
    path = Path(path)
    if path.parent != SUITE_DIR or not path.name.startswith("test_") or path.suffix != ".py":
        return None
    return path.stem[len("test_"):].replace("_", "-")


def case_id(item) -> str | None:
    """The id of the golden case a suite test checks (its golden replay or its sort), if any."""
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return None
    case = callspec.params.get("rmq_golden_case", callspec.params.get("rmq_sort_case"))
    return getattr(case, "id", None)


def case_family(item) -> str | None:
    """The family of the golden case a suite test checks, if any."""
    params = item.callspec.params
    return getattr(params.get("rmq_golden_case", params.get("rmq_sort_case")), "strategy", None)


def _deselect(config, items: list, keep: list) -> None:
    dropped = [item for item in items if item not in keep]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def _applies(item, kinds: set[str]) -> bool:
    """Whether a suite test applies to a strategy of ``kinds``: its ``rmq_check`` marker names
    the kinds it checks (``kinds=("allocation",)``), or none for every kind."""
    part = item.get_closest_marker("rmq_check")
    declared = None if part is None else part.kwargs.get("kinds")
    return declared is None or bool(kinds & set(declared))


def select(state, config, items: list) -> None:
    """Deselect, mark skipped or expected to fail, as the run's options ask; deselect the checks
    that do not apply to the kind of strategy under test."""
    subject = state.subject
    if subject.load_error is None:
        kinds = {kind.name for kind in subject.kinds}
        _deselect(config, items, [item for item in items if _applies(item, kinds)])
    if state.checks is not None:
        keep = []
        for item in items:
            part = item.get_closest_marker("rmq_check")
            if part is None or part.args[0] not in CHECKS or part.args[0] in state.checks:
                keep.append(item)
        _deselect(config, items, keep)
    if state.case_patterns:
        keep = [
            item
            for item in items
            if case_id(item) is None or any(fnmatchcase(case_id(item), p) for p in state.case_patterns)
        ]
        _deselect(config, items, keep)
    for item in items:
        names = (case_id(item), item.name, getattr(item, "originalname", None))
        for case_list in state.skip_lists:
            entry = case_list.match(names)
            if entry is not None:
                item.add_marker(pytest.mark.skip(reason=f"{entry.where}: {entry.reason or 'listed'}"))
        for case_list in state.xfail_lists:
            entry = case_list.match(names)
            if entry is not None:
                item.add_marker(pytest.mark.xfail(reason=f"{entry.where}: {entry.reason or 'known divergence'}"))
    worker = getattr(config, "workerinput", {}).get("workerid")
    if worker in (None, "gw0"):
        for case_list in state.skip_lists + state.xfail_lists:
            for entry in case_list.unused():
                warnings.warn(
                    pytest.PytestWarning(f"{entry.where}: entry {entry.pattern!r} matches no collected test"),
                    stacklevel=1,
                )
