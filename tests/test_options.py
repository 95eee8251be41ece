"""One rule for every setting: its option, then $RMQ_<NAME>, then ini rmq_<name>, then the default;
and the help says each default the settings use, and every built-in family."""

import fnmatch
import re
from dataclasses import fields

import pytest
from docs_pages import DOCS

from pytest_rmq_conformance.engine import kinds
from pytest_rmq_conformance.engine.settings import Settings
from pytest_rmq_conformance.plugin import pytest_addoption
from pytest_rmq_conformance.plugin.options import BUILT_IN_FAMILIES, CHOICES, OPTION_DEFAULTS, choose

#: an option value, an environment value and an ini value for each setting, all valid
SAMPLES = {
    "strategy": ("CONFIG", "MACHINE_ROOM", "AVG_BY_CIRCLE"),
    "reference-version": ("4.7.1", "4.9.8", "5.3.3"),
    "profile": ("thorough", "quick", "thorough"),
    "timeout": ("1.5", "2.5", "3.5"),
    "max-restarts": ("1", "2", "3"),
    "examples": ("1", "2", "3"),
    "shrink-time": ("1", "2", "3"),
    "check-time": ("1", "2", "3"),
    "seed": ("1", "2", "3"),
}


class Config:
    """What the choices read of a pytest config: options by dest, ini keys (absent: "")."""

    def __init__(self, options=None, ini=None):
        self.options, self.ini = options or {}, ini or {}

    def getoption(self, dest):
        return self.options.get(dest)

    def getini(self, key):
        return self.ini.get(key, "")


def test_every_setting_has_samples():
    assert set(SAMPLES) == set(CHOICES)


@pytest.mark.parametrize("name", sorted(CHOICES))
def test_each_setting_reads_its_option_then_environment_then_ini_then_default(name, monkeypatch):
    choice, (option, env, ini) = CHOICES[name], SAMPLES[name]
    dest = "rmq_" + name.replace("-", "_")
    parse = choice.parse
    monkeypatch.setenv(dest.upper(), env)
    everything = Config({dest: option}, {dest: ini})
    assert choose(everything, name) == (parse(option), f"--rmq-{name}")
    assert choose(Config({}, {dest: ini}), name) == (parse(env), f"${dest.upper()}")
    monkeypatch.delenv(dest.upper())
    assert choose(Config({}, {dest: ini}), name) == (parse(ini), f"ini {dest}")
    assert choose(Config(), name, "fallback") == ("fallback", "default")


@pytest.mark.parametrize(
    "name, value, says",
    [
        ("timeout", "soon", "$RMQ_TIMEOUT: expected a number of seconds, not 'soon'"),
        ("max-restarts", "-1", "$RMQ_MAX_RESTARTS: must be 0 or more, not -1"),
        ("examples", "0", "$RMQ_EXAMPLES: must be at least 1, not 0"),
        ("profile", "fast", "$RMQ_PROFILE: expected one of quick, thorough, not 'fast'"),
        ("seed", "1.5", "$RMQ_SEED: expected a whole number, not '1.5'"),
    ],
)
def test_a_value_that_does_not_parse_is_a_usage_error_naming_where_it_came_from(name, value, says, monkeypatch):
    monkeypatch.setenv("RMQ_" + name.replace("-", "_").upper(), value)
    with pytest.raises(pytest.UsageError, match=f"^{says.replace('$', '[$]')}$"):
        choose(Config(), name)


def test_the_environment_reaches_a_real_run(pytester, monkeypatch):
    monkeypatch.setenv("RMQ_TIMEOUT", "2")
    result = pytester.runpytest("-p", "no:cacheprovider", "--rmq-strategy=AVG", "--rmq-checks=golden", "--co")
    result.stdout.fnmatch_lines(["rmq-conformance: RocketMQ 5.5.0 (default), charset UTF-8, answers compared as sets, 2 s per call"])
    monkeypatch.setenv("RMQ_MAX_RESTARTS", "many")
    result = pytester.runpytest("-p", "no:cacheprovider", "--rmq-strategy=AVG", "--rmq-checks=golden", "--co")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: $RMQ_MAX_RESTARTS: expected a whole number, not 'many'"])


