module example.com/rmq-harness-go

go 1.19
