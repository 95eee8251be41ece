"""Internal: the errors a sweep stops with, and their exit codes.

Why a sweep did not run or finish, each said in one sentence, with the command's exit code:
2 is a usage error (found before Spark starts), 3 a Spark that did not start or a master that
does not answer, 1 a sweep that failed part-way and published nothing."""

from __future__ import annotations

__all__ = ["SweepError", "SparkStartError", "SweepFailed"]


class SweepError(Exception):
    """A sweep that could not run or finish, said in one sentence; ``exit_code`` is the command's."""

    exit_code = 1


class SparkStartError(SweepError):
    """Spark did not start on the master given."""

    exit_code = 3


class SweepFailed(SweepError):
    """The sweep failed part-way; nothing of it was published."""

    exit_code = 1
