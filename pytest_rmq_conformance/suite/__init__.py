"""The conformance suite the plugin runs against ``--rmq-strategy``.

Run it with ``pytest --rmq-strategy=SPEC`` (no test paths), add it to your
own tests with ``--rmq-suite``, or name it: ``pytest --pyargs
pytest_rmq_conformance.suite``.
"""
