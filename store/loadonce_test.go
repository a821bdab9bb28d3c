package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// A recall reads the text of its best candidates to score their passages,
// then shows the best of them: each note is read from the vault once, and
// what is shown is what vault.Load gives, for notes in cortex's own shape and
// for one written by hand that the YAML decoder reads.
func TestRecallReadsEachNoteOnce(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "vault")
	_, svc := openStore(t, root, filepath.Join(dir, "state"), false)
	ctx := context.Background()
	const notes = 12
	for i := range notes - 1 {
		_, err := svc.Save(ctx, memories.SaveRequest{Project: "ops", Tags: []string{"kafka"},
			Content: fmt.Sprintf("Kafka consumer lag on partition %d: %s.", i, []string{"raise the fetch size", "add a consumer", "check the rebalance storm", "watch the broker disk"}[i%4])})
		if err != nil {
			t.Fatal(err)
		}
	}
	hand := filepath.Join(root, "cortex", "memories", "ops", "kafka-by-hand.md")
	if err := os.WriteFile(hand, []byte("---\ntitle: \"Kafka: retention by hand\"\ntags: [kafka, ops]\nimportance: 4\nnote_by: 'someone'\n---\nKafka retention is seven days on the ops cluster.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, svc := openStore(t, root, filepath.Join(dir, "state"), false)
	if _, err := svc.Recall(ctx, memories.RecallRequest{Query: "kafka", NoAccess: true}); err != nil {
		t.Fatal(err) // the first indexes the note written by hand
	}
	before := st.NoteReads()
	res, err := svc.Recall(ctx, memories.RecallRequest{Query: "kafka", Limit: 10, NoAccess: true})
	if err != nil {
		t.Fatal(err)
	}
	// Every note matches: the passages of all twelve are scored, ten shown,
	// and the notes they link to as related (also among the twelve) added.
	if got := st.NoteReads() - before; got != notes {
		t.Errorf("a recall of %d notes read %d times from the vault, want %d", notes, got, notes)
	}
	if len(res.Results) < 10 {
		t.Fatalf("%d results, want at least 10", len(res.Results))
	}
	v, err := vault.New(root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	byHand := false
	for _, r := range res.Results {
		want, err := v.Load(r.Memory.Path)
		if err != nil {
			t.Fatal(err)
		}
		byHand = byHand || r.Memory.Path == "memories/ops/kafka-by-hand.md"
		if diff := cmp.Diff(want, r.Memory); diff != "" {
			t.Errorf("%s (-vault.Load +recall):\n%s", r.Memory.Path, diff)
		}
	}
	if !byHand {
		t.Errorf("the note written by hand is not among the results")
	}
}
