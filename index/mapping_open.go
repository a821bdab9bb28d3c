package index

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/util"
)

// Opening a Bleve index decodes the mapping stored in it from JSON: about
// 0.4 ms, a tenth of a one-shot recall after start-up, for a mapping this
// package made itself. Bleve decodes through util.UnmarshalJSON, which is
// there to be replaced at initialisation; cortex's replacement recognises
// the stored bytes of the memory index's mapping (newMapping as createBleve
// stores it) by their SHA-256 and gives the process's one such mapping
// (sharedMapping, which the analysis of query text builds anyway) rather
// than decode it. Any other JSON — another mapping (an index written by a
// cortex whose mapping differed), the transcript index's, Bleve's own
// metadata — is decoded as before. TestMemoryMappingDigest keeps the
// digest in step with newMapping.
const memoryMappingDigest = "d7f479763f38d44922fb820a0eb22d0a590c72fb5d1d6091e3ad65d72eff405b"

// mappingsBuilt counts the mappings given instead of decoded (for tests).
var mappingsBuilt atomic.Int64

func init() { util.UnmarshalJSON = unmarshalJSON }

func unmarshalJSON(data []byte, v any) error {
	if p, ok := v.(**mapping.IndexMappingImpl); ok && isMemoryMapping(data) {
		// The process's one mapping (sharedMapping), which the analysis
		// of query text (Terms) uses too: a mapping is only read once
		// made, and its analyzers' cache takes a lock.
		m, err := sharedMapping()
		if err == nil {
			if im, ok := m.(*mapping.IndexMappingImpl); ok {
				*p = im
				mappingsBuilt.Add(1)
				return nil
			}
		}
	}
	return json.Unmarshal(data, v)
}

// isMemoryMapping says whether data is the memory index's mapping as
// createBleve stores it.
func isMemoryMapping(data []byte) bool {
	want, err := hex.DecodeString(memoryMappingDigest)
	if err != nil {
		return false
	}
	sum := sha256.Sum256(data)
	return bytes.Equal(sum[:], want)
}
