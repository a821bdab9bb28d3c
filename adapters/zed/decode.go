package zed

import (
	"errors"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/cortexmem/cortex/transcript/rawjson"
	"github.com/cortexmem/cortex/transcript/sqlitedb"
)

// maxThread bounds a decoded thread: a zstd frame says how much it
// decompresses to, and a damaged or hostile one may say gigabytes.
const maxThread = 256 << 20

// decoder is the one zstd decoder, built once (its DecodeAll is safe for
// concurrent use), with the output and window bounded.
var decoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxThread),
		zstd.WithDecoderMaxWindow(64<<20))
})

// Why a thread's data cannot be read.
var (
	errDataType = errors.New("a data_type Zed does not write")
	errDecode   = errors.New("the data cannot be decoded")
)

// decodeThread returns the thread JSON of a row's data_type and data values
// (as a row line holds them): zstd decompressed, json as it is. The result
// is valid JSON or an error.
func decodeThread(dataType string, data []byte) ([]byte, error) {
	b, ok := sqlitedb.Bytes(data)
	if !ok {
		return nil, fmt.Errorf("%w: not bytes", errDecode)
	}
	switch dataType {
	case "zstd":
		d, err := decoder()
		if err != nil {
			return nil, err
		}
		if b, err = d.DecodeAll(b, nil); err != nil {
			return nil, fmt.Errorf("%w: %w", errDecode, err)
		}
	case "json":
	default:
		return nil, fmt.Errorf("%w: %q", errDataType, dataType)
	}
	if !rawjson.Valid(b) {
		return nil, fmt.Errorf("%w: not JSON", errDecode)
	}
	return b, nil
}
