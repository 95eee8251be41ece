"""One public API: ``pytest_rmq_conformance``'s top level names everything the documentation
imports, and this list holds it, so that no name the docs use can move or vanish unnoticed."""

from __future__ import annotations

import ast
import importlib
import re
import types
from pathlib import Path

import pytest
from docs_pages import ROOT, pages

import pytest_rmq_conformance

PUBLIC = [
    "AllocateMachineRoomNearby",
    "AllocateMessageQueueAveragely",
    "AllocateMessageQueueAveragelyByCircle",
    "AllocateMessageQueueByConfig",
    "AllocateMessageQueueByMachineRoom",
    "AllocateMessageQueueConsistentHash",
    "AllocateMessageQueueStrategy",
    "AllocationFamily",
    "AtomicIndex",
    "BrokerData",
    "CaseOutcome",
    "ClientConfig",
    "Clock",
    "Consumption",
    "Counter",
    "DEFAULT_RELEASE",
    "Detecting",
    "Event",
    "ExampleClock",
    "Family",
    "FaultItem",
    "FaultStrategies",
    "FaultStrategy",
    "GeneratedCheck",
    "GoldenCases",
    "GroupSimulation",
    "Groups",
    "GrpcBroker",
    "GrpcEndpoints",
    "GrpcMessageQueue",
    "HashCodeOf",
    "HashRing",
    "INT_MAX",
    "INT_MIN",
    "JavaConcurrentHashMap",
    "JavaInteger",
    "JavaLong",
    "JavaRandom",
    "Kind",
    "LONG_MAX",
    "LONG_MIN",
    "LatencyFaultToleranceImpl",
    "LockBroker",
    "MASTER_ID",
    "MQFaultStrategy",
    "MachineRoomResolver",
    "ManualClock",
    "MapMachineRoomResolver",
    "Measured",
    "Message",
    "MessageFlow",
    "MessageGroupBalancer",
    "MessageQueue",
    "OwnershipLedger",
    "PARTITION",
    "PERM_WRITE",
    "PORT_RELEASE",
    "Plan",
    "ProcessQueue",
    "ProducerScenario",
    "PublishInfo",
    "PublishingLoadBalancer",
    "PullRequest",
    "QueueData",
    "RELEASES",
    "RebalanceLitePullImpl",
    "RebalanceLockManager",
    "RebalancePullImpl",
    "RebalancePushImpl",
    "RunState",
    "Scenario",
    "SelectMessageQueueByHash",
    "SelectMessageQueueByRandom",
    "Selector",
    "SendOutcome",
    "SimulatedRoute",
    "SplitMachineRoomResolver",
    "Subject",
    "SubscriptionLoadBalancer",
    "ThreadLocalIndex",
    "TopicPublishInfo",
    "TopicRouteData",
    "__version__",
    "assign",
    "get_kind",
    "guava_mod",
    "hookspecs",
    "java_abs",
    "java_get_bytes",
    "java_hash_code",
    "java_int",
    "java_list_get",
    "java_long",
    "java_rem",
    "java_sort",
    "java_sorted",
    "java_sorted_queues",
    "java_sorted_strings",
    "java_split",
    "java_string_compare",
    "java_string_hash",
    "java_string_key",
    "kind_of",
    "mask31",
    "md5_hash",
    "message_group_index",
    "reference_strategy",
    "rmq_state",
    "register_family",
    "register_kind",
    "simulate_producer",
    "sip_hash24",
    "topic_route_data_to_topic_publish_info",
    "unregister_family",
]

IMPORT = re.compile(
    r"^\s*(?:from\s+(pytest_rmq_conformance[\w.]*)\s+import\s+([^#\n]+)|import\s+(pytest_rmq_conformance[\w.]*))",
    re.MULTILINE,
)


def test_the_public_names_are_the_held_list():
    assert sorted(pytest_rmq_conformance.__all__) == sorted(set(PUBLIC)), (
        "update PUBLIC here only with the docs that use the name"
    )


@pytest.mark.parametrize("name", sorted(set(PUBLIC)))
def test_every_public_name_imports_from_the_top_level(name):
    namespace: dict = {}
    exec(f"from pytest_rmq_conformance import {name}", namespace)
    assert namespace[name] is not None
    assert name in dir(pytest_rmq_conformance)


