package transcript

import (
	"strings"
)

// SourceKind names the agent tool that wrote a transcript. Its value is the
// tool's stable slug, used in events, in note folders and on the command line.
type SourceKind string

// The tools of SPEC §7, in priority order. Every one has a slug even when no
// adapter reads it yet, so events, configuration and notes can name it.
const (
	ClaudeCode        SourceKind = "claude-code"
	Codex             SourceKind = "codex"
	GeminiCLI         SourceKind = "gemini-cli"
	CopilotCLI        SourceKind = "copilot-cli"
	Cursor            SourceKind = "cursor"
	OpenCode          SourceKind = "opencode"
	Aider             SourceKind = "aider"
	Amp               SourceKind = "amp"
	Cline             SourceKind = "cline"
	RooCode           SourceKind = "roo-code"
	KiloCode          SourceKind = "kilo-code"
	Windsurf          SourceKind = "windsurf"
	VSCodeCopilotChat SourceKind = "vscode-copilot-chat"
	Zed               SourceKind = "zed"
	Continue          SourceKind = "continue"
	FactoryDroid      SourceKind = "factory-droid"
	OTLP              SourceKind = "otlp"

	// UnknownSource is what ParseSource returns for a name it does not know.
	UnknownSource SourceKind = "unknown"
)

// sources lists every known tool in priority order with its display name and
// the aliases ParseSource accepts besides the slug (already normalised: lower
// case, words joined by "-").
var sources = []struct {
	kind    SourceKind
	name    string
	aliases []string
}{
	{ClaudeCode, "Claude Code", []string{"claude", "claudecode", "cc", "claude-cli", "anthropic-claude-code"}},
	{Codex, "Codex", []string{"codex-cli", "openai-codex", "codex-rs"}},
	{GeminiCLI, "Gemini CLI", []string{"gemini", "geminicli", "google-gemini-cli"}},
	{CopilotCLI, "GitHub Copilot CLI", []string{"copilot", "copilotcli", "github-copilot-cli", "gh-copilot"}},
	{Cursor, "Cursor", []string{"cursor-agent", "cursor-cli", "cursor-ide"}},
	{OpenCode, "OpenCode", []string{"open-code", "sst-opencode"}},
	{Aider, "Aider", []string{"aider-chat"}},
	{Amp, "Amp", []string{"ampcode", "amp-code", "sourcegraph-amp"}},
	{Cline, "Cline", []string{"claude-dev", "cline-cli"}},
	{RooCode, "Roo Code", []string{"roo", "roocode", "roo-cline"}},
	{KiloCode, "Kilo Code", []string{"kilo", "kilocode"}},
	{Windsurf, "Windsurf", []string{"cascade", "windsurf-cascade", "codeium"}},
	{VSCodeCopilotChat, "VS Code Copilot Chat", []string{"vscode-copilot", "copilot-chat", "vscode", "github-copilot-chat"}},
	{Zed, "Zed", []string{"zed-agent", "zed-editor"}},
	{Continue, "Continue", []string{"continue-dev", "continuedev", "continue-cli"}},
	{FactoryDroid, "Factory Droid", []string{"droid", "factory", "factory-ai"}},
	{OTLP, "OpenTelemetry logs (OTLP)", []string{"otel", "opentelemetry", "otlp-logs"}},
}

// Sources returns every known tool, in priority order.
func Sources() []SourceKind {
	out := make([]SourceKind, len(sources))
	for i, s := range sources {
		out[i] = s.kind
	}
	return out
}

// ParseSource maps a tool name as a person types it — the slug or an alias, in
// any case, with "_", "." or spaces for "-" (claude, claude-code, claude_code,
// "Claude Code") — to its SourceKind. It returns UnknownSource and false for a
// name it does not know.
func ParseSource(name string) (SourceKind, bool) {
	n := normalizeSlug(name)
	if n == "" {
		return UnknownSource, false
	}
	for _, s := range sources {
		if string(s.kind) == n {
			return s.kind, true
		}
		for _, a := range s.aliases {
			if a == n {
				return s.kind, true
			}
		}
	}
	return UnknownSource, false
}

// Name is the tool's display name ("Claude Code").
func (k SourceKind) Name() string {
	for _, s := range sources {
		if s.kind == k {
			return s.name
		}
	}
	return string(k)
}

// Aliases are the names besides the slug that ParseSource accepts for k.
func (k SourceKind) Aliases() []string {
	for _, s := range sources {
		if s.kind == k {
			return append([]string(nil), s.aliases...)
		}
	}
	return nil
}

// Known reports whether k is one of the tools of Sources.
func (k SourceKind) Known() bool {
	for _, s := range sources {
		if s.kind == k {
			return true
		}
	}
	return false
}

func normalizeSlug(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	var b strings.Builder
	dash := false
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
	}
	return b.String()
}
