"""``rmq-conformance replay``: its table counts cases and calls, each apart."""

import os
import subprocess
import sys

import pytest

from pytest_rmq_conformance import cli
from pytest_rmq_conformance.cli import main
from pytest_rmq_conformance.engine.golden.data import load_golden


def test_the_replay_table_names_what_each_column_counts(capsys):
    assert main(["replay", "--release", "5.3.3", "--strategy", "CONFIG"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["run", "strategy", "cases", "cases", "differing", "calls", "calls", "differing"]
    assert lines[1].index("cases differing") < lines[1].index("calls differing")
    assert lines[2].split() == ["5.3.3", "CONFIG", "22", "0", "107", "0"]
    assert lines[-1] == "the reference ports reproduce every answer"


def test_a_differing_case_counts_once_and_each_differing_call_once(capsys, monkeypatch):
    """A port that answers two callers of one group wrongly: every case of that group differs
    once, with two calls each."""
    run = load_golden().runs["5.3.3"]
    target = next(
        case for case in load_golden().cases
        if case.strategy == "AVG" and len([r for r in case.results_for(run.id) if r.queues]) >= 2
    )  # fmt: skip
    wrong = sorted(r.current_cid for r in target.results_for(run.id) if r.queues)[:2]
    same_group = [
        case for case in load_golden().cases
        if case.strategy == "AVG" and run.id in case.runs and (case.mq_all, case.cid_all) == (target.mq_all, target.cid_all)
    ]  # fmt: skip
    real = cli.reference_strategy

    class TwoWrong:
        def __init__(self, port):
            self.port, self.name = port, port.name

        def allocate(self, group, cid, mq_all, cid_all):
            if (mq_all, cid_all) == (list(target.mq_all), list(target.cid_all)) and cid in wrong:
                return []
            return self.port.allocate(group, cid, mq_all, cid_all)

    monkeypatch.setattr(cli, "reference_strategy", lambda *args: TwoWrong(real(*args)))
    assert main(["replay", "--release", "5.3.3", "--strategy", "AVG"]) == 1
    lines = capsys.readouterr().out.splitlines()
    cases, calls = len(same_group), 2 * len(same_group)
    (row,) = [line.split() for line in lines if line.startswith("5.3.3 ")]
    assert row[:3] == ["5.3.3", "AVG", "398"] and (row[3], row[5]) == (str(cases), str(calls))
    assert lines[-1] == f"{calls} of {row[4]} calls answer differently, in {cases} cases"


def test_a_reader_that_goes_away_ends_the_output_quietly():
    """`rmq-conformance replay | head -2`: no traceback when the pipe closes early."""
    reader, writer = os.pipe()
    os.close(reader)  # the reader is gone before the first line
    result = subprocess.run([sys.executable, "-m", "pytest_rmq_conformance.cli", "replay"], stdout=writer, stderr=subprocess.PIPE, text=True, timeout=120)
    os.close(writer)
    assert "Traceback" not in result.stderr and "BrokenPipeError" not in result.stderr, result.stderr
    assert result.returncode == 141


@pytest.mark.once
def test_replay_says_it_covers_the_consumer_vectors_and_where_the_others_replay(capsys):
    from pytest_rmq_conformance.engine.kinds import get_kind

    with pytest.raises(SystemExit):
        main(["replay", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "every golden vector of consumer allocation" in help_text
    assert "The producer and gRPC vectors are replayed by pytest" in help_text
    producer = get_kind("producer").golden_dirs[0]
    assert main(["replay", "--golden", str(producer)]) == 2
    assert (
        f"nothing replayed: no case matches the selection: {producer} holds FAULT_STRATEGY, SELECTOR_HASH, SELECTOR_RANDOM, "
        "which replay does not cover (pytest --rmq-strategy=FAULT_STRATEGY --rmq-checks=golden replays a family's reference port)"
    ) in capsys.readouterr().err


@pytest.mark.once
def test_golden_check_without_a_directory_validates_every_kinds_vectors(capsys):
    from pytest_rmq_conformance.engine.kinds import all_kinds

    assert main(["golden", "check"]) == 0
    out = capsys.readouterr().out
    checked = [line.split(":")[0] for line in out.splitlines() if not line.startswith(" ")]
    dirs = [str(directory) for kind in all_kinds() for directory in kind.golden_dirs]
    assert checked[1:] == dirs and len(dirs) >= 2, out
    assert "valid cases of FAULT_STRATEGY, SELECTOR_HASH, SELECTOR_RANDOM" in out
    assert "valid cases of GROUP_HASH, PUBLISH_ROUND_ROBIN, SUBSCRIBE_ROUND_ROBIN" in out
