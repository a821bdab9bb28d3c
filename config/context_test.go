package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestContextAndWatchSettings reads the context and watch sections, and
// refuses values out of range naming the key.
func TestContextAndWatchSettings(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		ctx     Context
		watch   Watch
		wantErr string
	}{
		{"defaults", "", Context{SynthesizeTimeout: DefaultSynthesizeTimeout},
			Watch{Debounce: DefaultWatchDebounce, Poll: DefaultWatchPoll, Transcripts: true}, ""},
		{"set", "context:\n  synthesize_command: [my-llm, --short]\n  synthesize_timeout: 5s\nwatch:\n  debounce: 50ms\n  poll: 1s\n  transcripts: false\n",
			Context{SynthesizeCommand: []string{"my-llm", "--short"}, SynthesizeTimeout: 5 * time.Second},
			Watch{Debounce: 50 * time.Millisecond, Poll: time.Second}, ""},
		{"empty argument", "context:\n  synthesize_command: [a, '']\n", Context{}, Watch{}, "context.synthesize_command"},
		{"timeout too long", "context:\n  synthesize_timeout: 2h\n", Context{}, Watch{}, "context.synthesize_timeout"},
		{"debounce not a duration", "watch:\n  debounce: soon\n", Context{}, Watch{}, "watch.debounce"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			cfg := filepath.Join(home, "config.yaml")
			if err := os.WriteFile(cfg, []byte(tt.file), 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Resolve(Flags{Home: home, Config: cfg, Vault: home}, func(string) string { return "" }, home)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.ctx, s.Context); diff != "" {
				t.Errorf("context (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.watch, s.Watch); diff != "" {
				t.Errorf("watch (-want +got):\n%s", diff)
			}
		})
	}
}
