package scribe_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcript"
)

// TestVerify: every file is verified in order and handed to fn; a file
// that cannot be read is skipped and counted as failed — unless Strict and
// the failure is not the file's being invalid, when Verify stops.
func TestVerify(t *testing.T) {
	dir := t.TempDir()
	notes := place(t, "../fixtures/claude-code/README.md", dir, "notes.txt")
	missing := filepath.Join(dir, "missing.jsonl")
	// A name the system refuses to open: an error that is not the
	// person's file being wrong.
	unopenable := filepath.Join(dir, "bad\x00name.jsonl")
	codex := mustFor(t, transcript.Codex)

	type seen struct {
		Path, Source string
		OK           bool
		Err          string
	}
	tests := []struct {
		name     string
		files    []scribe.File
		opt      scribe.VerifyOptions
		want     []seen
		ok, fail int
		wantErr  string
	}{
		{"detected", []scribe.File{{Path: claudeFixture}, {Path: codexFixture}}, scribe.VerifyOptions{},
			[]seen{{claudeFixture, "claude-code", true, ""}, {codexFixture, "codex", true, ""}}, 2, 0, ""},
		{"adapter given", []scribe.File{{Path: codexFixture, Adapter: codex}}, scribe.VerifyOptions{ResumePoints: 0},
			[]seen{{codexFixture, "codex", true, ""}}, 1, 0, ""},
		{"as over the adapter", []scribe.File{{Path: claudeFixture, Adapter: codex}}, scribe.VerifyOptions{As: "claude"},
			[]seen{{claudeFixture, "claude-code", true, ""}}, 1, 0, ""},
		{"invalid skipped", []scribe.File{{Path: claudeFixture}, {Path: notes}, {Path: missing}}, scribe.VerifyOptions{Strict: true},
			[]seen{{claudeFixture, "claude-code", true, ""}, {notes, "", false, "cannot tell which tool wrote it"}, {missing, "", false, "no such file"}}, 1, 2, ""},
		{"unknown tool skipped", []scribe.File{{Path: codexFixture, Adapter: codex}}, scribe.VerifyOptions{As: "vim"},
			[]seen{{codexFixture, "", false, `--as: unknown tool "vim"`}}, 0, 1, ""},
		{"unreadable skipped", []scribe.File{{Path: unopenable}, {Path: claudeFixture}}, scribe.VerifyOptions{},
			[]seen{{unopenable, "", false, "invalid argument"}, {claudeFixture, "claude-code", true, ""}}, 1, 1, ""},
		{"unreadable stops when strict", []scribe.File{{Path: claudeFixture}, {Path: unopenable}, {Path: codexFixture}}, scribe.VerifyOptions{Strict: true},
			[]seen{{claudeFixture, "claude-code", true, ""}}, 0, 0, "invalid argument"},
		{"resume points", []scribe.File{{Path: claudeFixture}}, scribe.VerifyOptions{ResumePoints: -1}, nil, 0, 0, "--resume-points: must be 0 or more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []seen
			res, err := scribe.Verify(context.Background(), tt.files, tt.opt, func(v scribe.Verified) error {
				s := seen{Path: v.Path, Source: string(v.Report.Source), OK: v.Err == nil && v.Report.OK()}
				if v.Err != nil {
					s.Err = v.Err.Error()
				}
				got = append(got, s)
				return nil
			})
			for i := range got {
				if i < len(tt.want) && tt.want[i].Err != "" && strings.Contains(got[i].Err, tt.want[i].Err) {
					got[i].Err = tt.want[i].Err
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("handed to fn (-want +got):\n%s", diff)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.OK != tt.ok || res.Failed != tt.fail || len(res.Transcripts)+len(res.Skipped) != len(tt.files) {
				t.Errorf("%d ok, %d failed, %d reports, %d skipped; want %d ok, %d failed of %d",
					res.OK, res.Failed, len(res.Transcripts), len(res.Skipped), tt.ok, tt.fail, len(tt.files))
			}
		})
	}
}

// TestVerifyAsOtherTool: As decides the adapter even against the content:
// a Claude Code transcript read as Codex's breaks nothing, every record is
// an unknown event, and the report says so.
func TestVerifyAsOtherTool(t *testing.T) {
	res, err := scribe.Verify(context.Background(), []scribe.File{{Path: claudeFixture}}, scribe.VerifyOptions{As: "codex"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Transcripts) != 1 || res.Transcripts[0].Kinds[transcript.KindUnknown] != res.Transcripts[0].Records {
		t.Fatalf("report %+v", res.Transcripts)
	}
}

// TestVerifyOptionsCheck: bad options are ErrInvalid before any file is read.
func TestVerifyOptionsCheck(t *testing.T) {
	if err := (scribe.VerifyOptions{ResumePoints: -1}).Check(); !errors.Is(err, memories.ErrInvalid) {
		t.Fatalf("err %v, want ErrInvalid", err)
	}
	if err := (scribe.VerifyOptions{}).Check(); err != nil {
		t.Fatal(err)
	}
}
