// Package index is the memory index: a Bleve full-text index and a catalog of
// every note's metadata, both caches rebuilt from the vault at will. It is the only
// package that imports Bleve.
//
// An index lives in generations in a folder the caller names (a vault's index
// folder in the state folder; see config.State): <dir>/<generation>/ holds the
// Bleve folder and the catalog, and <dir>/CURRENT names the live one. A full
// rebuild writes a new generation beside the live one and swaps CURRENT, so
// readers never see a half-built index.
package index