def test_a_name_that_is_not_public_is_an_attribute_error_naming_it():
    with pytest.raises(AttributeError, match="has no attribute 'reference_strategyy'"):
        pytest_rmq_conformance.reference_strategyy  # noqa: B018


def documented_code() -> list[tuple[str, str]]:
    """``(where, code)``: the Python blocks of every page, the examples, and the docstrings the
    reference shows (hook specs and fixtures)."""
    found = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        blocks = re.finditer(r"^```python[^\n]*\n(.*?)^```", text, re.DOTALL | re.MULTILINE)
        found += [(f"{page.relative_to(ROOT)}:{text[: block.start()].count(chr(10)) + 1}", block.group(1)) for block in blocks]
    found += [(str(example.relative_to(ROOT)), example.read_text(encoding="utf-8")) for example in sorted((ROOT / "examples").rglob("*.py"))]
    for module in ("plugin.hookspecs", "plugin.fixtures", "plugin.allocation_fixtures", "plugin.producer_fixtures"):
        source = importlib.import_module(f"pytest_rmq_conformance.{module}")
        tree = ast.parse(Path(source.__file__).read_text(encoding="utf-8"))
        functions = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]
        found += [(f"{module}.{node.name} (docstring)", doc) for node in functions if (doc := ast.get_docstring(node))]
    return found


def test_the_docs_import_only_public_names_from_the_top_level():
    wrong = []
    for where, code in documented_code():
        for found in IMPORT.finditer(code):
            module = found.group(1) or found.group(3)
            if module != "pytest_rmq_conformance" or found.group(3):
                wrong.append(f"{where}: {found.group(0).strip()} (import from pytest_rmq_conformance itself)")
                continue
            names = [name.strip().split(" as ")[0] for name in found.group(2).strip("() \n").split(",") if name.strip()]
            wrong += [f"{where}: {name} is not public" for name in names if name not in PUBLIC]
    assert not wrong, "\n".join(wrong)


def test_the_import_reader_sees_internal_paths():
    """The check above is able to fail."""
    code = "from pytest_rmq_conformance.engine.kinds import reference_strategy\nimport pytest_rmq_conformance.model\n"
    assert [m.group(1) or m.group(3) for m in IMPORT.finditer(code)] == [
        "pytest_rmq_conformance.engine.kinds",
        "pytest_rmq_conformance.model",
    ]


def test_every_internal_module_says_it_is_internal():
    package = Path(pytest_rmq_conformance.__file__).parent
    silent = []
    for path in sorted(package.rglob("*.py")):
        if path == package / "__init__.py" or "suite" in path.relative_to(package).parts:
            continue
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        if "internal" not in doc.lower():
            silent.append(str(path.relative_to(package)))
    assert not silent, f"{len(silent)} modules whose docstring does not say they are internal: {silent}"


