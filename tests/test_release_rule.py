"""One rule for a release, whichever command is given it: pytest's ``--rmq-reference-version``,
the sweep's ``--reference-version``, replay's and the matrix's ``--release`` all refuse a release
the golden vectors do not cover, with the same words, and exit 2 (pytest: 4)."""

import pytest

from pytest_rmq_conformance.cli import main
from pytest_rmq_conformance.releases import RELEASES, release_problem

UNCOVERED = "no golden vectors for RocketMQ 5.1.0: the golden data covers 4.7.1, 4.9.8, 5.3.3"
UNREADABLE = "RocketMQ release must look like 4.9.8 or 5.3.3 (4.x or 5.x), not '5.1'"


def test_the_rule_refuses_what_no_vectors_cover_and_what_is_no_release():
    assert release_problem("5.1.0", RELEASES) == UNCOVERED
    assert release_problem("5.1", RELEASES) == UNREADABLE
    assert all(release_problem(release, RELEASES) is None for release in RELEASES)


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
@pytest.mark.parametrize("release, problem", [("5.1.0", UNCOVERED), ("5.1", UNREADABLE)])
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
    result = pytester.runpytest("-p", "no:cacheprovider", "--rmq-strategy=AVG", "--rmq-reference-version=5.1.0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --rmq-reference-version=5.1.0: {UNCOVERED}"])
