"""Every install line works today: the suite is on no package index yet, so a page, an example or a
message that installs ``pytest-rmq-conformance`` by name from one says, beside it, that this is what
it will be once the suite is released; the rest install from a clone or a wheel."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: what a user reads: the pages, the examples, the README, and what the package prints
READ = [ROOT / "README.md", ROOT / "docs", ROOT / "examples", ROOT / "pytest_rmq_conformance"]
SUFFIXES = {".md", ".py", ".ini", ".toml", ".txt", ".yml", ".yaml", ".cfg", ".js", ".go"}
#: installing the suite by its name, from an index: pip's line, or a tox env's dependency default
FROM_AN_INDEX = re.compile(r"pip install ['\"]?pytest-rmq-conformance\b|:pytest-rmq-conformance\}|pytest-rmq-conformance` from PyPI")
#: how a line says it is the future one
ONCE_RELEASED = re.compile(r"once (it is|the suite is) released|once released", re.IGNORECASE)


def files():
    for place in READ:
        found = [place] if place.is_file() else sorted(place.rglob("*"))
        for path in found:
            skipped = {"_build", "node_modules", ".tox"} & set(path.parts)
            if path.is_file() and path.suffix in SUFFIXES and not skipped:
                yield path


def test_an_install_from_an_index_is_marked_as_what_it_will_be_once_released():
    unmarked = []
    for path in files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for found in FROM_AN_INDEX.finditer(text):
            around = " ".join(text[max(0, found.start() - 300) : found.end() + 100].split())
            if not ONCE_RELEASED.search(around):
                line = text.count("\n", 0, found.start()) + 1
                unmarked.append(f"{path.relative_to(ROOT)}:{line}: {found.group(0)}")
    assert not unmarked, "installs from an index the suite is not on:\n" + "\n".join(unmarked)


def test_the_rule_finds_what_it_looks_for():
    assert FROM_AN_INDEX.search("You need `pip install pytest-rmq-conformance`.")
    assert FROM_AN_INDEX.search("deps = {env:RMQ_CONFORMANCE:pytest-rmq-conformance}")
    assert FROM_AN_INDEX.search("pip install 'pytest-rmq-conformance[sweep]'")
    assert not FROM_AN_INDEX.search("pip install '.[sweep]' in a clone of pytest-rmq-conformance")


def test_the_example_projects_tox_env_installs_the_suite_from_a_path_it_is_given():
    tox_ini = (ROOT / "examples" / "averagely" / "tox.ini").read_text(encoding="utf-8")
    assert "deps = {env:RMQ_CONFORMANCE:}" in tox_ini
    assert "RMQ_CONFORMANCE is not set" in tox_ini  # an env without it says what to set
