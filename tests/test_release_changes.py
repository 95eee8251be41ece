"""docs/releases.md, "What changed between releases", is what ``rmq-conformance golden changes``
writes from the shipped golden vectors: a change of the vectors that leaves the page behind fails
here (its rerun lines run in tests/test_docs_blocks.py)."""

from __future__ import annotations

from pathlib import Path

from pytest_rmq_conformance import cli
from pytest_rmq_conformance.engine.golden.changes import histories, markdown
from pytest_rmq_conformance.engine.golden.data import shipped_dirs

PAGE = Path(__file__).resolve().parent.parent / "docs" / "releases.md"


def test_the_committed_page_is_what_the_shipped_vectors_give():
    assert PAGE.read_text(encoding="utf-8") == markdown(histories(shipped_dirs()), cli.PAGE_COMMAND), (
        f"docs/releases.md is stale: run {cli.PAGE_COMMAND}"
    )


def test_the_command_writes_the_page(tmp_path, capsys):
    out = tmp_path / "releases.md"
    assert cli.main(["golden", "changes", "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == PAGE.read_text(encoding="utf-8")
    assert capsys.readouterr().out == f"written: {out}\n"


def test_the_page_names_the_changes_the_vectors_know():
    """The fault strategy's rewrite (from 4.8.0 on), its fixes on the way to 4.9.8 (the mutated shared
    queue among them) and 5.1's queue-selection pipeline (5.1.1, then 5.1.4), and 4.7.1's
    abs(MIN_VALUE) in the hash selector (fixed in 4.8.0), each with its first case; a step to a
    release the built-in port reproduces has the line that replays it."""
    text = PAGE.read_text(encoding="utf-8")
    steps = [
        ("FAULT_STRATEGY", "4.7.1 to 4.8.0"), ("FAULT_STRATEGY", "4.9.6 to 4.9.8"), ("FAULT_STRATEGY", "5.1.0 to 5.1.1"),
        ("FAULT_STRATEGY", "5.1.3 to 5.1.4"), ("SELECTOR_HASH", "4.7.1 to 4.8.0"), ("MACHINE_ROOM", "4.7.1 to 4.8.0"),
    ]
    for family, step in steps:
        section = text.split(f"## {family}\n", 1)[1].split("\n## ", 1)[0]
        assert f"### {step}\n" in section, (family, step)
    fix = text.split("### 4.9.6 to 4.9.8\n", 1)[1].split("###", 1)[0]
    assert "list-mutation 16" in fix
    assert "(by category: min-value 25)" in text
    assert "$ pytest --rmq-strategy=SELECTOR_HASH --rmq-reference-version=4.8.0 --rmq-checks=golden --rmq-case=pub-SELECTOR_HASH-0013-min-value" in text
    assert "replay it with a strategy of your own, `pytest --rmq-strategy=mypkg:MyStrategy --rmq-reference-version=4.8.0" in text
