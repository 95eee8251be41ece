import importlib
import importlib.util
import json
import os
import pkgutil
import re
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings
from spark_classes import JVM_OPTIONS, spark_class_archive

pytest_plugins = ["pytester"]

# No test reads the clock against a limit it does not set: hypothesis's per-example deadline (200 ms
# by default) is off for every @given test here, which a loaded machine would otherwise fail. (The
# suite's own generated checks set theirs, None, in engine/generated/generation.)
hypothesis_settings.register_profile("rmq-tests", deadline=None)
hypothesis_settings.load_profile("rmq-tests")
# Nor does a run of the suite: a generated check draws its examples for ten minutes at most, not the
# quick profile's 60 s, so that a check that must find a failure finds it on a loaded machine too (a
# test of the budget sets its own, --rmq-check-time, which wins over the environment).
os.environ.setdefault("RMQ_CHECK_TIME", "600")

# The tests' JVMs (Spark's drivers and executors, the cluster test's master and worker) live for
# seconds: they run with options for that (tests/spark_classes.py's JVM_OPTIONS), and a driver
# maps its classes from an archive where RMQ_SPARK_CDS names a folder for one. Users' sweeps keep
# the JVM's defaults.
os.environ.setdefault(
    "SPARK_SUBMIT_OPTS", f"{JVM_OPTIONS} {spark_class_archive(os.environ.get('RMQ_SPARK_CDS'))}".rstrip()
)
os.environ.setdefault("SPARK_DAEMON_JAVA_OPTS", JVM_OPTIONS)
os.environ.setdefault("PYSPARK_SUBMIT_ARGS", f"--conf spark.executor.defaultJavaOptions='{JVM_OPTIONS}' pyspark-shell")

# The package's modules imported before any test (the Spark pipeline aside): one imported first
# inside an in-process pytester run would be unloaded after it, while the caches of modules
# imported earlier (the golden data, the kinds' registry) kept objects of its first classes,
# which later runs' isinstance checks no longer recognise. (The packaging tests run where the
# package is not installed: they build and install it themselves.)
if importlib.util.find_spec("pytest_rmq_conformance") is not None:
    _package = importlib.import_module("pytest_rmq_conformance")
    for _module in pkgutil.walk_packages(_package.__path__, "pytest_rmq_conformance."):
        if not _module.name.startswith(("pytest_rmq_conformance.pipeline", "pytest_rmq_conformance.suite")):
            importlib.import_module(_module.name)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """A ``cross_product`` test's first parameter set runs on every Python; the others are
    marked ``once``, which one interpreter answers for all (tox.ini: the py311 env runs them,
    the other Pythons deselect them). Runs before ``-m`` deselects anything. Then the ``heavy``
    tests move to the front, in their order: started first, they do not leave one worker running
    a long test alone at the end of the run."""
    seen = set()
    for item in items:
        if item.get_closest_marker("cross_product") is None:
            continue
        function = (item.path, item.originalname)
        if function in seen:
            item.add_marker(pytest.mark.once)
        seen.add(function)
    items.sort(key=lambda item: item.get_closest_marker("heavy") is None)


def missing(what: str) -> None:
    """A tool or installed client a test needs is absent: the test fails where
    ``RMQ_REQUIRE_TOOLS`` is set (``.ci/run`` sets it, so that nothing it runs skips for want of
    Node.js, Go, Chromium or the pinned clients), and skips elsewhere."""
    if os.environ.get("RMQ_REQUIRE_TOOLS"):
        pytest.fail(f"{what} (RMQ_REQUIRE_TOOLS is set)", pytrace=False)
    pytest.skip(what)


def verdict_counts(results: Path) -> dict[tuple, int]:
    """A ``--rmq-results`` file as ``(check, family, verdict, divergence class) -> cases``: what a
    real client's harness came to, family by family (``generated`` for a generated check)."""
    found: Counter[tuple] = Counter()
    for line in results.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        case = record.get("case")
        family = re.search(r"-([A-Z][A-Z_]*[A-Z])-\d", case)[1] if case else "generated"  # pub-AVG-0001-..., grpc-pub-GROUP_HASH-...
        found[(record["check"], family, record["verdict"], record.get("kind"))] += 1
    return dict(found)


def load_script(path: Path, name: str):
    """A file of the repository that is not a module of the package (a script of clients/ or
    scripts/, toxfile.py), loaded from ``path`` as a module named ``name``: a new module each call."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MINIATURES = Path(__file__).with_name("miniatures.py")
BREAKERS = Path(__file__).with_name("breakers.py")
FLAKY = Path(__file__).with_name("flaky.py")
BAD_ANSWERS = Path(__file__).with_name("bad_answers.py")


@pytest.fixture(scope="session")
def golden():
    """The shipped golden set, parsed (and checked for consistency) as the plugin reads it; its
    schema validation is test_golden_schema.py::test_every_golden_case_matches_the_schema."""
    from pytest_rmq_conformance.engine.golden.data import load_golden

    return load_golden()


@pytest.fixture
def suite(pytester):
    """A pytester directory where the deliberately wrong strategies (``miniatures``, ``breakers``,
    ``flaky``, ``bad_answers``) can be imported."""
    pytester.makepyfile(
        miniatures=MINIATURES.read_text(),
        breakers=BREAKERS.read_text(),
        flaky=FLAKY.read_text(),
        bad_answers=BAD_ANSWERS.read_text(),
    )
    pytester.syspathinsert()
    return pytester


@pytest.fixture
def toy_registered():
    """Forgets the toy family (tests/toy_family.py registers ROTATE on import) after the test, so
    that the other tests of this process see only the built-in families."""
    yield
    from pytest_rmq_conformance.engine import kinds

    kinds.unregister_family("ROTATE")
    sys.modules.pop("toy_family", None)


DOCS = Path(__file__).resolve().parent.parent / "docs"


def build_docs(source: Path, out: Path) -> tuple[int, str]:
    """``tox -e docs``'s build of ``source`` into ``out``: (exit status, the warnings). Needs the
    ``docs`` extra (Sphinx, MyST, Furo, sphinx-argparse): its callers skip without it."""
    from sphinx.cmd.build import build_main

    warnings = out.parent / f"{out.name}-warnings.txt"
    status = build_main(["-q", "-W", "-n", "--keep-going", "-b", "html", "-w", str(warnings), str(source), str(out)])
    return status, warnings.read_text(encoding="utf-8") if warnings.exists() else ""


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    """The documentation site, built once per run: under xdist the workers share one build (a lock
    on POSIX). Its users skip without the docs extra or the documentation's sources."""
    try:
        import fcntl
    except ImportError:  # not POSIX: each process builds its own
        fcntl = None
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run is None or fcntl is None:
        root = tmp_path_factory.mktemp("docs")
    else:
        root = tmp_path_factory.getbasetemp().parent / f"docs-{run}"
        root.mkdir(exist_ok=True)
    with open(root / "lock", "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        done = root / "done.json"
        if not done.exists():
            done.write_text(json.dumps(build_docs(DOCS, root / "html")), encoding="utf-8")
        status, warnings = json.loads(done.read_text(encoding="utf-8"))
    assert (status, warnings) == (0, ""), warnings
    return root / "html"
