// Package setup writes, checks and removes cortex's entries in the
// configuration of the coding agents it works with (Claude Code, Codex,
// Gemini CLI, Cursor): the lifecycle hooks that run "cortex hook <client>
// <event>" and the MCP server entry that runs "cortex mcp".
//
// The files belong to the person and to the agents that also rewrite them,
// so setup edits them the way a careful person would: it reads JSON (with
// comments) and TOML keeping the place of every byte, splices its own entries
// in or out, and leaves everything else byte for byte as it was. Each edit has
// an exact inverse, so an uninstall gives back the file setup found. Nothing
// is written until Apply: Prepare works out a Plan (with a diff per file)
// that a command can show, and refuses a file it cannot read, naming the line.
package setup
