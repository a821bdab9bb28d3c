package main

import (
	"bufio"
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/view"
)

type listOptions struct {
	project, filter, typ, status string
	limit                        int
}

func newListCmd(a *app) *cobra.Command {
	var o listOptions
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the memories of a scope, newest first",
		Example: `  cortex list
  cortex list --project my-webapp --filter jwt
  cortex list --status superseded --json
  cortex list --limit 0 > inventory.txt`,
		Args: args(0, 0, "takes no arguments (use --filter to match titles)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runList(cmd.Context(), a, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.project, "project", "", "list this project only")
	f.StringVar(&o.filter, "filter", "", "keep titles that fuzzy-match this text, best match first")
	f.StringVar(&o.typ, "type", "", "list memories of this type only")
	f.StringVar(&o.status, "status", "", "active, open, done, superseded or all (default: all but superseded)")
	f.IntVar(&o.limit, "limit", memories.DefaultListLimit, "the most memories to show, newest (or best match) first; 0 shows them all")
	return cmd
}

func runList(ctx context.Context, a *app, o listOptions) (err error) {
	// A listing decodes every entry of the index catalog once, in a
	// process that ends right after: the catalog is mapped rather than
	// copied into memory (at 100,000 notes, 26 MB read page by page into
	// fresh memory), as a hook does. A fault reading the mapping (the file
	// truncated by hand meanwhile) is an error, not a crash.
	index.MapCatalogs()
	// Like a hook, a listing lives a moment: the collector waits until the
	// heap is large (shortLivedGC) rather than free what exit frees anyway.
	defer shortLivedGC(a.getenv)()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer catalogFault(&err)
	svc, err := a.open()
	if err != nil {
		return err
	}
	res, err := svc.List(ctx, memories.ListRequest{Project: o.project, Filter: o.filter, Type: o.typ, Status: o.status, Limit: o.limit})
	if err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(view.ListOf(res, a.store.Vault().Abs))
	}
	if res.Total == 0 {
		fmt.Fprintln(a.stdout, res.EmptyMessage())
		return nil
	}
	noun := "memories"
	if res.Total == 1 {
		noun = "memory"
	}
	// A line a write was a write system call per memory: 100,000 of them
	// for a vault of that size.
	w := bufio.NewWriterSize(a.stdout, 64<<10)
	fmt.Fprintf(w, "%d %s\nSources: %s\n", res.Total, noun, res.SourceSummary())
	for _, it := range res.Items {
		w.WriteString("- [")
		w.WriteString(it.ShortID)
		w.WriteString("] ")
		w.WriteString(it.Title)
		w.WriteString(" | project:")
		w.WriteString(it.Project)
		if it.Status != memories.StatusActive {
			w.WriteString(" | ")
			w.WriteString(string(it.Status))
		}
		w.WriteByte('\n')
	}
	if m := res.MoreMessage("--"); m != "" {
		w.WriteString(m)
		w.WriteByte('\n')
	}
	return w.Flush()
}

// catalogFault, deferred, makes a fault reading a mapped catalog (a panic
// under debug.SetPanicOnFault) the command's error; any other panic goes on.
func catalogFault(err *error) {
	r := recover()
	if r == nil {
		return
	}
	re, ok := r.(runtime.Error)
	if !ok || !strings.Contains(re.Error(), "fault") {
		panic(r)
	}
	*err = fmt.Errorf("the index catalog changed while it was read (%v): run the command again", re)
}
