// Package view is the shape of cortex's answers: the JSON that a command
// prints with --json and the structured content an MCP tool returns. One set of
// types serves both transports, so a script and an agent read the same fields
// with the same values; a test in cmd/cortex holds the two outputs equal.
//
// The views are not domain results, so they are not in memories: they are
// presentation — absolute note paths, scores rounded for reading, the short id
// of the result a related memory hangs from, the one-line messages — and their
// jsonschema tags describe the fields to a model. They are not in mcp or
// cmd/cortex because both of those use them and neither may import the other.
// The package imports the services whose results it shows (memories,
// briefing, reflection) and nothing else of cortex; the transports import it.
//
// Every value keeps one JSON type, because the MCP output schemas made from
// these types publish single types (clients that map schemas to a one-type
// dialect reject "null" unions): lists are never nil and print as [], maps
// likewise, and optional parts are omitempty — absent when empty, never null.
// The constructors (RecallOf, ListOf, SaveOf, SupersedeOf, ImportOf) keep that
// promise; build views with them.
package view
