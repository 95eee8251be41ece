"""One rule for a release, whichever command is given it: pytest's ``--rmq-reference-version``,
the sweep's ``--reference-version``, replay's and the matrix's ``--release`` all refuse a release
the golden vectors do not cover, with the same words, and exit 2 (pytest: 4); and each takes a
release line (``4.9``) as its newest release the vectors cover, saying which in one line."""

import pytest

from pytest_rmq_conformance.cli import main
from pytest_rmq_conformance.engine.golden.data import shipped_releases
from pytest_rmq_conformance.releases import release_problem, resolve_line

COVERED = shipped_releases()
#: 4.9.7 is no release Maven Central serves; no 5.6 release exists yet
UNCOVERED = f"no golden vectors for RocketMQ 4.9.7: the golden data covers {', '.join(COVERED)}"
UNCOVERED_LINE = f"no golden vectors for a RocketMQ 5.6 release: the golden data covers {', '.join(COVERED)}"
UNREADABLE = "RocketMQ release must look like 4.9.8 or 5.3.3 (4.x or 5.x), not '5.1.x'"


def test_the_rule_refuses_what_no_vectors_cover_and_what_is_no_release():
    assert release_problem("4.9.7", COVERED) == UNCOVERED
    assert release_problem("5.6", COVERED) == UNCOVERED_LINE
    assert release_problem("5.1.x", COVERED) == UNREADABLE
    assert all(release_problem(release, COVERED) is None for release in COVERED)


@pytest.mark.parametrize(
    "given, found",
    [("4.9", ("4.9.8", "the newest 4.9 release the golden data covers")), ("5.3", ("5.3.3", "the newest 5.3 release the golden data covers")),
     ("5.6", ("5.6", None)), ("4.9.8", ("4.9.8", None)), ("5", ("5", None))],
)
def test_a_line_is_its_newest_covered_release(given, found):
    assert resolve_line(given, ("4.7.1", "4.9.6", "4.9.8", "5.3.3")) == found


@pytest.mark.parametrize(
    "argv, option",
    [
        (["sweep", "--reference-version", "{r}"], "--reference-version"),
        (["sweep", "--mix", "--strategy", "AVG", "--reference-version", "{r}"], "--reference-version"),
        (["replay", "--release", "{r}"], "--release"),
        (["matrix", "AVG", "--release", "{r}"], "--release"),
    ],
    ids=["sweep", "sweep-mix", "replay", "matrix"],
)
@pytest.mark.parametrize("release, problem", [("4.9.7", UNCOVERED), ("5.6", UNCOVERED_LINE), ("5.1.x", UNREADABLE)])
def test_every_command_that_takes_a_release_refuses_it_by_the_rule(argv, option, release, problem, capsys, tmp_path):
    args = [word.format(r=release) for word in argv]
    if args[0] == "sweep":  # small, should the release be let through
        args += ["--scenarios", "1", "--queues", "1:2", "--consumers", "1:2", "--quiet"]
    if args[0] in ("sweep", "matrix"):
        args += ["--out", str(tmp_path / "out")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"{option} {release}: {problem}" in err
    assert not (tmp_path / "out").exists()


def test_pytest_refuses_the_same_release_in_the_same_words(pytester):
    result = pytester.runpytest("-p", "no:cacheprovider", "--rmq-strategy=AVG", "--rmq-reference-version=4.9.7")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --rmq-reference-version=4.9.7: {UNCOVERED}"])


def test_pytest_takes_a_line_as_its_newest_release_and_says_so(pytester):
    result = pytester.runpytest("-p", "no:cacheprovider", "--rmq-strategy=AVG", "--rmq-reference-version=4.9",
                                "--rmq-checks=golden", "--rmq-case=pub-AVG-0001-published-example")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines([
        "rmq-conformance: RocketMQ 4.9.8 (--rmq-reference-version 4.9: the newest 4.9 release the golden data covers), *",
        "*1 passed*",
    ])


def test_pytest_refuses_a_line_no_vectors_cover(pytester):
    result = pytester.runpytest("-p", "no:cacheprovider", "--rmq-strategy=AVG", "--rmq-reference-version=5.6")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --rmq-reference-version=5.6: {UNCOVERED_LINE}"])


def test_replay_takes_a_line_and_says_which_release_it_is(capsys):
    assert main(["replay", "--release", "4.7", "--strategy", "CONFIG"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "--release 4.7: RocketMQ 4.7.1, the newest 4.7 release the golden data covers"
    assert any(line.startswith("4.7.1 ") for line in out) and not any(line.startswith("4.9.8 ") for line in out)


def test_pytest_judges_at_a_release_the_ports_reproduce_through_another(pytester):
    """4.5.0's AVG answers every case as 5.3.3's does: the built-in port, asked to be 4.5.0, is
    5.3.3's, and the golden run holds it to 4.5.0's own vectors."""
    result = pytester.runpytest("-p", "no:cacheprovider", "--rmq-strategy=AVG", "--rmq-reference-version=4.5.0",
                                "--rmq-checks=golden", "--rmq-case=pub-AVG-000*")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["rmq-conformance: RocketMQ 4.5.0 (--rmq-reference-version), *", "*9 passed*"])


def test_pytest_refuses_a_built_in_port_at_a_release_whose_answers_it_does_not_reproduce(pytester):
    """4.8.0's MACHINE_ROOM answers as none of 4.7.1, 4.9.8 and 5.3.3: its vectors judge a strategy
    of one's own, and the built-in port is refused there rather than judged against them."""
    result = pytester.runpytest("-p", "no:cacheprovider", "--rmq-strategy=MACHINE_ROOM", "--rmq-reference-version=4.8.0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: the built-in MACHINE_ROOM port reproduces RocketMQ 4.7.1, 4.9.8, 5.3.3, and Java's MACHINE_ROOM at 4.8.0 answers as none of them*"])


def test_replay_leaves_out_what_the_ports_do_not_reproduce_and_says_so(capsys):
    assert main(["replay", "--release", "4.8.0", "--strategy", "MACHINE_ROOM", "--strategy", "AVG"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert any(line.startswith("4.8.0 ") and "AVG" in line for line in out)
    assert any(line.startswith("not replayed: MACHINE_ROOM at 4.8.0 (130 cases)") for line in out)
