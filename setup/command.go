package setup

import (
	"path/filepath"
	"runtime"
	"strings"
)

// The clients run a hook's command through a shell, so the binary's path is
// quoted when it holds anything a shell would read as syntax. The MCP server
// entries give the path as a word of their own and need no quoting.

// hookCommand is the command line of a hook: the binary, then
// "hook <client> <event>".
func hookCommand(binary, client, event string) string {
	return shellQuote(binary) + " hook " + client + " " + event
}

// safeInShell are the bytes a POSIX shell reads as part of a plain word.
func safeInShell(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		strings.IndexByte("_-./+:@%=,", c) >= 0
}

// shellQuote quotes s for a shell when it needs quoting: in single quotes on
// POSIX systems (a single quote inside is written '\”), in double quotes on
// Windows, whose shell has no single quotes.
func shellQuote(s string) string {
	plain := s != ""
	for i := 0; i < len(s); i++ {
		if !safeInShell(s[i]) && !(runtime.GOOS == "windows" && s[i] == '\\') {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	if runtime.GOOS == "windows" {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellWords splits a command line into words as a POSIX shell would for the
// quoting setup itself writes (single quotes, double quotes, backslashes).
// ok is false for a line with anything else (an unclosed quote, $, |, ;, …):
// such a command is not one cortex wrote.
func shellWords(line string) (words []string, ok bool) {
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			j := strings.IndexByte(line[i+1:], '"')
			if j < 0 {
				return nil, false
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '\\' && runtime.GOOS != "windows":
			if i+1 >= len(line) {
				return nil, false
			}
			cur.WriteByte(line[i+1])
			i++
			inWord = true
		case strings.IndexByte("$`|&;<>(){}*?[]#~\n\r", c) >= 0:
			return nil, false
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, true
}

// isCortex reports whether path names a cortex binary: this one, or any file
// called cortex (a binary since moved or installed elsewhere).
func isCortex(path, binary string) bool {
	if path == binary {
		return true
	}
	base := filepath.Base(filepath.FromSlash(path))
	base = strings.TrimSuffix(strings.ToLower(base), ".exe")
	return base == "cortex"
}

// parseHookCommand reads a command cortex setup could have written for client:
// "<cortex> hook <client> <event>". It returns the binary and the event.
func parseHookCommand(cmd, client, binary string) (bin, event string, ok bool) {
	w, ok := shellWords(cmd)
	if !ok || len(w) != 4 || w[1] != "hook" || w[2] != client || !isCortex(w[0], binary) {
		return "", "", false
	}
	return w[0], w[3], true
}

// SameBinary reports whether two paths name the same binary, through
// symbolic links.
func SameBinary(a, b string) bool {
	if a == b {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
