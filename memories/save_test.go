package memories

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSaveDefaults(t *testing.T) {
	f := newFake(t)
	svc, ids := newTestService(f)

	got, err := svc.Save(context.Background(), SaveRequest{Content: "Use tabs for indentation in Go files"})
	if err != nil {
		t.Fatal(err)
	}

	const id = "01jq0000000000000000000001"
	path := "memories/general/" + id + ".md"
	want := &SaveResult{ID: id, ShortID: id[:MinPrefix], Title: "Use tabs for indentation in Go files", Project: "general", Path: path}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("result (-got +want):\n%s", diff)
	}
	if got, want := got.Message(), "Memory saved: 01jq0000 'Use tabs for indentation in Go files'"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}

	// Dates are stored to the second; the id is minted from the exact time.
	sec := time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)
	wantMem := []*Memory{{
		ID: id, Title: "Use tabs for indentation in Go files", Type: TypeNote, Project: "general",
		Source: SourceUser, Status: StatusActive, Importance: 3, Created: sec, Updated: sec,
		Body: "Use tabs for indentation in Go files", Path: path,
	}}
	if diff := cmp.Diff(f.creates, wantMem); diff != "" {
		t.Errorf("created (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(ids.times, []time.Time{testNow}); diff != "" {
		t.Errorf("id generator's times (-got +want):\n%s", diff)
	}
	wantEv := []Event{{Time: sec, Op: OpSave, ID: id, Path: path, Title: "Use tabs for indentation in Go files"}}
	if diff := cmp.Diff(f.events, wantEv); diff != "" {
		t.Errorf("events (-got +want):\n%s", diff)
	}
	if f.updates != 1 || len(f.patches) != 0 {
		t.Errorf("got %d updates and %d patches, want 1 and 0", f.updates, len(f.patches))
	}
}

func TestSaveFields(t *testing.T) {
	sec := time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)
	const id = "01jq0000000000000000000001"
	tests := []struct {
		name string
		req  SaveRequest
		want Memory // ID, Created, Updated and Path are filled in
	}{
		{
			name: "everything given",
			req: SaveRequest{
				Content: "We chose Postgres over MySQL for JSONB support", Title: "  Postgres over MySQL ",
				Tags: []string{"#DB", "storage, sql"}, Project: "Web App", Area: "Back End", Type: "Decision",
				Importance: 5, Source: SourceMined,
				Provenance: Provenance{SourceSession: "s1", SourceTool: "claude-code", EventIDs: []string{"e1", "e2"}},
			},
			want: Memory{
				Title: "Postgres over MySQL", Type: TypeDecision, Project: "web-app", Area: "back-end",
				Tags: []string{"db", "storage", "sql"}, Source: SourceMined, Status: StatusActive, Importance: 5,
				Provenance: Provenance{SourceSession: "s1", SourceTool: "claude-code", EventIDs: []string{"e1", "e2"}},
				Body:       "We chose Postgres over MySQL for JSONB support",
			},
		},
		{
			name: "action items are open",
			req:  SaveRequest{Content: "Rotate the staging API keys before Friday", Type: "action"},
			want: Memory{
				Title: "Rotate the staging API keys before Friday", Type: TypeAction, Project: "general",
				Source: SourceUser, Status: StatusOpen, Importance: 3, Body: "Rotate the staging API keys before Friday",
			},
		},
		{
			name: "title from a heading",
			req:  SaveRequest{Content: "## Release checklist\n\n1. tag\n2. push", Project: "cortex"},
			want: Memory{
				Title: "Release checklist", Type: TypeNote, Project: "cortex", Source: SourceUser,
				Status: StatusActive, Importance: 3, Body: "## Release checklist\n\n1. tag\n2. push",
			},
		},
		{
			name: "blank lines around and CRLF dropped",
			req:  SaveRequest{Content: "\r\n \r\n\t\r\nFirst line\r\n\r\n  second line  \r\nlast\t \r\n\r\n   "},
			want: Memory{
				Title: "First line", Type: TypeNote, Project: "general", Source: SourceUser,
				Status: StatusActive, Importance: 3, Body: "First line\n\n  second line  \nlast",
			},
		},
		{
			// The first line's indentation is content: a code block stays one.
			name: "indentation of the first line kept",
			req:  SaveRequest{Content: "\n\n    go test ./...\n    go vet ./...\n"},
			want: Memory{
				Title: "go test ./...", Type: TypeNote, Project: "general", Source: SourceUser,
				Status: StatusActive, Importance: 3, Body: "    go test ./...\n    go vet ./...",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			svc, _ := newTestService(f)
			res, err := svc.Save(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			want.ID, want.Created, want.Updated = id, sec, sec
			want.Path = "memories/" + want.Project + "/" + id + ".md"
			if diff := cmp.Diff(f.creates, []*Memory{&want}); diff != "" {
				t.Errorf("created (-got +want):\n%s", diff)
			}
			if res.Title != want.Title || res.Project != want.Project || res.Path != want.Path {
				t.Errorf("result %+v does not describe the memory saved", res)
			}
		})
	}
}

