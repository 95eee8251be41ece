"""One rule for every setting: its option, then $RMQ_<NAME>, then ini rmq_<name>, then the default."""

import pytest

from pytest_rmq_conformance.plugin.options import CHOICES, choose

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
    result.stdout.fnmatch_lines(["rmq-conformance: RocketMQ 5.3.3 (default), charset UTF-8, answers compared as sets, 2 s per call"])
    monkeypatch.setenv("RMQ_MAX_RESTARTS", "many")
    result = pytester.runpytest("-p", "no:cacheprovider", "--rmq-strategy=AVG", "--rmq-checks=golden", "--co")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: $RMQ_MAX_RESTARTS: expected a whole number, not 'many'"])
