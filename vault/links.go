package vault

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/cortexmem/cortex/memories"
)

// Links cortex writes to its own notes — in the map of contents and in the
// supersede properties — name the note by its path from the vault's root
// without ".md" ("[[cortex/memories/infra/deploy-01m5y8hg|Deploy]]"): two
// notes may share a file name in different folders, and a bare name would
// send both links to one of them. Obsidian resolves such a link to exactly
// that file, and rewrites it when the note is renamed in Obsidian.

// linkFolder is cortex's folder relative to the vault root, with forward
// slashes ("cortex"; "." when cortex's folder is the vault).
func (v *Vault) linkFolder() string {
	rel, err := filepath.Rel(v.Root, v.Dir)
	if err != nil {
		return "."
	}
	return filepath.ToSlash(rel)
}

// LinkTarget is how a link names the note at rel (relative to cortex's
// folder): its path from the vault root, without ".md".
func (v *Vault) LinkTarget(rel string) string { return pathTarget(v.linkFolder(), rel) }

// NotePath is the inverse of LinkTarget: the note path (relative to cortex's
// folder) a link target names, and false when the target is not a path into
// cortex's folder.
func (v *Vault) NotePath(target string) (string, bool) { return notePath(v.linkFolder(), target) }

func pathTarget(folder, rel string) string {
	if ext := path.Ext(rel); strings.EqualFold(ext, ".md") {
		rel = rel[:len(rel)-len(ext)]
	}
	return path.Join(folder, rel)
}

func notePath(folder, target string) (string, bool) {
	rel := target
	if folder != "." && folder != "" {
		var ok bool
		if rel, ok = strings.CutPrefix(target, folder+"/"); !ok {
			return "", false
		}
	}
	if rel == "" || strings.HasPrefix(rel, "../") || path.Clean(rel) != rel {
		return "", false
	}
	return rel + ".md", true
}

// noteLink is an Obsidian link to the note at rel, shown as alias.
func noteLink(folder, rel, alias string) string {
	return "[[" + pathTarget(folder, rel) + "|" + LinkAlias(alias) + "]]"
}

// ParseLink reads a value that is one Obsidian link, "[[target]]",
// "[[target|alias]]" or "[[target#heading|alias]]": its target (heading
// kept) and alias; ok is false for anything else.
func ParseLink(s string) (target, alias string, ok bool) {
	s = strings.TrimSpace(s)
	inner, ok := strings.CutPrefix(s, "[[")
	if !ok {
		return "", "", false
	}
	inner, ok = strings.CutSuffix(inner, "]]")
	if !ok || strings.ContainsAny(inner, "[]\n") {
		return "", "", false
	}
	target, alias, _ = strings.Cut(inner, "|")
	return strings.TrimSpace(target), strings.TrimSpace(alias), true
}

// maxIDLen bounds an id read from a note, as Note.ID does.
const maxIDLen = 64

// supersedeLink is the value of a supersedes or superseded_by property: a
// link to the other note, aliased with its id — the id is the identity, so a
// link whose note was moved behind Obsidian's back still says which memory it
// meant and can be repaired.
func supersedeLink(folder, rel, id string) string {
	return "[[" + pathTarget(folder, rel) + "|" + id + "]]"
}

// supersedeID reads the id in a supersedes or superseded_by property: the
// alias of a link cortex wrote, or the bare id older notes have. A link
// without an id is "" (it names no memory cortex can tell).
func supersedeID(value string) string {
	if _, alias, ok := ParseLink(value); ok {
		id := memories.NormalizeID(alias)
		if memories.ValidIDChars(id) && len(id) <= maxIDLen {
			return id
		}
		return ""
	}
	return memories.NormalizeID(value)
}
