package sqlitedb

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestChangingWhileCopied changes the database after every copy Open makes
// of it, as a tool writing all along would: Open copies again, then gives
// up with ErrBusy. Changed only after the first copy, it reads the second.
func TestChangingWhileCopied(t *testing.T) {
	path := filepath.Join(t.TempDir(), "busy.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		changes int
		wantErr error
	}{
		{"always", 100, ErrBusy},
		{"once", 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			copies, left := 0, tt.changes
			opt := Options{Attempts: 3, Wait: time.Millisecond, copied: func() {
				copies++
				if left > 0 {
					left--
					tm := time.Unix(1700000000+int64(copies), 0)
					if err := os.Chtimes(path, tm, tm); err != nil {
						t.Fatal(err)
					}
				}
			}}
			db, err := Open(context.Background(), path, opt)
			if !errors.Is(err, tt.wantErr) || tt.wantErr == nil && err != nil {
				t.Fatalf("Open: %v, want %v", err, tt.wantErr)
			}
			if err == nil {
				db.Close()
			}
			if want := min(tt.changes+1, 3); copies != want {
				t.Errorf("%d copies, want %d", copies, want)
			}
		})
	}
}
