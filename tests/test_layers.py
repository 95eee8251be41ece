"""The layers keep their promises (DESIGN.md): its diagram is import-linter's layers contract
and names every module of the package, nothing right of the plugin imports pytest, what serves
every kind spells no kind's names, and an installed plugin that a run does not use imports
none of the engine."""

import ast
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest brings tomli to 3.10
    import tomli as tomllib

import pytest

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.resources import schemas_dir
from pytest_rmq_conformance.kinds.grpc.golden import OFFSET_ATTRIBUTE
from pytest_rmq_conformance.kinds.producer.declared import LATENCY_ATTRIBUTE

# the source tree beside these tests (the installed package may be a wheel's copy, with its data)
ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "pytest_rmq_conformance"
if not (ROOT / "DESIGN.md").is_file():  # an sdist holds the tests and the package, not DESIGN.md
    pytest.skip(f"no DESIGN.md at {ROOT}", allow_module_level=True)
P = "pytest_rmq_conformance"
CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
#: modules that need an extra (Spark, matplotlib): imported only where it is installed
EXTRA = ("job.py", "plots.py", "summary.py")
#: where a kind-neutral module may spell kinds' names, and why
SPELLED = {
    "plugin/options.py": "BUILT_IN_FAMILIES: the --rmq-strategy help lists the built-in families without loading "
    "the registry (tests/test_options.py holds it equal to the registry's)",
}


def _contract(start: str) -> dict:
    (found,) = [contract for contract in CONTRACTS if contract["name"].startswith(start)]
    return found


def _layers() -> list[list[str]]:
    contract = _contract("the plugin uses the kinds")
    assert contract["containers"] == [P]
    return [[name.strip() for name in layer.split("|")] for layer in contract["layers"]]


def _diagram() -> list[list[str]]:
    """DESIGN.md's module diagram: its layers, left to right, each a list of names."""
    design = (ROOT / "DESIGN.md").read_text(encoding="utf-8")
    (line,) = [line for line in re.findall(r"^```\n(.*?)\n```", design, re.MULTILINE | re.DOTALL) if "─▶" in line]
    return [[re.sub(r"/(<kind>/)?$", "", name.strip()) for name in layer.split("·")] for layer in line.split("─▶")]


def test_the_design_diagram_is_the_layers_contract_and_names_every_module():
    children = sorted(path.stem if path.suffix else path.name for path in PACKAGE.iterdir()
                      if (path.suffix == ".py" and path.stem != "__init__") or (path / "__init__.py").exists())
    assert _diagram() == _layers()
    assert sorted(name for layer in _diagram() for name in layer) == children
    assert _contract("the plugin uses the kinds")["exhaustive"] is True


def _subpackages(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir() if (path / "__init__.py").exists()) if folder.is_dir() else []


