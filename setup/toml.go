package setup

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Codex's config.toml gets one block, between two marker comments, appended
// at the end of the file: the [mcp_servers.cortex] table. Everything outside
// the markers is the person's and is never rewritten; the block is cortex's,
// replaced whole when it changes and removed whole by uninstall.

const (
	tomlBegin = "# >>> cortex setup codex: cortex's MCP server; 'cortex setup codex --uninstall' removes this block"
	tomlEnd   = "# <<< cortex setup codex"
)

func isBegin(line string) bool { return strings.HasPrefix(line, "# >>> cortex setup") }
func isEnd(line string) bool   { return strings.HasPrefix(line, "# <<< cortex setup") }

// tomlQuote writes s as a TOML basic string.
func tomlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tomlBlock is the block cortex writes, each line ended by nl.
func tomlBlock(binary, nl string) string {
	lines := []string{
		tomlBegin,
		"[mcp_servers." + ServerName + "]",
		"command = " + tomlQuote(binary),
		`args = ["mcp"]`,
		tomlEnd,
	}
	return strings.Join(lines, nl) + nl
}

// tline is one line of a file and where it starts and ends (with its newline).
type tline struct {
	text       string // without the newline
	start, end int
}

func splitLines(src []byte) []tline {
	var out []tline
	for i := 0; i < len(src); {
		j := i
		for j < len(src) && src[j] != '\n' {
			j++
		}
		end := j
		if j < len(src) {
			end = j + 1
		}
		out = append(out, tline{text: strings.TrimSuffix(string(src[i:j]), "\r"), start: i, end: end})
		i = end
	}
	return out
}

// commentLines are the offsets of the lines that are whole-line comments (a
// "#" in a multi-line string is not one).
func commentLines(src []byte) map[int]bool {
	out := map[int]bool{}
	p := unstable.Parser{KeepComments: true}
	p.Reset(src)
	for p.NextExpression() {
		if e := p.Expression(); e.Kind == unstable.Comment {
			off := int(e.Raw.Offset)
			if ls := lineStart(src, off); ls == off {
				out[off] = true
			}
		}
	}
	return out
}

// tomlMarkers finds cortex's block: the offsets of its first byte and of the
// byte after its end marker's line, or -1 when there is none. The file has
// been read as TOML already.
func tomlMarkers(path string, src []byte) (start, end int, err error) {
	start, end = -1, -1
	var comments map[int]bool
	for n, l := range splitLines(src) {
		if !isBegin(l.text) && !isEnd(l.text) {
			continue
		}
		if comments == nil {
			comments = commentLines(src)
		}
		if !comments[l.start] {
			continue
		}
		switch {
		case isBegin(l.text):
			if start >= 0 {
				return 0, 0, &SyntaxError{Path: path, Line: n + 1, Column: 1, Msg: "a second '# >>> cortex setup' line: remove one of cortex's two blocks"}
			}
			start = l.start
		case start < 0 || end >= 0:
			return 0, 0, &SyntaxError{Path: path, Line: n + 1, Column: 1, Msg: "a '# <<< cortex setup' line without the '# >>> cortex setup' line before it"}
		default:
			end = l.end
		}
	}
	if start >= 0 && end < 0 {
		return 0, 0, &SyntaxError{Path: path, Line: lineOf(src, start), Column: 1, Msg: "cortex's block has no '# <<< cortex setup' line after it"}
	}
	return start, end, nil
}

// readTOML checks that src is TOML and returns its tables.
func readTOML(path string, src []byte) (map[string]any, error) {
	var m map[string]any
	if err := toml.Unmarshal(src, &m); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			return nil, &SyntaxError{Path: path, Line: line, Column: col, Msg: strings.TrimPrefix(de.Error(), "toml: ")}
		}
		return nil, &SyntaxError{Path: path, Line: 1, Column: 1, Msg: err.Error()}
	}
	return m, nil
}

// tomlServer returns mcp_servers.cortex from a decoded file.
func tomlServer(m map[string]any) (map[string]any, bool) {
	servers, _ := m["mcp_servers"].(map[string]any)
	v, ok := servers[ServerName]
	if !ok {
		return nil, false
	}
	e, _ := v.(map[string]any)
	return e, true
}

// runsCortex reports whether a decoded server entry runs cortex mcp.
func runsCortex(e map[string]any, binary string) (string, bool) {
	cmd, _ := e["command"].(string)
	args, _ := e["args"].([]any)
	if cmd == "" || !isCortex(cmd, binary) || len(args) == 0 || args[0] != "mcp" {
		return cmd, false
	}
	return cmd, true
}

