package atomicfile

import (
	"io"
	"math"
)

// ReadSized reads r to its end into a buffer made at size bytes, plus one
// to see the end without growing it: one allocation for a file whose size
// is known, where io.ReadAll grows its buffer from 512 bytes, copying and
// clearing it each time. A file that grew since its size was taken is read
// to its end all the same, but when limit is above 0 never past limit+1
// bytes, so that the caller can tell a file over its limit without reading
// all of it.
func ReadSized(r io.Reader, size, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = math.MaxInt64 - 1
	}
	data := make([]byte, 0, min(max(size, 0), limit)+1)
	for int64(len(data)) <= limit {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):min(int64(cap(data)), limit+1)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return data, nil
}
