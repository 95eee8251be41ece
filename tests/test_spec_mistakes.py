"""The ``--rmq-strategy`` mistakes a newcomer makes first: a module named by its file, ``.`` for
``:``, a harness in the current folder named as if on PATH, a folder, a script without its
execute bit. Each is a usage error (exit 4) in one line that says what to write instead."""

import os
import sys
from pathlib import Path

import pytest

from pytest_rmq_conformance.cli import main

STRATEGY = """
from pytest_rmq_conformance.ports.allocation import AllocateMessageQueueAveragely as Averagely
"""
SCRIPT = "#!/usr/bin/env node\nconsole.log('{}')\n"


@pytest.fixture
def here(pytester):
    """The user's folder: their strategy module, a Node harness, a Go harness's folder."""
    pytester.makepyfile(my_allocation=STRATEGY)
    (pytester.path / "h.js").write_text(SCRIPT)
    (pytester.path / "harness").mkdir()
    return pytester


def usage_error(pytester, spec):
    result = pytester.runpytest("-p", "no:cacheprovider", f"--rmq-strategy={spec}", "--rmq-checks=golden")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()[-2000:]
    lines = [line for line in result.stderr.str().splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert "passed" not in result.stdout.str() and "failed" not in result.stdout.str()
    return lines[0]


@pytest.mark.parametrize(
    "spec, says",
    [
        ("my_allocation.py:Averagely", "name the module, not its file: my_allocation:Averagely"),
        ("./my_allocation.py:Averagely", "name the module, not its file: my_allocation:Averagely"),
        ("my_allocation.Averagely",
         "no such strategy; did you mean my_allocation:Averagely? (a module's strategy is named module:attribute)"),
        ("my_allocation.py",
         "no such strategy; a strategy in my_allocation.py is named module:attribute: my_allocation:NAME (NAME its class or factory)"),
    ],
)
def test_a_module_spec_written_as_a_file_or_with_a_dot_says_what_to_write(here, spec, says):
    assert usage_error(here, spec) == f"ERROR: --rmq-strategy={spec}: {says}"


def test_a_script_of_the_current_folder_named_without_dot_slash_is_told_exec_searches_path(here):
    assert usage_error(here, "exec:h.js --fast") == (
        "ERROR: --rmq-strategy=exec:h.js --fast: exec: looks h.js up on PATH, as a shell does, not in the current folder: "
        "write exec:node h.js --fast, or chmod +x h.js and write exec:./h.js --fast"
    )
    os.chmod(here.path / "h.js", 0o755)
    assert usage_error(here, "exec:h.js") == (
        "ERROR: --rmq-strategy=exec:h.js: exec: looks h.js up on PATH, as a shell does, not in the current folder: "
        "write exec:./h.js, or exec:node h.js"
    )


def test_a_script_without_its_execute_bit_is_told_chmod_or_its_interpreter(here):
    assert usage_error(here, "exec:./h.js") == (
        "ERROR: --rmq-strategy=exec:./h.js: ./h.js is not executable: chmod +x ./h.js (a script needs its #! line too), "
        "or write exec:node ./h.js"
    )


def test_a_folder_is_told_to_name_the_program_in_it(here):
    assert usage_error(here, "exec:harness") == (
        "ERROR: --rmq-strategy=exec:harness: harness is a folder, not a program (it holds no executable file yet: "
        "build it first): name the harness program in it, exec:./harness/PROGRAM"
    )
    built = here.path / "harness" / "my-client"
    built.write_text("#!/bin/sh\n")
    built.chmod(0o755)
    assert usage_error(here, "exec:./harness/") == (
        "ERROR: --rmq-strategy=exec:./harness/: ./harness/ is a folder, not a program (it holds my-client): "
        "name the harness program in it, exec:./harness/my-client"
    )


@pytest.mark.parametrize("by", ["path", "name on PATH"])
def test_a_program_on_path_or_given_by_its_path_is_let_through(here, monkeypatch, by):
    """No advice where the command is right: the harness starts (and here says hello), even with a
    folder of the program's name in the current folder (a shell would run the one on PATH)."""
    python = Path(sys.executable)
    if by == "name on PATH":
        monkeypatch.setenv("PATH", f"{python.parent}{os.pathsep}{os.environ.get('PATH', '')}")
        (here.path / python.name).mkdir()
    program = str(python) if by == "path" else python.name
    result = here.runpytest("-p", "no:cacheprovider", f"--rmq-strategy=exec:{program} -m pytest_rmq_conformance.harness AVG",
                            "--rmq-checks=golden", "--rmq-case=pub-AVG-0001-published-example")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-2000:] + result.stderr.str()


def test_the_sweep_gives_the_same_advice(here, capsys, tmp_path):
    pytest.importorskip("pyspark", reason="without the sweep extra the sweep says so first")
    assert main(["sweep", "--no-references", "--strategy", "my_allocation.Averagely", "--out", str(tmp_path / "out")]) == 2
    assert "--strategy my_allocation.Averagely: no such strategy; did you mean my_allocation:Averagely?" in capsys.readouterr().err
