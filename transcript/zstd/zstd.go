// Package zstd decodes and encodes zstd frames for the adapters of tools that
// store transcripts compressed (Zed keeps each agent thread as one zstd
// frame of JSON). It is the one place cortex imports a zstd library, so an
// adapter imports only the transcript packages (arch_test.go) and the
// library's limits are set once: a frame says how large it decodes to, and
// a damaged or hostile one may say gigabytes.
package zstd

import (
	"fmt"
	"sync"

	kzstd "github.com/klauspost/compress/zstd"
)

// MaxSize bounds what one Decode returns. A frame that decodes to more is
// refused, not truncated.
const MaxSize = 256 << 20

// maxWindow bounds the window a frame may ask for (zstd's own limit for a
// decoder that must not be made to allocate at will).
const maxWindow = 64 << 20

// decoder is built once: its DecodeAll is safe for concurrent use.
var decoder = sync.OnceValues(func() (*kzstd.Decoder, error) {
	return kzstd.NewReader(nil, kzstd.WithDecoderConcurrency(1),
		kzstd.WithDecoderMaxMemory(MaxSize), kzstd.WithDecoderMaxWindow(maxWindow))
})

// encoder is built once: its EncodeAll is safe for concurrent use.
var encoder = sync.OnceValues(func() (*kzstd.Encoder, error) {
	return kzstd.NewWriter(nil, kzstd.WithEncoderLevel(kzstd.SpeedDefault))
})

// Decode returns the bytes the zstd frames in src decode to. It fails on
// anything that is not whole zstd frames, and on frames that decode to more
// than MaxSize bytes or ask for a larger window.
func Decode(src []byte) ([]byte, error) {
	d, err := decoder()
	if err != nil {
		return nil, fmt.Errorf("zstd decoder: %w", err)
	}
	out, err := d.DecodeAll(src, nil)
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	return out, nil
}

// Encode compresses b into one zstd frame at the library's default level
// (what Zed writes; tests build such frames with it).
func Encode(b []byte) []byte {
	e, err := encoder()
	if err != nil {
		panic(fmt.Sprintf("zstd encoder with fixed options: %v", err))
	}
	return e.EncodeAll(b, nil)
}
