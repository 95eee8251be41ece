"""Internal: the defaults of a run's settings, each stated once.

The plugin's options say them in their help and in the options reference, and the engine's
:class:`~pytest_rmq_conformance.engine.settings.Settings` starts from them. The options are read
at every pytest start-up, so this module imports nothing. (The default release is
:data:`pytest_rmq_conformance.releases.DEFAULT_RELEASE`; the profiles' numbers, examples and
drawing time, are the engine's.)
"""

from __future__ import annotations

__all__ = ["STRATEGY", "CHARSET", "TIMEOUT", "MAX_HANGS", "MAX_RESTARTS", "PROFILE", "SHRINK_TIME"]

#: RocketMQ's own default strategy, used when the suite runs with no strategy chosen
STRATEGY = "AVG"
#: the JVM default charset the 4.x consistent hash reads key bytes in
CHARSET = "UTF-8"
#: seconds each call into the strategy under test may take (0 or ``None``: no limit)
TIMEOUT = 5.0
#: calls over the time limit in one run after which the strategy is no longer called
MAX_HANGS = 3
#: restarts of a harness process after faults
MAX_RESTARTS = 3
#: how hard the generated checks look, by default
PROFILE = "quick"
#: seconds a generated check may spend shrinking a failure
SHRINK_TIME = 5.0
