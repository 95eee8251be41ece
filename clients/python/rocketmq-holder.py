"""PyPI rocketmq-holder (the version ``isolated.txt`` pins): the same balancer code as
dpyrocketmq, shipped under another name, answered by dpyrocketmq.py's harness on this
package's own classes (installed alone under ``.isolated/rocketmq-holder``). Run it as

    python clients/python/isolate.py
    pytest --rmq-strategy="exec:python clients/python/rocketmq-holder.py"
"""

import os
import runpy
from pathlib import Path

os.environ["RMQ_CLIENT_PACKAGE"] = "rocketmq-holder"
runpy.run_path(str(Path(__file__).resolve().parent / "dpyrocketmq.py"), run_name="__main__")