def type_checking_imports() -> dict[str, tuple[str, str]]:
    """What the top level's ``if TYPE_CHECKING:`` block imports: public name -> (module, name in
    the module), a module itself as ``(module, "")``, as the runtime table has them."""
    tree = ast.parse(Path(pytest_rmq_conformance.__file__).read_text(encoding="utf-8"))
    blocks = [node for node in tree.body if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING"]
    assert len(blocks) == 1, "the top level lost its one TYPE_CHECKING block"
    found: dict[str, tuple[str, str]] = {}
    for node in blocks[0].body:
        assert isinstance(node, ast.ImportFrom) and node.module, ast.dump(node)
        for alias in node.names:
            public = alias.asname or alias.name
            assert public not in found, f"{public} is imported twice"
            found[public] = (node.module, alias.name)
    return found


def test_type_checkers_see_every_public_name_from_its_home():
    """The TYPE_CHECKING imports, the table the names load from at run time and ``__all__`` (a
    literal, so that type checkers read it) are one list."""
    runtime = {
        public: (module, inner) if inner else tuple(module.rsplit(".", 1))
        for public, (module, inner) in pytest_rmq_conformance._HOME.items()
    }
    assert type_checking_imports() == runtime, "the TYPE_CHECKING block and _MODULES differ"
    assert set(pytest_rmq_conformance.__all__) == {"__version__", *runtime}
    assert len(pytest_rmq_conformance.__all__) == len(set(pytest_rmq_conformance.__all__))


def test_the_top_level_shows_only_its_public_names():
    """No helper leaks from the top level: ``dir()`` is the public names and the module's dunders,
    and what else an attribute is, is a module below it (an import makes it one)."""
    shown = {name for name in dir(pytest_rmq_conformance) if not name.startswith("__")}
    assert shown == set(PUBLIC) - {"__version__"}
    for name in ("Any", "annotations", "importlib", "TYPE_CHECKING"):
        assert not hasattr(pytest_rmq_conformance, name), name
    others = [
        name for name, value in vars(pytest_rmq_conformance).items()
        if not name.startswith(("_", "@")) and name not in PUBLIC  # "@py_builtins": pytest rewrites a plugin's asserts
        and not (isinstance(value, types.ModuleType) and value.__name__.startswith("pytest_rmq_conformance."))
    ]
    assert others == []


#: modules a page may name, as commands run them: the suite (``pytest --pyargs``) and the
#: built-in harness (``python -m``); everything else a page names is a public name
RUNNABLE = ("pytest_rmq_conformance.suite", "pytest_rmq_conformance.harness")
DOTTED = re.compile(r"pytest_rmq_conformance(?:\.[A-Za-z_]\w*)+")


def _fences_removed(text: str) -> str:
    return re.sub(r"^(`{3,}).*?^\1", "", text, flags=re.DOTALL | re.MULTILINE)


def mentions() -> list[tuple[str, str]]:
    """``(where, dotted path)`` of every ``pytest_rmq_conformance.…`` path in an inline code span of
    a page (prose, tables; the fenced blocks' imports are read above), and in the docstrings the
    Hooks page shows."""
    found = []
    for page in pages():
        text = _fences_removed(page.read_text(encoding="utf-8"))
        for span in re.finditer(r"`([^`\n]+)`", text):
            found += [(f"{page.relative_to(ROOT)}: `{span.group(1)}`", path) for path in DOTTED.findall(span.group(1))]
    hookspecs = importlib.import_module("pytest_rmq_conformance.plugin.hookspecs")
    for name in dir(hookspecs):
        doc = getattr(hookspecs, name).__doc__ if name.startswith("pytest_rmq_") else None
        found += [(f"hookspecs.{name} (docstring)", path) for path in DOTTED.findall(doc or "")]
    return found


def wrongly_named(path: str) -> str | None:
    """Why a page may not name ``path``, or ``None``: a public name (``pytest_rmq_conformance.X``,
    or an attribute of one), or a runnable module; never an internal module or what is in one."""
    first = path.split(".")[1]
    if any(path == runnable or path.startswith(runnable + ".") for runnable in RUNNABLE):
        return None
    if first in pytest_rmq_conformance.__all__ and not isinstance(getattr(pytest_rmq_conformance, first), types.ModuleType):
        return None
    if first in pytest_rmq_conformance.__all__:
        return f"{path} is a module: `from pytest_rmq_conformance import {first}` imports it"
    return f"{path} is internal: name what the top level exports"


def test_the_pages_name_only_public_paths():
    """A page that tells a reader of ``pytest_rmq_conformance.javalang.JavaRandom`` sends them to an
    internal module; ``pytest_rmq_conformance.JavaRandom`` is the name to give."""
    wrong = [f"{where}: {why}" for where, path in mentions() if (why := wrongly_named(path))]
    assert wrong == []


@pytest.mark.parametrize(
    ("path", "fine"),
    [
        ("pytest_rmq_conformance.JavaRandom", True),
        ("pytest_rmq_conformance.suite.test_sort", True),
        ("pytest_rmq_conformance.harness", True),
        ("pytest_rmq_conformance.javalang.JavaRandom", False),
        ("pytest_rmq_conformance.engine.kinds.Kind", False),
        ("pytest_rmq_conformance.hookspecs", False),
        ("pytest_rmq_conformance.kinds.allocation.properties.PROPERTIES", False),
    ],
)
def test_the_path_reader_tells_public_from_internal(path, fine):
    """The check above is able to fail, on the paths the pages named before."""
    assert (wrongly_named(path) is None) is fine
