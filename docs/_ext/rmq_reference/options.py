"""``rmq-options``: the plugin's pytest options and ini keys, read by calling its ``pytest_addoption``
with a parser that records what is added.

An option read from the command line, then an environment variable, then an ini key has no
parser default (``None`` tells a value given from none); the plugin states its real default in
a mapping from dest to words (option ``:defaults:``, a dotted name; by default the plugin's
``options.OPTION_DEFAULTS``), which the reference shows instead of "not set"."""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from typing import Any

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from rmq_reference.rst import escape, parse_rst

PLUGIN = "pytest_rmq_conformance.plugin"
DEFAULTS = "pytest_rmq_conformance.plugin.options.OPTION_DEFAULTS"


@dataclass
class Option:
    names: tuple[str, ...]
    attrs: dict[str, Any]
    group: str

    @property
    def dest(self) -> str:
        return self.attrs.get("dest") or self.names[0].lstrip("-").replace("-", "_")


@dataclass
class Ini:
    name: str
    help: str
    type: str | None = None
    default: Any = None


@dataclass
class _Group:
    parser: RecordingParser
    name: str
    description: str

    def addoption(self, *names: str, **attrs: Any) -> None:
        self.parser.options.append(Option(names, attrs, self.description or self.name))

    _addoption = addoption


@dataclass
class RecordingParser:
    """Stands in for pytest's ``Parser``: records ``addoption``, ``getgroup(...).addoption`` and ``addini``."""

    options: list[Option] = field(default_factory=list)
    inis: list[Ini] = field(default_factory=list)

    def getgroup(self, name: str, description: str = "", after: str | None = None) -> _Group:
        return _Group(self, name, description)

    def addoption(self, *names: str, **attrs: Any) -> None:
        self.options.append(Option(names, attrs, "general"))

    def addini(self, name: str, help: str, type: str | None = None, default: Any = None, **_: Any) -> None:
        self.inis.append(Ini(name, help, type, default))


def recorded(plugin: str = PLUGIN) -> RecordingParser:
    """What ``plugin``'s ``pytest_addoption`` adds."""
    parser = RecordingParser()
    importlib.import_module(plugin).pytest_addoption(parser)
    if not parser.options:
        raise ValueError(f"{plugin}.pytest_addoption added no option")
    return parser


def stated_defaults(dotted: str = DEFAULTS) -> dict[str, str]:
    """The defaults a plugin states in words, by dest: the mapping at ``module.attribute``."""
    module, _, attribute = dotted.rpartition(".")
    return dict(getattr(importlib.import_module(module), attribute))


def _stated(words: str, known: set[str]) -> str:
    """A stated default: one value as code, words as text (an option named in them linked)."""
    return help_rst(words, known) if " " in words else f"``{words}``"


def _default(option: Option, stated: dict[str, str], known: set[str]) -> str:
    attrs = option.attrs
    action = attrs.get("action")
    if action == "store_true":
        return "off (a flag)"
    if action == "append":
        return "none (repeatable)" if not attrs.get("default") else f"``{attrs['default']!r}`` (repeatable)"
    if attrs.get("default") is None:
        return _stated(stated[option.dest], known) if option.dest in stated else "not set"
    return f"``{attrs['default']}``"


def _value(option: Option) -> str:
    attrs = option.attrs
    if attrs.get("action") == "store_true":
        return ""
    if attrs.get("choices"):
        return "{" + ",".join(str(choice) for choice in attrs["choices"]) + "}"
    return attrs.get("metavar") or option.dest.upper()


_OPTION = re.compile(r"(?<![\w-])(--[a-z][\w-]*)")


def help_rst(text: str, known: set[str]) -> str:
    """Help text as reStructuredText: verbatim, but an option named in it is a link to its entry
    (or code, when it is not one of these; smart quotes would make a dash of ``--``)."""
    parts = _OPTION.split(text.replace("\n", " "))
    out = []
    for index, part in enumerate(parts):
        if index % 2 == 0:
            out.append(escape(part))
        else:
            out.append(f":option:`{part} <pytest {part}>`" if part in known else f"``{part}``")
    return _joined(out)


def _joined(parts: list[str]) -> str:
    """The parts, an escaped space (which shows nothing) where inline markup needs a boundary."""
    text = ""
    for part in parts:
        opens = part.startswith((":option:", "``")) and text[-1:] not in ("", " ", "(", "[", "'", '"', "/")
        closes = text.endswith("`") and part[:1] not in ("", " ", ".", ",", ";", ":", ")", "]", "'", '"', "/", "?", "!")
        text += ("\\ " if opens or closes else "") + part
    return text


def options_rst(parser: RecordingParser, stated: dict[str, str] | None = None) -> str:
    inis = {ini.name: ini for ini in parser.inis}
    known = {name for option in parser.options for name in option.names}
    stated = stated or {}
    lines = [".. program:: pytest", ""]
    for option in parser.options:
        value = _value(option)
        lines.append(".. option:: " + ", ".join(f"{name} {value}".rstrip() for name in option.names))
        lines.append("")
        lines.append("   " + help_rst(option.attrs.get("help", ""), known))
        lines.append("")
        fields = [f"Default: {_default(option, stated, known)}"]
        if option.attrs.get("choices"):
            fields.append("Choices: " + ", ".join(f"``{choice}``" for choice in option.attrs["choices"]))
        if option.attrs.get("type") is not None:
            fields.append(f"Type: ``{option.attrs['type'].__name__}``")
        if option.dest in inis:
            fields.append(f"Ini key: :confval:`{option.dest}`")
        lines.append("   " + " · ".join(fields))
        lines.append("")
    return "\n".join(lines)


def inis_rst(parser: RecordingParser, stated: dict[str, str] | None = None) -> str:
    known = {name for option in parser.options for name in option.names}
    stated = stated or {}
    lines = []
    for ini in parser.inis:
        lines.append(f".. confval:: {ini.name}")
        lines.append(f"   :type: ``{ini.type or 'string'}``")
        if ini.default not in (None, ""):
            lines.append(f"   :default: ``{ini.default!r}``")
        else:
            # the field takes inline text only, no link: an option named in it is code
            lines.append(f"   :default: {_stated(stated[ini.name], set()) if ini.name in stated else 'not set'}")
        lines.append("")
        lines.append("   " + help_rst(ini.help, known))
        lines.append("")
    return "\n".join(lines)


class OptionsDirective(SphinxDirective):
    """The plugin's options (``.. option::`` entries of program ``pytest``) and, under a heading
    ``Ini keys``, its ini keys (``.. confval::`` entries)."""

    has_content = False
    option_spec = {"plugin": str, "defaults": str}

    def run(self) -> list[nodes.Node]:
        plugin = self.options.get("plugin", PLUGIN)
        try:
            parser = recorded(plugin)
            stated = stated_defaults(self.options.get("defaults", DEFAULTS))
        except Exception as exc:  # an import error or a broken pytest_addoption: said with the plugin
            raise self.error(f"rmq-options: {plugin}: {type(exc).__name__}: {exc}") from None
        result = parse_rst(self, options_rst(parser, stated))
        if parser.inis:
            section = nodes.section(ids=["ini-keys"], names=["ini keys"])
            section += nodes.title("", "Ini keys")
            section += nodes.paragraph(
                "", "Settings a pytest.ini, tox.ini, setup.cfg or pyproject.toml ([tool.pytest.ini_options]) may hold."
            )
            section.extend(parse_rst(self, inis_rst(parser, stated)))
            self.state.document.note_implicit_target(section)
            result.append(section)
        return result
