package codex

import (
	"path"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// Codex changes files with apply_patch, whose argument is a patch in its own
// format ("V4A", read by transcript.ParsePatch). The model writes it in
// three shapes: a custom (freeform) tool call whose input is the patch; a
// function call named apply_patch whose JSON arguments hold it as "input"
// or "patch"; and a shell or exec_command call running
// apply_patch with the patch as a heredoc or an argument. What Codex did with
// it is in patch_apply_end (item_completed FileChange in paginated rollouts):
// per absolute path, {type: add, content} | {type: delete, content} |
// {type: update, unified_diff, move_path}.

// patchEdit turns one operation of a patch into a file edit with its hunks
// as the model wrote them, relative paths resolved against cwd; an update
// of one hunk also gives the text it replaces and its replacement.
func patchEdit(cwd string, op transcript.PatchOp) *transcript.FileEdit {
	op.Path, op.MovePath = resolve(cwd, op.Path), resolve(cwd, op.MovePath)
	fe := op.WrittenEdit()
	if (op.Op == transcript.OpUpdate || op.Op == transcript.OpMove) && len(op.Hunks) == 1 {
		fe.Old, fe.New = op.Sides()
	}
	return fe
}

// resolve makes a patch path absolute against cwd (when cwd is a POSIX
// path; Codex's own paths are absolute already).
func resolve(cwd, p string) string {
	if p == "" || strings.HasPrefix(p, "/") || !strings.HasPrefix(cwd, "/") || isWindowsAbs(p) {
		return p
	}
	return path.Join(cwd, p)
}

func isWindowsAbs(p string) bool {
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') || strings.HasPrefix(p, `\\`)
}

// changeEdit turns one entry of patch_apply_end's changes into a file edit.
// It returns nil for a change of a type it does not know, or of no file.
func changeEdit(cwd, file string, change rawjson.Object) *transcript.FileEdit {
	if strings.TrimSpace(file) == "" {
		return nil
	}
	fe := &transcript.FileEdit{Path: resolve(cwd, file), From: transcript.FromToolPatch}
	var hunks []transcript.Hunk
	oldPath, newPath := fe.Path, fe.Path
	switch rawjson.AsString(change.Get("type")) {
	case "add":
		fe.Op, fe.New = transcript.OpCreate, rawjson.AsString(change.Get("content"))
		hunks = transcript.Diff("", fe.New)
		oldPath = "/dev/null"
	case "delete":
		fe.Op, fe.Old = transcript.OpDelete, rawjson.AsString(change.Get("content"))
		hunks = transcript.Diff(fe.Old, "")
		newPath = "/dev/null"
	case "update":
		fe.Op = transcript.OpUpdate
		if mv := rawjson.AsString(change.Get("move_path")); mv != "" {
			fe.Op, fe.MovePath = transcript.OpMove, resolve(cwd, mv)
			newPath = fe.MovePath
		}
		hunks = transcript.ReadHunks(rawjson.AsString(change.Get("unified_diff")))
	default:
		return nil
	}
	fe.Unified = transcript.FormatUnified(oldPath, newPath, hunks)
	fe.Added, fe.Removed = transcript.CountChanges(hunks)
	return fe
}

// shellTools are the tools whose calls run a command line, in which the
// model may run apply_patch.
var shellTools = map[string]bool{
	"shell": true, "shell_command": true, "exec_command": true, "local_shell": true,
	"container.exec": true, "unified_exec": true,
}

// callPatch returns the patch a tool call carries, and the folder it runs in
// (when the arguments say): apply_patch's input, or an apply_patch command
// line of a shell call. It returns "" for other calls.
func callPatch(name string, args []byte) (patch, workdir string) {
	if name == "apply_patch" || name == "applypatch" {
		if s, ok := rawjson.String(args); ok {
			if o := rawjson.AsObject([]byte(s)); o != nil && rawjson.Valid([]byte(s)) {
				args = []byte(s)
			} else {
				return patchText(s), ""
			}
		}
		o := rawjson.AsObject(args)
		for _, k := range []string{"input", "patch"} {
			if s, ok := rawjson.String(o.Get(k)); ok {
				return patchText(s), rawjson.AsString(o.Get("workdir"))
			}
		}
		return "", ""
	}
	if !shellTools[name] {
		return "", ""
	}
	if s, ok := rawjson.String(args); ok {
		if !rawjson.Valid([]byte(s)) {
			return "", ""
		}
		args = []byte(s)
	}
	o := rawjson.AsObject(args)
	var line string
	switch c := o.Get("command"); {
	case rawjson.IsArray(c):
		line = strings.Join(rawjson.Strings(c), "\n")
	case c != nil:
		line = rawjson.AsString(c)
	default:
		line = rawjson.AsString(o.Get("cmd"))
	}
	if !strings.Contains(line, "apply_patch") && !strings.Contains(line, "applypatch") {
		return "", ""
	}
	workdir = rawjson.AsString(o.Get("workdir"))
	if workdir == "" {
		workdir = rawjson.AsString(o.Get("cwd"))
	}
	return patchText(line), workdir
}

// patchText cuts the patch out of s: from "*** Begin Patch" to the end of
// the "*** End Patch" line (a hunk line that reads so does not end it; to
// the end of s when that line is missing); "" when s holds no patch.
func patchText(s string) string {
	i := strings.Index(s, "*** Begin Patch")
	if i < 0 {
		return ""
	}
	s = s[i:]
	for off := 0; off < len(s); {
		line, _, _ := strings.Cut(s[off:], "\n")
		if strings.TrimSpace(line) == "*** End Patch" && line[0] != ' ' && line[0] != '+' && line[0] != '-' {
			return s[:off+len(line)] + "\n"
		}
		off += len(line) + 1
	}
	return s
}
