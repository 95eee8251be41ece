"""Read the documentation's fenced blocks and run them as a reader would.

Each page is a session in a scratch folder of its own, its blocks taken in order:

- ```` ```console ```` holds commands (``$ `` lines, a trailing ``\\`` continues one) and, under each, the
  output it shows. The command runs in bash; its output (stdout and stderr together, as a terminal
  shows them) must match what the page shows, where ``...`` on a line of its own stands for any
  lines and ``...`` inside a line for any text. It must exit 0; the last command of a block
  whose fence names a status (```` ```console exit=1 ````) must exit with that one. ``cd``
  carries over to the next command.
- A block whose first line names a file (``# my_allocation.py``, ``// main.go``) is written to that
  file, for the commands after it.
- ```` ```python ```` without a file name runs as a script and must exit 0; ```` ```json ```` must parse.
- ```` ```text ```` is prose set in a fixed font (a tree, a table of output columns): nothing runs.
- ``<!-- docs-test: skip REASON -->`` just before a block leaves it out, saying why; the test lists
  every block left out.

A page that starts ``<!-- docs-test: clone -->`` runs in a copy of this repository's top level
(``examples/`` copied, the rest linked, the package's source among it), as a reader with a clone does; the others run in an empty
folder, as in a project of your own. The package itself is already installed in the test
environment, so ``pip install .`` (and its extras) is checked, not run: the packaging tests install it for real.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

FENCE = re.compile(r"^(`{3,})(.*)$")
FILE_NAME = re.compile(r"^(?:#|//)\s*([\w./-]+\.\w+)\s*$")
SKIP = re.compile(r"^<!--\s*docs-test:\s*skip\s+(.+?)\s*-->\s*$")
CLONE = "<!-- docs-test: clone -->"
#: what a clone holds that the scratch copy links (examples/ is copied: commands build in it)
CLONE_LINKS = ("README.md", "pyproject.toml", "pytest_rmq_conformance", "tox.ini", "toxfile.py", "golden", "schemas", "tests", "clients", "docs", "benchmarks", "scripts")


@dataclass
class Command:
    line: int
    text: str
    expected: list[str]


@dataclass
class Block:
    page: Path
    line: int
    language: str
    options: dict[str, str]
    body: str
    skip: str | None = None
    commands: list[Command] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def file_name(self) -> str | None:
        first = self.body.split("\n", 1)[0]
        found = FILE_NAME.match(first)
        return found.group(1) if found and self.language != "console" else None


def blocks(page: Path, root: Path) -> list[Block]:
    """The fenced blocks of ``page`` (MyST directives such as ```` ```{toctree} ```` are not code)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        fence, info = opening.group(1), opening.group(2).strip()
        end = i + 1
        while end < len(lines) and not lines[end].startswith(fence):
            end += 1
        words = info.split()
        if not (words and words[0].startswith("{")):
            skip = SKIP.match(lines[i - 1]) if i and lines[i - 1].startswith("<!--") else None
            block = Block(
                page=page.relative_to(root),
                line=i + 1,
                language=words[0] if words else "",
                options=dict(word.split("=", 1) for word in words[1:] if "=" in word),
                body="\n".join(lines[i + 1 : end]) + "\n",
                skip=skip.group(1) if skip else None,
            )
            if block.language == "console":
                block.commands = _commands(lines[i + 1 : end], i + 2)
            found.append(block)
        i = end + 1
    return found


def _commands(lines: list[str], first_line: int) -> list[Command]:
    commands: list[Command] = []
    pending: list[str] = []
    for offset, text in enumerate(lines):
        if pending:
            pending.append(text)
            if not text.endswith("\\"):
                commands[-1].text = "\n".join(pending)
                pending = []
        elif text.startswith("$ "):
            commands.append(Command(first_line + offset, text[2:], []))
            if text.endswith("\\"):
                pending = [text[2:]]
        elif commands:
            commands[-1].expected.append(text)
        elif text.strip():
            raise ValueError(f"line {first_line + offset}: a console block starts with a `$ ` command, not {text!r}")
    return commands


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` lines are ``expected``, where a ``...`` line stands for any lines and
    ``...`` inside a line for any text (trailing spaces and blank lines at the ends ignored)."""
    want = _trimmed(expected)
    got = _trimmed(actual)
    patterns = [None if line.strip() == "..." else re.compile(".*".join(map(re.escape, line.split("...")))) for line in want]
    # reachable[j]: the first i expected lines can match the first j actual lines
    reachable = [True] + [False] * len(got)
    for pattern in patterns:
        step = [False] * (len(got) + 1)
        for j in range(len(got) + 1):
            if pattern is None:
                step[j] = reachable[j] or (j > 0 and step[j - 1])
            else:
                step[j] = j > 0 and reachable[j - 1] and pattern.fullmatch(got[j - 1]) is not None
        reachable = step
    return reachable[len(got)]


def _trimmed(lines: list[str]) -> list[str]:
    lines = [line.rstrip() for line in lines]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def clone_into(folder: Path, root: Path) -> None:
    """A reader's clone, cheaply: examples/ copied (commands build there), the rest linked."""
    shutil.copytree(root / "examples", folder / "examples", ignore=shutil.ignore_patterns("rmq-harness", "my-client", "node_modules"))
    for name in CLONE_LINKS:
        (folder / name).symlink_to(root / name)


#: setup commands the test environment has already carried out, with how to check that it did
def _installed(extra: str | None = None) -> str | None:
    try:
        importlib.metadata.distribution("pytest-rmq-conformance")
    except importlib.metadata.PackageNotFoundError:
        return "pytest-rmq-conformance is not installed"
    if extra == "sweep" and importlib.util.find_spec("pyspark") is None:
        return "the sweep extra (pyspark) is not installed"
    return None


INSTALLED = {
    "pip install .": _installed,
    "pip install '.[sweep]'": lambda: _installed("sweep"),
}


@dataclass
class Outcome:
    ran: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def run_page(page: Path, root: Path, folder: Path, env: dict[str, str], timeout: float = 900) -> Outcome:
    """Every block of ``page`` in order, in ``folder``: what ran, what was left out and why, and
    every way the page and what happened differ."""
    outcome = Outcome()
    try:
        found = blocks(page, root)
    except ValueError as error:
        outcome.problems.append(f"{page.relative_to(root)}: {error}")
        return outcome
    if page.read_text(encoding="utf-8").startswith(CLONE):
        clone_into(folder, root)
    cwd = folder
    for block in found:
        if block.skip is not None:
            outcome.skipped.append(f"{block.where} ({block.language}): {block.skip}")
            continue
        if not block.language:
            outcome.problems.append(f"{block.where}: a block without a language: say what it is (console, python, text, ...)")
            continue
        name = block.file_name
        if name is not None:
            target = cwd / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.body, encoding="utf-8")
            outcome.ran.append(f"{block.where}: wrote {name}")
            continue
        if block.language == "text" or block.language in ("yaml", "toml", "ini"):
            continue
        if block.language == "json":
            try:
                json.loads(block.body)
            except ValueError as error:
                outcome.problems.append(f"{block.where}: not JSON: {error}")
            continue
        if block.language == "python":
            result = subprocess.run([env.get("RMQ_DOCS_PYTHON", "python"), "-c", block.body], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
            if result.returncode != 0:
                outcome.problems.append(f"{block.where}: the Python block exited {result.returncode}:\n{result.stdout}{result.stderr}")
            else:
                outcome.ran.append(f"{block.where}: python")
            continue
        if block.language != "console":
            outcome.problems.append(f"{block.where}: no rule runs a {block.language!r} block: name its file on its first line, or make it text")
            continue
        status = int(block.options.get("exit", "0"))
        for number, command in enumerate(block.commands, 1):
            cwd = _run(command, block, cwd, env, timeout, status if number == len(block.commands) else 0, outcome)
    return outcome


def _run(command: Command, block: Block, cwd: Path, env: dict[str, str], timeout: float, status: int, outcome: Outcome) -> Path:
    where = f"{block.page}:{command.line}"
    text = command.text
    for setup, check in INSTALLED.items():
        if text == setup or text.startswith(setup + " && "):
            problem = check()
            if problem is not None:
                outcome.problems.append(f"{where}: `{setup}`: {problem}")
                return cwd
            outcome.ran.append(f"{where}: `{setup}` (installed in the test environment)")
            text = text[len(setup) + 4 :]
            if not text:
                return cwd
    cwd_file = cwd / ".docs-test-cwd"
    script = f"{text}\n__status=$?\npwd > {cwd_file}\nexit $__status\n"
    started = time.monotonic()
    try:
        result = subprocess.run(["bash", "-c", script], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        outcome.problems.append(f"{where}: `{text}` ran past {timeout:.0f} s")
        return cwd
    shown = result.stdout.splitlines()
    if result.returncode != status:
        outcome.problems.append(f"{where}: `{text}` exited {result.returncode}, the page expects {status}:\n" + "\n".join(shown[-40:]))
    elif command.expected and not matches(command.expected, shown):
        outcome.problems.append(
            f"{where}: `{text}` printed what the page does not show.\n--- the page shows:\n" + "\n".join(command.expected) + "\n--- it printed:\n" + "\n".join(shown[-60:])
        )
    else:
        outcome.ran.append(f"{where}: `{text}` ({time.monotonic() - started:.1f} s)")
    moved = Path(cwd_file.read_text(encoding="utf-8").strip()) if cwd_file.exists() else cwd
    cwd_file.unlink(missing_ok=True)
    return moved
