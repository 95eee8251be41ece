"""The Java reference, asked directly: the project's harness (``record/java/``), compiled against a
RocketMQ release that Maven resolves from Maven Central, answers scenarios as harness records
(``schemas/harness-record.schema.json``, ``schemas/producer-harness-record.schema.json``), the
input of ``rmq-conformance golden import``.

    from pytest_rmq_conformance.record import allocation, maven, producer
    jars = maven.resolve("org.apache.rocketmq:rocketmq-client:4.9.8")
    records = allocation.record(jars, "4.9.8", scenarios)
    traces = producer.record(jars, "4.9.8", producer.shipped_scenarios())

The consumer allocation (the six ``AllocateMessageQueueStrategy`` classes and ``MessageQueue``'s
order) and the producer selection (``MQFaultStrategy`` traces on the scenario's clock, the hash
and random selectors), each release through its own API (``jvm`` compiles and runs, ``maven``
resolves); the 5.x gRPC balancers come next.

Internal: the recorder has no public name yet.
"""
