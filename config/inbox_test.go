package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKeepProcessed reads inbox.keep_processed in days or Go durations, 0
// included, and refuses the rest naming the key.
func TestKeepProcessed(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  time.Duration
		bad   bool
	}{
		{"", DefaultKeepProcessed, false},
		{"0", 0, false},
		{"7d", 7 * 24 * time.Hour, false},
		{"1.5d", 36 * time.Hour, false},
		{"36h", 36 * time.Hour, false},
		{"90m", 90 * time.Minute, false},
		{"-1d", 0, true},
		{"-5m", 0, true},
		{"forever", 0, true},
		{"4000d", 0, true},
	} {
		t.Run(tt.value, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "config.yaml")
			content := ""
			if tt.value != "" {
				content = "inbox:\n  keep_processed: " + tt.value + "\n"
			}
			if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Resolve(Flags{Config: file, Home: dir}, func(string) string { return "" }, dir)
			if tt.bad {
				if err == nil || !strings.Contains(err.Error(), "inbox.keep_processed") {
					t.Fatalf("err %v, want one naming inbox.keep_processed", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.KeepProcessed != tt.want {
				t.Errorf("keep %s, want %s", s.KeepProcessed, tt.want)
			}
		})
	}
}
