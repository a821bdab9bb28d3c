package gemini

import (
	"hash/crc64"
	"sync"

	"github.com/cortexmem/cortex/transcript/rawjson"
)

// parts returns the parts of a Gemini PartListUnion: a string (one text
// part), one Part object, or an array of strings and Part objects. Each part
// is returned as its JSON bytes.
func parts(raw []byte) [][]byte {
	switch {
	case rawjson.IsArray(raw):
		return rawjson.AsArray(raw)
	case rawjson.IsString(raw), rawjson.IsObject(raw):
		return [][]byte{raw}
	}
	return nil
}

// partKind names what a part holds: "text", "thought" (a text part marked
// thought), "functionCall", "functionResponse", another key of the Part
// (inlineData, fileData, executableCode, …), "unknown" for an object with
// none of those, or "" for a value that is not an object.
func partKind(p rawjson.Object) string {
	if p == nil {
		return ""
	}
	if _, ok := rawjson.String(p.Get("text")); ok {
		if rawjson.Bool(p.Get("thought")) {
			return "thought"
		}
		return "text"
	}
	for _, k := range []string{"functionCall", "functionResponse"} {
		if p.Has(k) {
			return k
		}
	}
	for _, m := range p {
		switch k := m.KeyString(); k {
		case "thought", "thoughtSignature", "videoMetadata", "partMetadata":
		default:
			return k
		}
	}
	return "unknown"
}

// hasher hashes the pieces of what an event carries, to tell whether a
// rewritten message changed it. CRC-64 is enough: the hashes only compare
// versions of one message or call, and they must be the same in every
// process (so no seeded hash).
type hasher struct{ sum uint64 }

// crcTable is built on first use: building it cost every command, hooks
// included, a tenth of a millisecond at start-up.
var crcTable = sync.OnceValue(func() *crc64.Table { return crc64.MakeTable(crc64.ECMA) })

func (h *hasher) bytes(b []byte) *hasher {
	h.sum = crc64.Update(h.sum, crcTable(), b)
	h.sum = crc64.Update(h.sum, crcTable(), []byte{0})
	return h
}

func (h *hasher) string(s string) *hasher {
	h.sum = crc64.Update(h.sum, crcTable(), []byte(s))
	h.sum = crc64.Update(h.sum, crcTable(), []byte{0})
	return h
}

// set returns the hash, never 0 (which stands for "none yet" in the state).
func (h *hasher) set() uint64 { return h.sum | 1 }

func hashOf(b []byte) uint64 { return crc64.Checksum(b, crcTable()) | 1 }
