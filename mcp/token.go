package mcp

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// tokenBytes is how much randomness a token carries.
const tokenBytes = 32

// LoadToken reads the token file at path (config.State.MCPToken), creating
// one when there is none yet (created reports it). A token file other users
// can read is refused: the token may already be known beyond its owner.
func LoadToken(path string) (token string, created bool, err error) {
	token, err = readToken(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return token, false, err
	}
	token, err = newToken()
	if err != nil {
		return "", false, err
	}
	switch err := writeToken(path, token, false); {
	case errors.Is(err, fs.ErrExist): // another server created it first
		token, err = readToken(path)
		return token, false, err
	case err != nil:
		return "", false, err
	}
	return token, true, nil
}

// RotateToken replaces the token in the file at path with a new one. A
// server already running takes the new token at its next request and refuses
// the old one.
func RotateToken(path string) (string, error) {
	token, err := newToken()
	if err != nil {
		return "", err
	}
	if err := writeToken(path, token, true); err != nil {
		return "", err
	}
	return token, nil
}

func newToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("mcp token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// readToken reads and checks a token file.
func readToken(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("mcp token: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("mcp token: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("mcp token: %s is not a regular file", path)
	}
	if err := private(path, fi); err != nil {
		return "", err
	}
	data, err := io.ReadAll(io.LimitReader(f, 1024))
	if err != nil {
		return "", fmt.Errorf("mcp token: %w", err)
	}
	token := strings.TrimSpace(string(data))
	if !validToken(token) {
		return "", fmt.Errorf("mcp token: %s does not hold a token (at least 32 letters, digits, '-' or '_'); replace it with 'cortex mcp token --rotate'", path)
	}
	return token, nil
}

// private refuses a token file that users other than its owner may read or
// change. Windows keeps no such bits; its files in the profile are private.
func private(path string, fi fs.FileInfo) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("mcp token: %s can be read or changed by other users (mode %#o); make it private with 'chmod 600 %s', or replace the token with 'cortex mcp token --rotate'", path, perm, path)
	}
	return nil
}

func validToken(t string) bool {
	if len(t) < 32 {
		return false
	}
	for _, r := range t {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// writeToken writes token to path, private to its owner, whole or not at all:
// it replaces a file there when replace is set, and otherwise fails with
// fs.ErrExist if there is one.
func writeToken(path, token string, replace bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("mcp token: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".mcp-token-*") // 0600
	if err != nil {
		return fmt.Errorf("mcp token: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(token + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("mcp token: %w", err)
	}
	if replace {
		err = os.Rename(tmp.Name(), path)
	} else if err = os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		// A file system without hard links: a plain create, exclusive too.
		err = writeExclusive(path, token)
	}
	if errors.Is(err, fs.ErrExist) {
		return err
	}
	if err != nil {
		return fmt.Errorf("mcp token: %w", err)
	}
	return nil
}

func writeExclusive(path, token string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(token + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// RequireToken lets through only the requests to h that carry the token in
// the file at path as "Authorization: Bearer <token>"; any other gets 401
// with a WWW-Authenticate challenge, as MCP's HTTP authorization has it. The
// token file is read again when it changes, so that a rotation takes effect
// at once; while it cannot be read, every request is refused and warn is told
// why, once.
func RequireToken(path string, h http.Handler, warn func(string)) http.Handler {
	if warn == nil {
		warn = func(string) {}
	}
	return &tokenGuard{path: path, next: h, warn: warn}
}

type tokenGuard struct {
	path string
	next http.Handler
	warn func(string)

	mu     sync.Mutex
	stat   fs.FileInfo // of the file the token was read from
	token  []byte
	failed string // the last problem warned about
}

func (g *tokenGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	want, err := g.current()
	if err != nil {
		http.Error(w, "cortex: the MCP token cannot be read; see the server's messages", http.StatusInternalServerError)
		return
	}
	scheme, got, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(got) == "" {
		challenge(w, "", "cortex: this MCP server needs the header \"Authorization: Bearer <token>\"; 'cortex mcp token' prints the token")
		return
	}
	if subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), want) != 1 {
		challenge(w, `, error="invalid_token"`, "cortex: wrong MCP token; 'cortex mcp token' prints the right one")
		return
	}
	g.next.ServeHTTP(w, r)
}

func challenge(w http.ResponseWriter, extra, msg string) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="cortex"`+extra)
	http.Error(w, msg, http.StatusUnauthorized)
}

// current is the token in the file, read again when the file has changed.
func (g *tokenGuard) current() ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	fi, err := os.Stat(g.path)
	if err == nil && g.stat != nil && os.SameFile(fi, g.stat) && fi.ModTime().Equal(g.stat.ModTime()) && fi.Size() == g.stat.Size() && fi.Mode() == g.stat.Mode() {
		return g.token, nil
	}
	token, err := readToken(g.path)
	if err != nil {
		g.stat, g.token = nil, nil
		if msg := err.Error(); msg != g.failed {
			g.failed = msg
			g.warn(msg + "; refusing every request until it is fixed")
		}
		return nil, err
	}
	g.stat, g.token, g.failed = fi, []byte(token), ""
	return g.token, nil
}
