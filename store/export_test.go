package store

// CatalogLoads is how many catalogs the store has loaded from disk.
func (s *Store) CatalogLoads() int64 { return s.catalogLoads.Load() }