func TestSaveShortIDAmongOthers(t *testing.T) {
	// An existing memory shares the first 12 characters of the new id.
	f := newFake(t, &Memory{ID: "01jq00000000xxxxxxxxxxxxxx", Title: "old", Project: "general", Status: StatusActive})
	svc, _ := newTestService(f)
	res, err := svc.Save(context.Background(), SaveRequest{Content: "A memory with a crowded id prefix"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.ShortID, "01jq000000000"; got != want {
		t.Errorf("short id %q, want %q", got, want)
	}
}

func TestSaveInvalidWritesNothing(t *testing.T) {
	const ok = "A perfectly fine memory to save"
	tests := []struct {
		name string
		req  SaveRequest
		arg  string
		msg  string
	}{
		{"no content", SaveRequest{}, "content", "must not be empty"},
		{"blank lines only", SaveRequest{Content: "\r\n\n  \n"}, "content", "must not be empty"},
		{"too little content", SaveRequest{Content: "too short"}, "content", "has 8 letters or digits"},
		{"content too long", SaveRequest{Content: strings.Repeat("word ", MaxContentChars/5+1)}, "content", "the maximum is"},
		{"NUL in content", SaveRequest{Content: ok + "\x00"}, "content", "NUL"},
		{"title on two lines", SaveRequest{Content: ok, Title: "one\ntwo"}, "title", "one line"},
		{"title too long", SaveRequest{Content: ok, Title: strings.Repeat("t", MaxTitleChars+1)}, "title", "the maximum is"},
		{"bad tag", SaveRequest{Content: ok, Tags: []string{"fine", "c++"}}, "tags", `"c++"`},
		{"too many tags", SaveRequest{Content: ok, Tags: strings.Split("a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t,u", ",")}, "tags", "21 tags"},
		{"project escaping the vault", SaveRequest{Content: ok, Project: "../etc"}, "project", "may hold only"},
		{"hidden area", SaveRequest{Content: ok, Area: ".obsidian"}, "area", "must start with"},
		{"unknown type", SaveRequest{Content: ok, Type: "idea"}, "type", "is not a type"},
		{"importance too high", SaveRequest{Content: ok, Importance: 6}, "importance", "from 1 to 5"},
		{"importance negative", SaveRequest{Content: ok, Importance: -2}, "importance", "from 1 to 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			svc, ids := newTestService(f)
			res, err := svc.Save(context.Background(), tt.req)
			checkArgError(t, err, tt.arg, tt.msg)
			if res != nil {
				t.Errorf("got result %+v with the error", res)
			}
			if f.updates != 0 || f.wrote() || len(f.mems) != 0 {
				t.Errorf("an invalid save reached the store: %d updates, %d creates, %d events",
					f.updates, len(f.creates), len(f.events))
			}
			if len(ids.times) != 0 {
				t.Errorf("an invalid save minted %d ids", len(ids.times))
			}
		})
	}
}

func TestSaveCreateFails(t *testing.T) {
	boom := errors.New("disk full")
	f := newFake(t)
	f.createErr = boom
	svc, _ := newTestService(f)
	res, err := svc.Save(context.Background(), SaveRequest{Content: "Use tabs for indentation in Go files"})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the backend's error", err)
	}
	if res != nil || len(f.events) != 0 {
		t.Errorf("got result %+v and %d events after a failed create", res, len(f.events))
	}
}
