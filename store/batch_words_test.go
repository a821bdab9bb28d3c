package store_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/memories"
)

// TestBatchRefusesADuplicateTheIndexRanksLow: a batch of saves (a small
// import's path) compares each memory with every stored memory of its
// project and general, as a single save does, not with the 20 an index
// search for its rarest words ranks first.
func TestBatchRefusesADuplicateTheIndexRanksLow(t *testing.T) {
	for _, resident := range []bool{false, true} {
		t.Run(fmt.Sprint("resident=", resident), func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, "vault")
			if _, err := bench.WriteVault(root, 300, 7, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)); err != nil {
				t.Fatal(err)
			}
			_, svc := openStore(t, root, filepath.Join(dir, "state"), resident)
			id, req := duplicateRankedLow(t, svc)
			other := memories.SaveRequest{Content: "The staging database is restored from last night's snapshot every Monday.", Project: "webapp"}
			items, err := svc.SaveBatch(context.Background(), []memories.SaveRequest{other, req})
			if err != nil {
				t.Fatal(err)
			}
			if items[0].Err != nil {
				t.Errorf("a new memory of the batch: %v", items[0].Err)
			}
			var rej *memories.RejectedError
			if !errors.As(items[1].Err, &rej) || rej.Existing == nil {
				t.Fatalf("saving the note again under another title in a batch: %v, want it refused as a duplicate of %s", items[1].Err, id)
			}
			if rej.Existing.ID != id {
				t.Errorf("refused as a duplicate of %s (%s), want %s", rej.Existing.ID, rej.Existing.Title, id)
			}
		})
	}
}
