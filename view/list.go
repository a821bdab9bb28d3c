package view

import "github.com/cortexmem/cortex/memories"

// List is a scope's inventory.
type List struct {
	Project  string         `json:"project,omitempty"`
	Total    int            `json:"total"`
	Sources  map[string]int `json:"sources" jsonschema:"how many memories came from each source: user, import, mined, capture, hook, mcp"`
	Memories []Memory       `json:"memories" jsonschema:"newest first, or best match first with a filter; no more than the limit"`
	More     int            `json:"more,omitempty" jsonschema:"how many memories of the total the limit left out"`
}

// ListOf is the view of a listing.
func ListOf(res *memories.ListResult, abs Abs) List {
	out := List{Project: res.Project, Total: res.Total, More: res.More(), Sources: make(map[string]int, len(res.Sources)), Memories: []Memory{}}
	for src, n := range res.Sources {
		out.Sources[string(src)] = n
	}
	for _, it := range res.Items {
		out.Memories = append(out.Memories, EntryOf(it.Entry, it.ShortID, abs))
	}
	return out
}
