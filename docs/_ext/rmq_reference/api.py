"""``rmq-api``: one entry per name of ``pytest_rmq_conformance.__all__``, documented as
``pytest_rmq_conformance.NAME``, in sections that follow the groups of its ``_MODULES`` (the comment
above a group of modules is the section's title); and the resolver that sends a reference to an
internal path of a public object (``pytest_rmq_conformance.model.java_sorted_queues``) to its entry."""

from __future__ import annotations

import importlib
import inspect
import re
from dataclasses import dataclass, field

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.pycode import ModuleAnalyzer
from sphinx.util.docutils import SphinxDirective

from rmq_reference.rst import parse_rst

PACKAGE = "pytest_rmq_conformance"


@dataclass
class Group:
    title: str
    lead: str = ""
    modules: list[str] = field(default_factory=list)


def groups(package: str = PACKAGE) -> list[Group]:
    """The groups of ``package._MODULES``, titled by the comment above each run of modules."""
    module = importlib.import_module(package)
    source = inspect.getsource(module)
    block = re.search(r"^_MODULES\b.*?^}", source, re.DOTALL | re.MULTILINE)
    if block is None:
        raise ValueError(f"{package}/__init__.py: no _MODULES block")
    found: list[Group] = []
    for line in block.group(0).splitlines():
        comment = re.match(r"^ {4}# (.+)$", line)
        key = re.match(r'^ {4}f"\{_P\}(\.[\w.]*)?"', line)
        if comment:
            # "title: more (aside)": the title, then what follows it and the aside as a sentence
            text, leads = comment.group(1), []
            aside = re.search(r"\s*\(([^)]*)\)", text)
            if aside:
                text = text[: aside.start()] + text[aside.end() :]
                leads.append(aside.group(1))
            title, _, more = text.partition(": ")
            leads[:0] = [more] if more else []
            found.append(Group(title[0].upper() + title[1:], "; ".join(leads)))
        elif key:
            if not found:
                found.append(Group("Other names"))
            found[-1].modules.append(package + (key.group(1) or ""))
    listed = [name for group in found for name in group.modules]
    if listed != list(module._MODULES):
        raise ValueError(f"{package}/__init__.py: the _MODULES block read {listed}, not {list(module._MODULES)}")
    return [group for group in found if group.modules]


def public_names(package: str = PACKAGE) -> dict[str, list[tuple[str, str]]]:
    """module -> ``[(public name, name in the module), ...]``."""
    module = importlib.import_module(package)
    return {
        home: [(entry, entry) if isinstance(entry, str) else entry for entry in entries]
        for home, entries in module._MODULES.items()
    }


def _attr_doc(home: str, inner: str) -> list[str]:
    """The ``#:`` comment documenting ``inner`` in module ``home``."""
    try:
        analyzer = ModuleAnalyzer.for_module(home)
        return list(analyzer.find_attr_docs().get(("", inner), []))
    except Exception:
        return []


def _indented(text: str) -> list[str]:
    return [("   " + line).rstrip() for line in text.splitlines()]


def entry_rst(package: str, public: str, home: str, inner: str) -> str:
    value = getattr(importlib.import_module(package), public)
    target = f"{package}.{public}"
    if inspect.ismodule(value):
        return "\n".join(
            [
                f".. py:data:: {target}",
                "",
                f"   The module :mod:`{value.__name__}`: the hooks a ``conftest.py`` or a plugin implements,",
                "   documented with their examples in :doc:`hooks`.",
                "",
            ]
        )
    if inspect.isclass(value):
        if value.__name__ == public:
            return f".. autoclass:: {target}\n   :members:\n"
        return _renamed_class(target, value)
    if callable(value):
        return f".. autofunction:: {target}\n"
    # a constant: its value and its ``#:`` comment (autodata would add its type's docstring)
    shown = repr(value)
    lines = [f".. py:data:: {target}", f"   :value: {shown if len(shown) <= 100 else shown[:97] + '...'}", ""]
    lines += _indented("\n".join(_attr_doc(home, inner)))
    return "\n".join(lines) + "\n"


