module example.com/my-client

go 1.19
