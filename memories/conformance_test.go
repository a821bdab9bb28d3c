package memories_test

import (
	"testing"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/memories/memoriestest"
)

// TestFakeConformance: the fake the services' tests run on does what the
// store does, as far as the Backend contract says.
func TestFakeConformance(t *testing.T) {
	memoriestest.RunBackendSuite(t, memories.NewFake)
}
