package memories

import (
	"context"
	"strings"
	"testing"
)

// TestMineRefusesBadNotes: a note without an id or a .md path, or an id
// given twice, fails the whole batch before anything is written.
func TestMineRefusesBadNotes(t *testing.T) {
	good := func(id string) *Memory {
		return &Memory{ID: id, Title: "t", Type: TypeEpisode, Project: "p", Source: SourceMined, Path: "episodes/p/" + id + ".md", Body: "b"}
	}
	noPath := good("01jd0000000000000000000002")
	noPath.Path = ""
	for _, tc := range []struct {
		name  string
		notes []*Memory
		want  string
	}{
		{"no id", []*Memory{{Path: "x.md"}}, "note 0: must have an id and a .md path"},
		{"no path", []*Memory{good("01jd0000000000000000000001"), noPath}, "note 1: must have an id and a .md path"},
		{"id twice", []*Memory{good("01jd0000000000000000000001"), good("01jd0000000000000000000001")}, "note 1: id 01jd0000000000000000000001 is given twice"},
		{"nil", []*Memory{nil}, "note 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			s, _ := newTestService(f)
			var req MineRequest
			for _, m := range tc.notes {
				req.Notes = append(req.Notes, MinedNote{Memory: m})
			}
			_, err := s.Mine(context.Background(), req)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one containing %q", err, tc.want)
			}
			if f.wrote() {
				t.Error("a refused batch wrote something")
			}
		})
	}
}
