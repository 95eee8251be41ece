module example.com/rmq-producer-harness-go

go 1.19
