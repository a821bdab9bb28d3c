package memories

import "testing"

// NewFake is the services' in-memory fake backend, for the conformance suite
// (package memoriestest) the store passes too.
func NewFake(t *testing.T) Backend { return newFake(t) }