// tomlDefinedAt is the line where mcp_servers.cortex is defined (a table
// header, a dotted key or an inline table), or 0.
func tomlDefinedAt(src []byte) int {
	var p unstable.Parser
	p.Reset(src)
	var table []string
	keyOf := func(it unstable.Iterator) ([]string, *unstable.Node) {
		var k []string
		var first *unstable.Node
		for it.Next() {
			if first == nil {
				first = it.Node()
			}
			k = append(k, string(it.Node().Data))
		}
		return k, first
	}
	defines := func(k []string) bool {
		return len(k) >= 1 && k[0] == "mcp_servers" && (len(k) == 1 || k[1] == ServerName)
	}
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			k, first := keyOf(e.Key())
			table = k
			if len(k) >= 2 && defines(k) && first != nil {
				return p.Shape(first.Raw).Start.Line
			}
		case unstable.KeyValue:
			k, first := keyOf(e.Key())
			if full := append(append([]string{}, table...), k...); defines(full) && first != nil {
				return p.Shape(first.Raw).Start.Line
			}
		}
	}
	return 0
}

// patchTOML returns Codex's config.toml with cortex's block as o asks, or
// without it.
func patchTOML(path string, src []byte, existed bool, binary string, uninstall bool) (out []byte, remove bool, actions, notes []string, err error) {
	if _, err := readTOML(path, src); err != nil {
		return nil, false, nil, nil, err
	}
	start, end, err := tomlMarkers(path, src)
	if err != nil {
		return nil, false, nil, nil, err
	}
	if start < 0 {
		m, _ := readTOML(path, src)
		if e, ok := tomlServer(m); ok {
			line := tomlDefinedAt(src)
			cmd, ours := runsCortex(e, binary)
			switch {
			case ours && uninstall:
				notes = append(notes, fmt.Sprintf("%s: line %d: mcp_servers.%s was not written by cortex setup; left as it is (remove it by hand)", path, line, ServerName))
			case ours && !SameBinary(cmd, binary):
				notes = append(notes, fmt.Sprintf("%s: line %d: mcp_servers.%s (not written by cortex setup) runs %s, not %s; left as it is", path, line, ServerName, cmd, binary))
			case ours:
				notes = append(notes, fmt.Sprintf("%s: line %d: mcp_servers.%s is already there (not written by cortex setup); left as it is", path, line, ServerName))
			case !uninstall:
				return nil, false, nil, nil, &ConflictError{Path: path, Line: line,
					Msg: fmt.Sprintf("mcp_servers.%s is already there and does not run cortex mcp: rename or remove it, then run cortex setup again", ServerName)}
			}
			return src, false, nil, notes, nil
		}
	}
	nl := "\n"
	if i := strings.IndexByte(string(src), '\n'); i > 0 && src[i-1] == '\r' {
		nl = "\r\n"
	}
	block := tomlBlock(binary, nl)
	switch {
	case uninstall && start < 0:
		return src, false, nil, nil, nil
	case uninstall:
		out = removeBlock(src, start, end)
		actions = append(actions, "remove the MCP server "+ServerName)
	case start >= 0:
		if string(src[start:end]) == block {
			return src, false, nil, nil, nil
		}
		// The block ends the file without a newline when the file had none
		// before cortex added it; an update keeps that.
		if end == len(src) && !strings.HasSuffix(string(src), "\n") {
			block = strings.TrimSuffix(block, nl)
			if string(src[start:end]) == block {
				return src, false, nil, nil, nil
			}
		}
		out = splice(src, start, end, block)
		actions = append(actions, "point the MCP server "+ServerName+" at "+binary)
	default:
		out = appendBlock(src, block, nl)
		actions = append(actions, "add the MCP server "+ServerName)
	}
	if _, err := readTOML(path, out); err != nil {
		return nil, false, nil, nil, fmt.Errorf("cannot add [mcp_servers.%s] to %s without breaking it (%v): nothing written", ServerName, path, err)
	}
	remove = uninstall && existed && len(out) == 0
	return out, remove, actions, notes, nil
}

// appendBlock adds block at the end of src after a blank line. When src does
// not end with a newline, the block does not either, so removing it gives
// the file back as it was.
func appendBlock(src []byte, block, nl string) []byte {
	s := string(src)
	switch {
	case s == "":
		return []byte(block)
	case strings.HasSuffix(s, "\n"):
		return []byte(s + nl + block)
	default:
		return []byte(s + nl + nl + strings.TrimSuffix(block, nl))
	}
}

// removeBlock is the inverse of appendBlock, wherever the block now is.
func removeBlock(src []byte, start, end int) []byte {
	atEOF := end == len(src)
	noFinalNewline := atEOF && (len(src) == 0 || src[len(src)-1] != '\n')
	out := splice(src, start, end, "")
	// The blank line cortex put before the block.
	ls := splitLines(out[:start])
	if n := len(ls); n > 0 && ls[n-1].text == "" && ls[n-1].end == start {
		out = splice(out, ls[n-1].start, start, "")
		start = ls[n-1].start
	}
	if noFinalNewline && start == len(out) {
		s := string(out)
		switch {
		case strings.HasSuffix(s, "\r\n"):
			out = out[:len(out)-2]
		case strings.HasSuffix(s, "\n"):
			out = out[:len(out)-1]
		}
	}
	return out
}
