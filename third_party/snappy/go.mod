module github.com/golang/snappy
