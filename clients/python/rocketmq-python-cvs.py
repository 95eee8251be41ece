"""PyPI rocketmq-python-cvs (the version ``isolated.txt`` pins): the ``client.py`` of PyPI rocketmq
0.4.4 with log-path setters added, and its own ``librocketmq.so``, answered by
rocketmq-ctypes.py's harness on this package's own classes (installed alone under
``.isolated/rocketmq-python-cvs``). Run it as

    python clients/python/isolate.py
    pytest --rmq-strategy="exec:python clients/python/rocketmq-python-cvs.py" --rmq-reference-version=4.9.8
"""

import os
import runpy
from pathlib import Path

os.environ["RMQ_CLIENT_PACKAGE"] = "rocketmq-python-cvs"
runpy.run_path(str(Path(__file__).resolve().parent / "rocketmq-ctypes.py"), run_name="__main__")