class Recorder:
    """What ``pytest_addoption`` adds: each option's help and parser default, by name."""

    def __init__(self):
        self.help: dict[str, str] = {}
        self.defaults: dict[str, object] = {}

    def getgroup(self, *args, **kwargs):
        return self

    def addoption(self, *names, **attrs):
        self.help[names[0]] = attrs.get("help", "")
        self.defaults[names[0]] = False if attrs.get("action") == "store_true" else attrs.get("default")

    def addini(self, *args, **kwargs):
        pass


@pytest.fixture(scope="module")
def recorded():
    recorder = Recorder()
    pytest_addoption(recorder)
    return recorder


def test_the_help_names_every_built_in_family_of_the_registry(recorded):
    """Written out so that start-up imports no kind, the list is the registry's, kind by kind."""
    built_in = {name: family for name, family in kinds.ports().items() if family.__module__.startswith("pytest_rmq_conformance.")}
    registry = [
        tuple(name for name in built_in if kinds.get(name).kind == kind.name)
        for kind in kinds.all_kinds()
        if type(kind).__module__ in kinds.BUILT_IN
    ]
    assert list(BUILT_IN_FAMILIES.values()) == registry
    said = recorded.help["--rmq-strategy"]
    assert [name for name in built_in if not re.search(rf"\b{name}\b", said)] == []


#: the setting each choice with a default of one value fills
FIELDS = {"strategy": "spec", "reference-version": "version", "profile": "profile", "timeout": "timeout",
          "max-restarts": "max_restarts", "shrink-time": "shrink_time"}


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_each_default_is_stated_once_and_said_by_the_help(name, recorded):
    choice = CHOICES[name]
    assert choice.default == getattr(Settings(), FIELDS[name])
    assert choose(Config(), name) == (choice.default, "default")
    shown = re.escape(OPTION_DEFAULTS[choice.dest])
    assert re.search(rf"default:? {shown}\b|{shown} \(default\)", recorded.help[f"--rmq-{name}"]), recorded.help[f"--rmq-{name}"]


def test_the_parser_defaults_are_the_settings_defaults(recorded):
    assert recorded.defaults["--rmq-max-hangs"] == Settings().max_hangs
    assert recorded.defaults["--rmq-charset"] == Settings().charset
    assert {field.name for field in fields(Settings)} >= set(FIELDS.values())


def test_every_option_without_a_parser_default_states_one(recorded):
    """The options reference shows OPTION_DEFAULTS where the parser's default is None; an option
    whose help speaks of a default must have one there."""
    unstated = [
        option for option, text in recorded.help.items()
        if "default" in text and recorded.defaults[option] is None and option.lstrip("-").replace("-", "_") not in OPTION_DEFAULTS
    ]
    assert unstated == []


def test_the_time_limit_says_it_limits_the_calls_of_every_kind(recorded):
    said = recorded.help["--rmq-timeout"]
    methods = re.findall(r"([a-z_]+\*?)\(\)", said)
    for kind in kinds.all_kinds():
        if type(kind).__module__ in kinds.BUILT_IN:
            named = [m for m in (kind.method, *getattr(kind, "other_methods", ())) if any(fnmatch.fnmatch(m, p) for p in methods)]
            assert named, f"--rmq-timeout's help names no method of kind {kind.name}: {said}"
    assert "one allocate() call" not in said


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_the_settings_page_states_the_same_defaults(name):
    """docs/reference/settings.md's table, written by hand, says each default as the options do."""
    text = (DOCS / "reference" / "settings.md").read_text(encoding="utf-8")
    row = re.search(rf"^\| `--rmq-{name}=.*$", text, re.MULTILINE)
    assert row is not None, f"settings.md lost its --rmq-{name} row"
    shown = re.escape(OPTION_DEFAULTS[CHOICES[name].dest])
    assert re.search(rf"default:? `?{shown}\b|`?{shown}`? \(default\)", row.group(0)), row.group(0)
    if name == "timeout":
        assert "one `allocate()` call" not in row.group(0)
