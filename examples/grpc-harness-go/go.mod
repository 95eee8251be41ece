module example.com/rmq-grpc-harness-go

go 1.19
