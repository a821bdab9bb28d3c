package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortexmem/cortex/importer"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/view"
)

// ImportInput is memory_import's arguments.
type ImportInput struct {
	SourcePath string `json:"source_path" jsonschema:"the file or folder to import: a notes folder or Obsidian vault, a CLAUDE.md or AGENTS.md, Claude Code's memory folder, an MCP memory.jsonl, JSON, text, or a Claude.ai or ChatGPT conversations.json. It must be inside the user's home folder (or a root the user allowed), and not hidden (agents' instruction files such as ~/.claude/CLAUDE.md excepted) nor a credential store, shell history or key file"`
	Project    string `json:"project,omitempty" jsonschema:"put every imported memory in this project (default: the project the source names, else general)"`
	ScopeID    string `json:"scope_id,omitempty" jsonschema:"another name for project"`
	DryRun     bool   `json:"dry_run,omitempty" jsonschema:"true to check everything and write nothing: see what would be imported"`
}

const importDescription = `Import memories in bulk from files the user already has: a folder of markdown notes or an Obsidian vault (split at headings, each section a memory), CLAUDE.md / AGENTS.md (each section a convention of that project), Claude Code's auto memory, the MCP memory server's memory.jsonl, JSON, plain text, or Claude.ai / ChatGPT conversations.json exports.

Use it to seed cortex from what exists (on the user's request), not to save one new fact (memory_save).

Behaviour: writes one note per memory. Every item passes the checks of memory_save: unsafe text is refused, duplicates of stored memories or of earlier items are skipped, related memories are linked. Importing the same source again adds nothing. Binary files, attachments, oversized files and notes whose frontmatter does not parse are skipped with a reason. The path must resolve inside the user's home folder or an allowed root. Hidden files and folders (but agents' instructions: .claude/CLAUDE.md and the auto memory, .codex/AGENTS.md, .gemini/GEMINI.md, .cursor/rules, .github copilot instructions), credential stores (.ssh, .aws, .docker, .kube, .config/gh, .netrc, .npmrc, .pypirc, .env…), shell histories, keychains, browser profiles and key files are refused, symlinks resolved, and skipped inside a folder: only the user can import them, from a shell or by listing them in import.agent_allow. Can take seconds for thousands of notes. Returns "Imported N memories from M candidates (rejected K duplicates, U unsafe, S skipped)" and every rejection and skip with its reason. Local.`

func importTool(srv *mcp.Server, s *server) {
	addTool(srv, s, &mcp.Tool{
		Name: "memory_import", Description: importDescription, InputSchema: inputSchema[ImportInput](),
		Annotations: mutation("Import memories", false, true),
	}, s.importPath)
}

// shown is how many rejections and skips the text lists.
const shown = 20

func (s *server) importPath(ctx context.Context, in ImportInput) (view.Import, string, error) {
	p, err := project(in.Project, in.ScopeID)
	if err != nil {
		return view.Import{}, "", err
	}
	// An agent asked: the import is held to the agent rules (hidden paths and
	// secret stores refused), which a person at a shell is not.
	res, err := s.svc.Import(importer.ForAgent(ctx), memories.ImportRequest{Path: in.SourcePath, Project: p, DryRun: in.DryRun, Client: clientFrom(ctx)})
	if err != nil {
		return view.Import{}, "", err
	}
	out := view.ImportOf(res, s.abs)
	var b strings.Builder
	b.WriteString(out.Message + "\n")
	list := func(head string, lines []string) {
		if len(lines) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s:\n", head)
		for _, l := range lines[:min(len(lines), shown)] {
			fmt.Fprintf(&b, "- %s\n", l)
		}
		if len(lines) > shown {
			fmt.Fprintf(&b, "- … and %d more (in the structured result)\n", len(lines)-shown)
		}
	}
	var rej, skip []string
	for _, r := range out.Rejected {
		rej = append(rej, r.Source+": "+r.Reason)
	}
	for _, k := range out.Skips {
		skip = append(skip, k.Source+": "+k.Reason)
	}
	list("Rejected", rej)
	list("Skipped", skip)
	return out, b.String(), nil
}
