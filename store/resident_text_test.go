package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// TestResidentLoadTextShares: a resident snapshot gives the text of a note
// it has parsed as Load gives it, without looking the note up twice or
// copying it (passage scoring reads twenty candidates' text a recall).
func TestResidentLoadTextShares(t *testing.T) {
	e := newOwedEnv(t)
	_, svc := e.open()
	ctx := context.Background()
	for i := range 5 {
		req := memories.SaveRequest{Title: fmt.Sprintf("Pool note %d", i), Content: fmt.Sprintf("The pool holds %d connections per worker, tags and all.", 10+i), Project: "web", Tags: []string{"db", "pool"}}
		if _, err := svc.Save(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	v, err := vault.New(e.root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	st, err := Open(Options{Vault: v, State: config.State{Home: e.home}, LockTimeout: 30 * time.Second, Resident: true})
	if err != nil {
		t.Fatal(err)
	}
	// The first read catches up with the index work the saves left owed;
	// the next is the resident's.
	if _, err := memories.NewService(st).Recall(ctx, memories.RecallRequest{Query: "pool"}); err != nil {
		t.Fatal(err)
	}
	err = st.View(ctx, func(snap memories.Snapshot) error {
		sn := snap.(*snapshot)
		if sn.resident == nil {
			t.Fatal("not a resident snapshot")
		}
		es, err := sn.Entries()
		if err != nil {
			return err
		}
		for _, en := range es {
			m, err := sn.Load(ctx, en.Path) // parsed and kept
			if err != nil {
				return err
			}
			title, body, err := sn.LoadText(ctx, en.Path)
			if err != nil {
				return err
			}
			if title != m.Title || body != m.Body {
				t.Errorf("%s: LoadText %q, %q; Load %q, %q", en.Path, title, body, m.Title, m.Body)
			}
			text := testing.AllocsPerRun(20, func() { _, _, _ = sn.LoadText(ctx, en.Path) })
			load := testing.AllocsPerRun(20, func() { _, _ = sn.Load(ctx, en.Path) })
			if text >= load {
				t.Errorf("%s: LoadText makes %.0f allocations, Load (a look-up and a copy) %.0f", en.Path, text, load)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
