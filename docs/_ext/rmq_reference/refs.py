"""Python references in the generated pages, made to resolve or to fail for a reason.

Docstrings and type hints of the public objects name other objects as their own module does:
bare names (``Broker``, imported under ``TYPE_CHECKING``), internal paths
(``pytest_rmq_conformance.model.MessageQueue``). Before references are resolved, a bare name is
qualified from the imports of the module whose docstring holds it (``doctree-read``); then a
path that is not documented (``missing-reference``):

- names a public object, or a member of one: it links to the public entry
  (``pytest_rmq_conformance.MessageQueue``);
- names an internal object that exists (a ``TypeVar``, a helper type with no entry): it is shown
  as code without a link;
- else it stays unresolved, and ``-n`` reports it.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import re
from typing import Any

from docutils import nodes
from docutils.utils import get_source_line
from sphinx.addnodes import pending_xref
from sphinx.application import Sphinx

from rmq_reference import api

PACKAGE = api.PACKAGE
_ORIGIN = re.compile(r"docstring of ([\w.]+)")


def lookup(path: str) -> tuple[bool, Any]:
    """``(found, object)`` for a dotted path: the longest importable module, then attributes."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: Any = importlib.import_module(".".join(parts[:cut]))
        except Exception:
            continue
        try:
            for part in parts[cut:]:
                value = getattr(value, part)
        except AttributeError:
            return False, None
        return True, value
    return False, None


def _module_of(origin: str) -> str | None:
    """The module part of a docstring's owner path (``pkg.mod.Class.method`` -> ``pkg.mod``)."""
    parts = origin.split(".")
    for cut in range(len(parts), 0, -1):
        name = ".".join(parts[:cut])
        found, value = lookup(name)
        if found and inspect.ismodule(value):
            return name
    return None


@functools.cache
def imports(module: str) -> dict[str, str]:
    """Every name ``module`` imports anywhere (``TYPE_CHECKING`` blocks, functions) -> its full path."""
    try:
        tree = ast.parse(inspect.getsource(importlib.import_module(module)))
    except Exception:
        return {}
    package = module if hasattr(importlib.import_module(module), "__path__") else module.rpartition(".")[0]
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else [])
                )
            for alias in node.names:
                found.setdefault(alias.asname or alias.name, f"{base}.{alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                found.setdefault(
                    alias.asname or alias.name.partition(".")[0],
                    alias.name if alias.asname else alias.name.partition(".")[0],
                )
    return found


def candidates(target: str, origin: str | None) -> list[str]:
    """Full paths ``target`` may mean, seen from the docstring of ``origin``."""
    out = [target.lstrip(".~")]
    if origin is None:
        return out
    target = out[0]
    parts = origin.split(".")
    out += [".".join(parts[:cut] + [target]) for cut in range(len(parts), 0, -1)]
    module = _module_of(origin)
    if module is not None:
        head, _, rest = target.partition(".")
        imported = imports(module).get(head)
        if imported is not None:
            out.append(imported + ("." + rest if rest else ""))
    return list(dict.fromkeys(out))


def _real(path: str) -> str:
    """``path`` with its longest prefix naming a class or function replaced by where that object is
    defined (``pytest_rmq_conformance.CaseOutcome.x`` -> ``...engine.golden.cases.CaseOutcome.x``)."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        found, value = lookup(".".join(parts[:cut]))
        if found and (inspect.isclass(value) or inspect.isfunction(value)):
            return ".".join([value.__module__, value.__qualname__, *parts[cut:]])
    return path


def _origin(node: nodes.Element) -> str | None:
    """The object whose docstring or signature holds ``node``, as the path where it is defined."""
    source, _ = get_source_line(node)
    match = _ORIGIN.search(source or "")
    if match:
        return _real(match.group(1))
    module, cls = node.get("py:module"), node.get("py:class")
    if module:
        return _real(f"{module}.{cls}" if cls else module)
    return None


def qualify(app: Sphinx, doctree: nodes.document) -> None:
    """``doctree-read``: a bare name in a docstring becomes the full path its module imports it as."""
    for node in doctree.findall(pending_xref):
        if node.get("refdomain") != "py" or "." in node["reftarget"].lstrip(".~"):
            continue
        origin = _origin(node)
        module = _module_of(origin) if origin else None
        if module is None:
            continue
        name = node["reftarget"].lstrip(".~")
        full = imports(module).get(name)
        if full is None:
            found, _ = lookup(f"{module}.{name}")
            full = f"{module}.{name}" if found else None
        if full is not None and full.startswith(PACKAGE + "."):
            node["reftarget"] = full
            node["refspecific"] = False


@functools.cache
def _public() -> dict[str, str]:
    return api.public_index()


def resolve(app: Sphinx, env, node: pending_xref, contnode: nodes.Element):
    """``missing-reference``: see the module's docstring."""
    if node.get("refdomain") != "py":
        return None
    domain = env.get_domain("py")
    paths = candidates(node["reftarget"], _origin(node))
    index = _public()
    for path in paths:
        head, _, member = path.rpartition(".")
        public = index.get(path) or (f"{index[head]}.{member}" if head in index else None)
        if public is None:
            continue
        for reftype in (node["reftype"], "obj"):
            found = domain.resolve_xref(env, node["refdoc"], app.builder, reftype, public, node, contnode)
            if found is not None:
                return found
    for path in paths:
        if path.startswith(PACKAGE + ".") and lookup(path)[0]:
            return contnode  # ours, internal: shown as code, without a link
    return None


def setup(app: Sphinx) -> None:
    app.connect("doctree-read", qualify)
    app.connect("missing-reference", resolve)
