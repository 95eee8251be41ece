"""PyPI rocketmq (the ctypes client over the C++ core, the version ``isolated.txt`` pins) behind
the suite's exec protocol: SELECTOR_HASH is answered by the package's own
``hashing_queue_selector`` (``rocketmq/client.py``), the default selector of
``Producer.send_orderly`` and ``send_oneway_orderly``, reached through ``send_orderly`` itself.
rocketmq-python-cvs ships the same ``client.py``; ``rocketmq-python-cvs.py`` runs this file on
its classes. Nothing of the selector's logic is written here. Run it as

    python clients/python/isolate.py
    pytest --rmq-strategy="exec:python clients/python/rocketmq-ctypes.py" --rmq-reference-version=4.9.8

Both packages bundle ``librocketmq.so`` (the wheel's and the sdist's ``rocketmq/``), so
``rocketmq.client`` imports as shipped, the library loaded by the package's own ``ffi.py``.
Their top-level module is ``rocketmq``, as is rocketmq-python-client's: each is installed alone
under ``clients/python/.isolated/<name>`` and ``rocketmq`` is bound to that folder.

How a selection reaches the package's code in production, and what this file does for each step:

- the application calls ``send_orderly(msg, arg)``; the package casts ``arg`` to a C ``int``
  (``ctypes.c_int(arg)``, which keeps the low 32 bits of a wider int and refuses anything but an
  int) and hands librocketmq its address with a ctypes callback around the selector. Here
  ``send_orderly`` is called as shipped, on a stand-in producer (the handle and callback list it
  reads), so the cast and the callback are the package's own;
- librocketmq's ``SendMessageOrderly`` sends through ``SelectMessageQueue::select``
  (rocketmq-client-cpp ``src/extern/CProducer.cpp``), which calls the callback with the size of
  the topic's queue list and the argument's address, and sends to ``mqs[index]``. That call
  needs a broker's route: the library's ``SendMessageOrderly`` is the one symbol this file
  replaces, by a stand-in making that very call through the ctypes callback (the real library
  serves every other symbol), and the index it gets back is the answer;
- a Java ``Integer`` or ``Long`` argument is a Python ``int`` here (Python has one integer type);
  a ``String``, an object with its own ``hashCode`` or ``null`` cannot be given to ``send_orderly``
  (``c_int`` raises ``TypeError`` before any queue is chosen): each of their calls is ``notRun``;
- a list of no queues: what librocketmq does then (it would read ``mqs[index]`` of an empty list)
  is the C++ core's, not this package's: ``notRun``.

``RMQ_CLIENT_PACKAGE`` names the distribution (``rocketmq`` by default), ``RMQ_CLIENT_HOME``
another folder it is installed in.
"""

import importlib.util
import os
import sys
import tempfile
import types
from importlib.metadata import distributions
from pathlib import Path

_spec = importlib.util.spec_from_file_location("rmq_clients_common", Path(__file__).resolve().parent / "common.py")
common = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(common)

PACKAGE = os.environ.get("RMQ_CLIENT_PACKAGE", "rocketmq")
HOME = Path(os.environ.get("RMQ_CLIENT_HOME") or Path(__file__).resolve().parent / ".isolated" / PACKAGE)
if not (HOME / "rocketmq" / "client.py").is_file():
    sys.exit(
        f"clients/python/rocketmq-ctypes.py: {HOME / 'rocketmq'} holds no {PACKAGE}: python clients/python/isolate.py"
    )
os.environ["HOME"] = tempfile.mkdtemp(prefix="rmq-clients-rocketmq-ctypes-")  # the core logs under ~/logs
_package = types.ModuleType("rocketmq")
_package.__path__ = [str(HOME / "rocketmq")]
sys.modules["rocketmq"] = _package

from rocketmq import client  # noqa: E402  (after rocketmq is bound to the isolated install)

VERSION = next(iter(distributions(name=PACKAGE, path=[str(HOME)]))).version
#: the Java argument types that are a Python int for send_orderly
INTEGERS = ("integer", "long")


class Core:
    """librocketmq as ``send_orderly`` sees it: the loaded library, but for ``SendMessageOrderly``,
    which calls the selector callback as the core's ``SelectMessageQueue::select`` does."""

    def __init__(self, library, size):
        self.library, self.size, self.index = library, size, None

    def __getattr__(self, name):
        return getattr(self.library, name)

    def SendMessageOrderly(self, producer, message, callback, arg, retry_times, result):
        self.index = callback(self.size, None, arg)  # int index = m_pCallback(mqs.size(), message, arg)
        return 0  # OK: the send itself is the broker's


def pick(value, size):
    """The queue ``send_orderly(msg, value)`` sends to among ``size`` queues, as its position."""
    core = Core(client.dll, size)
    client.dll = core
    try:
        client.Producer.send_orderly(types.SimpleNamespace(_handle=None, _callback_refs=[]), None, value)
    finally:
        client.dll = core.library
    if not 0 <= core.index < size:
        return {
            "error": "other",
            "message": f"the selector answered {core.index} of {size} queues (mqs[index] unchecked)",
        }
    return {"index": core.index}


def select(request):
    arg = request["arg"]
    answers = []
    for size in request["queueCounts"]:
        if arg["type"] not in INTEGERS:
            answers.append(
                {"notRun": f"send_orderly casts its argument with ctypes.c_int: it takes no {arg['type']} argument"}
            )
        elif size == 0:
            answers.append(
                {"notRun": "a topic of no queue: what librocketmq then reads (mqs[index]) is the C++ core's"}
            )
        else:
            try:
                answers.append(pick(arg["value"], size))
            except Exception as exc:  # what the client raises is its answer
                answers.append(common.error_answer(exc))
    return {"answers": answers}


HELLO = common.hello(PACKAGE, VERSION, f"https://pypi.org/project/{PACKAGE}/", ["SELECTOR_HASH"])


if __name__ == "__main__":
    common.serve(HELLO, select=select, unsupported=f"a queue {PACKAGE} chooses in its own code (only hashing_queue_selector is)")
