package store

import "github.com/cortexmem/cortex/memories"

var _ memories.EntrySearcher = (*snapshot)(nil)

// SearchEntriesWhere answers searches without text over the entries keep
// accepts from the catalog, decoding only the entries listed
// (memories.EntrySearcher; see index.Catalog.SearchEntriesWhere).
func (sn *snapshot) SearchEntriesWhere(keep func(project, area, name string) bool, reqs []memories.SearchRequest) ([][]memories.Hit, error) {
	return sn.cat.SearchEntriesWhere(keep, reqs)
}
