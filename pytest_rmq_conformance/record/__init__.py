"""The Java reference, asked directly: the project's harness (``record/java/``), compiled against a
RocketMQ release that Maven resolves from Maven Central, answers scenarios as harness records
(``schemas/harness-record.schema.json``), the input of ``rmq-conformance golden import``.

    from pytest_rmq_conformance.record import allocation, maven
    jars = maven.resolve("org.apache.rocketmq:rocketmq-client:4.9.8")
    records = allocation.record(jars, "4.9.8", scenarios)

So far the consumer allocation (the six ``AllocateMessageQueueStrategy`` classes and
``MessageQueue``'s order); the producer selection and the 5.x gRPC balancers come next (issue 43).

Internal: the recorder has no public name yet.
"""
