module github.com/blevesearch/bleve/v2

go 1.25.0

require (
	github.com/RoaringBitmap/roaring/v2 v2.14.5
	github.com/bits-and-blooms/bitset v1.24.2
	github.com/blevesearch/bleve_index_api v1.4.1
	github.com/blevesearch/geo v0.2.6
	github.com/blevesearch/go-faiss v1.1.5
	github.com/blevesearch/go-metrics v0.0.0-20201227073835-cf1acfcdf475
	github.com/blevesearch/go-porterstemmer v1.0.3
	github.com/blevesearch/goleveldb v1.0.1
	github.com/blevesearch/gtreap v0.1.1
	github.com/blevesearch/scorch_segment_api/v2 v2.4.10
	github.com/blevesearch/segment v0.9.1
	github.com/blevesearch/snowball v0.6.1
	github.com/blevesearch/snowballstem v0.9.0
	github.com/blevesearch/stempel v0.2.0
	github.com/blevesearch/upsidedown_store_api v1.0.2
	github.com/blevesearch/vellum v1.2.0
	github.com/blevesearch/zapx/v11 v11.4.3
	github.com/blevesearch/zapx/v12 v12.4.3
	github.com/blevesearch/zapx/v13 v13.4.3
	github.com/blevesearch/zapx/v14 v14.4.3
	github.com/blevesearch/zapx/v15 v15.4.3
	github.com/blevesearch/zapx/v16 v16.3.4
	github.com/blevesearch/zapx/v17 v17.2.3
	github.com/couchbase/moss v0.2.0
	github.com/spf13/cobra v1.10.2
	go.etcd.io/bbolt v1.4.0
	golang.org/x/text v0.37.0
	google.golang.org/protobuf v1.36.6
)

require (
	github.com/blevesearch/mmap-go v1.2.0 // indirect
	github.com/couchbase/ghistogram v0.1.0 // indirect
	github.com/golang/snappy v1.0.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/json-iterator/go v0.0.0-20171115153421-f7279a603ede // indirect
	github.com/mschoch/smat v0.2.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/net v0.55.0 // indirect
	golang.org/x/sys v0.45.0 // indirect
)
