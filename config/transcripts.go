package config

import "path/filepath"

// TranscriptsDir is the state folder's folder for agents' transcripts: the
// transcript index and scribe's per-file read offsets. It is per machine,
// never in a vault.
func TranscriptsDir(home string) string { return filepath.Join(home, "transcripts") }

// TranscriptIndexDir is where the transcript index (cortex transcripts
// search) lives: its generations, manifest and locks.
func TranscriptIndexDir(home string) string { return filepath.Join(TranscriptsDir(home), "index") }
