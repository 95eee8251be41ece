"""The Java reference, asked directly: the project's harness (``record/java/``), compiled against a
release that Maven resolves from Maven Central, answers scenarios as harness records
(``schemas/harness-record.schema.json``, ``producer-harness-record``, ``grpc-harness-record``),
the input of ``rmq-conformance golden import``.

    from pytest_rmq_conformance.record import allocation, maven, producer
    jars = maven.resolve("org.apache.rocketmq:rocketmq-client:4.9.8")
    records = allocation.record(jars, "4.9.8", scenarios)
    traces = producer.record(jars, "4.9.8", producer.shipped_scenarios())

One module per kind: ``allocation`` (the six ``AllocateMessageQueueStrategy`` classes and
``MessageQueue``'s order), ``producer`` (``MQFaultStrategy`` traces on the scenario's clock, the
hash and random selectors), ``grpc`` (rocketmq-client-java's balancers), each version through its
own API; ``recorders`` asks versions one by one and imports them together, ``served`` names what
Maven Central serves, ``jvm`` compiles and runs the harness, ``maven`` resolves.

Internal: the recorder has no public name yet.
"""
