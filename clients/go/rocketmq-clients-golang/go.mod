module rmq-conformance/clients/go/rocketmq-clients-golang

go 1.24

require github.com/apache/rocketmq-clients/golang/v5 v5.1.4
