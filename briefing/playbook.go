package briefing

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// PlaybookFolder reads playbooks from <Dir>/playbooks/<project>.md (SPEC §2):
// notes a person keeps, which the index leaves out.
type PlaybookFolder struct {
	// Dir is cortex's folder in the vault.
	Dir string
	// Show turns the note's path relative to Dir into the path shown; nil
	// shows it as is.
	Show func(rel string) string
}

// maxPlaybook bounds the playbook read: a briefing shows a fraction of it.
const maxPlaybook = 256 << 10

// Playbook reads the project's playbook. The frontmatter, if any, is left
// out.
func (p PlaybookFolder) Playbook(project string) (Playbook, bool, error) {
	if project == "" || strings.ContainsAny(project, `/\`) || strings.HasPrefix(project, ".") {
		return Playbook{}, false, nil
	}
	rel := "playbooks/" + project + ".md"
	f, err := os.Open(filepath.Join(p.Dir, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return Playbook{}, false, nil
	}
	if err != nil {
		return Playbook{}, false, fmt.Errorf("playbook: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPlaybook))
	if err != nil {
		return Playbook{}, false, fmt.Errorf("playbook: %w", err)
	}
	text := stripFrontmatter(strings.ToValidUTF8(string(data), "\uFFFD"))
	shown := rel
	if p.Show != nil {
		shown = p.Show(rel)
	}
	return Playbook{Path: shown, Text: text}, true, nil
}

// stripFrontmatter drops a leading YAML frontmatter block.
func stripFrontmatter(s string) string {
	if !strings.HasPrefix(s, "---\n") && !strings.HasPrefix(s, "---\r\n") {
		return s
	}
	rest := s[strings.IndexByte(s, '\n')+1:]
	for off := 0; off < len(rest); {
		end := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if end >= 0 {
			line = rest[off : off+end]
		}
		if strings.TrimRight(line, "\r") == "---" {
			if end < 0 {
				return ""
			}
			return rest[off+end+1:]
		}
		if end < 0 {
			break
		}
		off += end + 1
	}
	return s
}
