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

import pytest_rmq_conformance
from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.resources import schemas_dir
from pytest_rmq_conformance.kinds.grpc.golden import OFFSET_ATTRIBUTE
from pytest_rmq_conformance.kinds.producer.declared import LATENCY_ATTRIBUTE

PACKAGE = Path(pytest_rmq_conformance.__file__).parent
ROOT = PACKAGE.parent
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
        "    loaded = sorted(m for m in sys.modules if m.startswith(('pytest_rmq_conformance.engine', 'pytest_rmq_conformance.ports.allocation', 'jsonschema')))\n"
        "    assert loaded == []\n"
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str()
    assert "rmq-conformance:" not in result.stdout.str()