class _Short:
    """A default shown in a signature: its repr, or ``Type(...)`` when that is long."""

    def __init__(self, value: object):
        self.value = value

    def __repr__(self) -> str:
        text = repr(self.value)
        return text if len(text) <= 40 else f"{type(self.value).__name__}(...)"


def _renamed_class(target: str, cls: type) -> str:
    """A class exported under another name (``GrpcBroker`` is ``grpc.Broker``): autodoc would call
    it an alias of itself, so its entry is written here, its members still by autodoc."""
    try:  # names and defaults: the annotations are strings here (postponed evaluation)
        found = inspect.signature(cls)
        bare = [
            parameter.replace(annotation=inspect.Parameter.empty, default=_Short(parameter.default))
            if parameter.default is not inspect.Parameter.empty
            else parameter.replace(annotation=inspect.Parameter.empty)
            for parameter in found.parameters.values()
        ]
        signature = str(found.replace(parameters=bare, return_annotation=inspect.Signature.empty))
    except (TypeError, ValueError):
        signature = ""
    lines = [
        f".. py:class:: {target}{signature}",
        f"   :canonical: {cls.__module__}.{cls.__qualname__}",
        "",
    ]
    lines += _indented(inspect.getdoc(cls) or "")
    lines.append("")
    for name, member in vars(cls).items():
        if name.startswith("_") or not (getattr(member, "__doc__", None) and not isinstance(member, (str, int))):
            continue
        kind = "autoproperty" if isinstance(member, property) else "automethod" if callable(member) else None
        if kind is not None:
            lines += [f"   .. {kind}:: {target}.{name}", ""]
    return "\n".join(lines) + "\n"


class ApiDirective(SphinxDirective):
    has_content = False
    option_spec = {"package": str}

    def run(self) -> list[nodes.Node]:
        package = self.options.get("package", PACKAGE)
        try:
            names = public_names(package)
            sections = groups(package)
        except Exception as exc:
            raise self.error(f"rmq-api: {package}: {type(exc).__name__}: {exc}") from None
        documented = {public for entries in names.values() for public, _ in entries}
        exported = set(importlib.import_module(package).__all__) - {"__version__"}
        if documented != exported:
            raise self.error(f"rmq-api: {package}.__all__ and _MODULES differ: {sorted(documented ^ exported)}")
        result: list[nodes.Node] = []
        for group in sections:
            section = nodes.section(ids=[nodes.make_id(group.title)], names=[nodes.fully_normalize_name(group.title)])
            section += nodes.title("", group.title)
            if group.lead:
                section += nodes.paragraph("", group.lead[0].upper() + group.lead[1:] + ".")
            text = [".. py:currentmodule:: None", ""]
            for home in group.modules:
                for public, inner in names[home]:
                    text.append(entry_rst(package, public, home, inner))
            section.extend(parse_rst(self, "\n".join(text)))
            self.state.document.note_implicit_target(section)
            result.append(section)
        return result


# -- references to internal paths ---------------------------------------------------------------


def public_index(package: str = PACKAGE) -> dict[str, str]:
    """``module.inner`` and ``real module.__qualname__`` of every public object -> its public path."""
    index: dict[str, str] = {}
    top = importlib.import_module(package)
    for home, entries in public_names(package).items():
        for public, inner in entries:
            target = f"{package}.{public}"
            index[f"{home}.{inner}" if inner else home] = target
            value = getattr(top, public)
            real = getattr(value, "__module__", None)
            qualname = getattr(value, "__qualname__", None)
            if isinstance(real, str) and isinstance(qualname, str):
                index.setdefault(f"{real}.{qualname}", target)
    return index


def setup(app: Sphinx) -> None:
    app.add_directive("rmq-api", ApiDirective)
