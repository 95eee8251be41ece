"""What the recording tests share: the generator's scenarios of a kind asked of the real Java
classes (``golden record --generate``), then the reference ports held to every answer through
the suite itself, the recorded folder added by ``pytest_rmq_golden_dirs``."""

from __future__ import annotations

import os
import random
from pathlib import Path

from pytest_rmq_conformance import cli


def record_draws(tmp_path: Path, kind: str, version_args: list[str], count: int) -> tuple[int, Path]:
    """``count`` scenarios of a new seed (printed; ``RMQ_RECORD_SEED`` replays it) recorded into
    ``tmp_path``; the seed and the kind's golden folder."""
    seed = int(os.environ.get("RMQ_RECORD_SEED") or random.randrange(2**31))
    print(f"generator seed {seed} (replay: RMQ_RECORD_SEED={seed})")
    argv = ["golden", "record", *version_args, "--kind", kind, "--generate", str(count), "--seed", str(seed), "--out", str(tmp_path / "g")]
    assert cli.main(argv) == 0, f"seed {seed}"
    return seed, tmp_path / "g" / kind


def ports_pass(pytester, folder: Path, families: list[str], seed: int, version: str | None = None) -> dict[str, int]:
    """Each family's reference port run by the suite on the recorded cases of ``seed`` alone; how
    many passed (a failure fails the caller's test, naming the seed)."""
    pytester.makeconftest(f"from pathlib import Path\n\ndef pytest_rmq_golden_dirs(config):\n    return [Path({str(folder)!r})]\n")
    passed = {}
    for family in families:
        args = ["-p", "no:cacheprovider", f"--rmq-strategy={family}", "--rmq-checks=golden", "-k", f"gen{seed}-"]
        result = pytester.runpytest(*args, *([f"--rmq-reference-version={version}"] if version else []))
        assert result.ret == 0, f"seed {seed}, {family}:\n" + result.stdout.str()[-3000:]
        passed[family] = result.parseoutcomes()["passed"]
    return passed
