module rmq-conformance/clients/go/rocketmq-client-go

go 1.21

require github.com/apache/rocketmq-client-go/v2 v2.1.2
