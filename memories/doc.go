// Package memories is the domain of cortex: the memory model, identifiers,
// validation and the services (save, recall, list, supersede) that the CLI and the
// MCP server both call.
//
// The package does no I/O of its own. It reaches the vault and the index through
// the small Backend interface it declares, and takes its clock and id generator as
// dependencies, so every service is a deterministic function of its inputs in
// tests. Besides the standard library it imports only dedup, security and two
// small libraries (ULIDs, fuzzy matching): never the store, the index, Bleve, the
// MCP server or the CLI (arch_test.go checks). Package memoriestest holds the
// conformance suite every Backend passes.
package memories
