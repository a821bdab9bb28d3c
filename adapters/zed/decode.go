package zed

import (
	"errors"
	"fmt"

	"github.com/cortexmem/cortex/transcript/rawjson"
	"github.com/cortexmem/cortex/transcript/sqlitedb"
	"github.com/cortexmem/cortex/transcript/zstd"
)

// maxThread bounds a decoded thread: a zstd frame says how much it
// decompresses to, and a damaged or hostile one may say gigabytes
// (transcript/zstd refuses a frame larger than this).
const maxThread = zstd.MaxSize

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
		var err error
		if b, err = zstd.Decode(b); err != nil {
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