def _names() -> dict[str, list[tuple[str, ...]]]:
    """Every module and folder of the package by its name: name -> the places it has, each a path
    whose kind (``kinds/<kind>``, ``ports/<kind>``) or sweep mode (``pipeline/<mode>``,
    ``pipeline/mix/<mode>.py``) is spelled as such, so that parallel places read alike."""
    kinds_, modes = set(_subpackages(PACKAGE / "kinds")), set(_subpackages(PACKAGE / "pipeline"))
    found: dict[str, list[tuple[str, ...]]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if not parts:
            continue
        name = parts[-1]
        if parts[0] in ("kinds", "ports", "record") and len(parts) > 1 and parts[1] in kinds_:
            parts[1] = "<kind>"
        if parts[:2] == ["pipeline", "mix"] and len(parts) == 3 and parts[2] in modes:
            parts[2] = "<mode>"
        if parts[0] == "pipeline" and len(parts) > 1 and parts[1] in modes:
            parts[1] = "<mode>"
        found.setdefault(name, [])
        if tuple(parts) not in found[name]:
            found[name].append(tuple(parts))
    return found


def _second_meanings(names: dict[str, list[tuple[str, ...]]]) -> list[str]:
    """The names that DESIGN.md's rule does not let several places share: one name is one thing in
    parallel places (each kind's part, each sweep mode's, the kind or mode itself in each layer),
    or the engine's side of a kind's part (``engine/golden/cases.py`` beside ``kinds/<kind>/cases.py``)."""
    wrong = []
    for name, places in sorted(names.items()):
        if len(places) == 1 or all(place[-1] in ("<kind>", "<mode>") for place in places):
            continue
        outside = {place for place in places if place[0] != "engine"}
        if len(outside) == 1 and (len(outside) == len(places) or next(iter(outside))[0] == "kinds"):
            continue
        wrong.append(f"{name}: {', '.join('/'.join(place) for place in places)}")
    return wrong


def test_each_module_name_means_one_thing():
    """No two modules or folders share a name unless they are one thing in parallel places
    (DESIGN.md, Words): no second `report`, `harness` or `groups`, no ports beside `ports/`."""
    assert _second_meanings(_names()) == []


def test_the_one_meaning_check_finds_a_second_meaning():
    """The check above is able to fail: main's names before issue 42 gave these words two meanings."""
    before = {
        "harness": [("harness",), ("engine", "loading", "sources", "harness")],
        "report": [("engine", "generated", "report"), ("pipeline", "<mode>", "report")],
        "groups": [("kinds", "<kind>", "groups"), ("pipeline", "<mode>"), ("pipeline", "mix", "<mode>")],
        "producer": [("producer",), ("kinds", "<kind>"), ("pipeline", "<mode>")],
        "cases": [("engine", "golden", "cases"), ("kinds", "<kind>", "cases")],
        "allocation": [("ports", "<kind>"), ("kinds", "<kind>"), ("pipeline", "<mode>")],
        "job": [("pipeline", "<mode>", "job")],
    }
    assert [line.split(":")[0] for line in _second_meanings(before)] == ["groups", "harness", "producer", "report"]


def test_every_reference_port_lives_in_its_kind_s_ports_folder():
    """The reference ports have one home: ``ports/<kind>/``, one folder a built-in kind, and each
    family's port in its kind's."""
    built_in = [module.rsplit(".", 1)[1] for module in kinds.BUILT_IN]
    assert _subpackages(PACKAGE / "ports") == sorted(built_in)
    ports = [family for family in kinds.all_families() if family.kind in built_in and family.port is not None]
    assert {family.kind for family in ports} == set(built_in)
    assert {family.name: family.port.__module__ for family in ports
            if not family.port.__module__.startswith(f"{P}.ports.{family.kind}.")} == {}


def test_the_no_pytest_contract_covers_everything_right_of_the_plugin():
    layers = _layers()
    right = [name for layer in layers[layers.index(["plugin"]) + 1 :] for name in layer]
    assert sorted(_contract("no pytest right of the plugin")["source_modules"]) == sorted(f"{P}.{name}" for name in right)


def _paths(modules) -> list[Path]:
    """The files of ``modules`` (packages with everything in them), but those of the extras."""
    found = []
    for module in modules:
        base = PACKAGE.joinpath(*module.split(".")[1:])
        found += sorted(base.rglob("*.py")) if base.is_dir() else [base.with_suffix(".py")]
    return [path for path in found if path.name not in EXTRA]


def _module(path: Path) -> str:
    return ".".join((P, *path.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__")


def test_everything_right_of_the_plugin_imports_with_pytest_blocked():
    """What import-linter cannot see: an import made at run time (``importlib``, a registry)."""
    modules = [_module(path) for path in _paths(_contract("no pytest right of the plugin")["source_modules"])]
    script = textwrap.dedent(
        f"""
        import importlib, sys
        sys.modules["pytest"] = None  # any import of pytest now fails
        sys.modules["_pytest"] = None
        for name in {modules!r}:
            importlib.import_module(name)
        from pytest_rmq_conformance.engine import kinds
        kinds.all_kinds()  # the built-in kinds, loaded by name
        print(len({modules!r}))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == len(modules) > 100


def _kind_words() -> set[str]:
    """What only a kind may spell: its name, its families' names, and what its strategies and
    harnesses declare for it (the hello's fields beyond the protocol's own, which are its required
    ones, and the attributes they mirror)."""
    hello = json.loads((schemas_dir() / "protocol-hello-response.schema.json").read_text(encoding="utf-8"))
    declared = set(hello["properties"]) - set(hello["required"])
    assert declared, "the hello declares no kind's field: nothing to look for"
    return {kind.name for kind in kinds.all_kinds()} | set(kinds.names()) | declared | {OFFSET_ATTRIBUTE, LATENCY_ATTRIBUTE}


def _spelled(path: Path, root: Path, words: set[str]) -> list[str]:
    """Where a string of ``path``'s code is one of ``words``: a branch on it, a key, a name passed
    on (prose that names one as an example, a docstring, a help text, is not)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        f"{path.relative_to(root)}:{node.lineno}: {node.value}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings and node.value in words
    ]


def _kind_neutral() -> list[Path]:
    """The files of the contract that what serves every kind imports no kind, but those of the
    fixtures of one kind it leaves out."""
    contract = _contract("what serves every kind")
    left_out = {rule.split(" -> ")[0] for rule in contract["ignore_imports"]}
    paths = [path for path in _paths(contract["source_modules"]) if _module(path) not in left_out]
    assert {f"{P}.engine.protocol.client", f"{P}.harness", f"{P}.plugin"} <= set(map(_module, paths))
    return paths


def test_what_serves_every_kind_spells_no_kind_s_names():
    """The engine, the harness, the matrix and the plugin ask the registry and the kinds: no
    kind or family is branched on, or field a kind declares read, by its name, but where
    SPELLED says why."""
    words = _kind_words()
    spelled = [hit for path in _kind_neutral() if path.relative_to(PACKAGE).as_posix() not in SPELLED
               for hit in _spelled(path, PACKAGE, words)]
    assert spelled == []
    assert all(_spelled(PACKAGE / path, PACKAGE, words) for path in SPELLED), "an exception no longer needed"


def test_the_spelling_check_finds_a_kind_s_names(tmp_path):
    """The check above is able to fail: a branch on a family, a hello field read by hand."""
    module = tmp_path / "m.py"
    module.write_text('"""FAULT_STRATEGY in a docstring is prose."""\n'
                      'def f(hello, family):\n'
                      '    """AVG here too."""\n'
                      '    if family == "FAULT_STRATEGY" or family.startswith("MACHINE_ROOM"):\n'
                      '        return hello.get("indexOffsets"), "the allocation"\n'
                      '    return f"{family} is not producer", "producer", "a name, e.g. AVG"\n')
    found = _spelled(module, tmp_path, _kind_words())
    assert sorted(found) == ["m.py:4: FAULT_STRATEGY", "m.py:4: MACHINE_ROOM", "m.py:5: indexOffsets", "m.py:6: producer"]


def test_an_unused_plugin_imports_no_engine(pytester):
    pytester.makepyfile(
        test_own="import sys\n\n"
        "def test_own():\n"
        "    loaded = sorted(m for m in sys.modules if m.startswith(('pytest_rmq_conformance.engine', 'pytest_rmq_conformance.ports', 'jsonschema')))\n"
        "    assert loaded == []\n"
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str()
    assert "rmq-conformance:" not in result.stdout.str()
