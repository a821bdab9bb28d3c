package mcp

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestLoadToken(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state") // not there yet
	path := filepath.Join(dir, "mcp-token")
	token, created, err := LoadToken(path)
	if err != nil || !created {
		t.Fatalf("first load: %q, created %v, %v", token, created, err)
	}
	if len(token) != 43 || !validToken(token) {
		t.Errorf("token %q: want 43 base64url characters (32 random bytes)", token)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	again, created, err := LoadToken(path)
	if err != nil || created || again != token {
		t.Errorf("second load: %q, created %v, %v; want %q, false", again, created, err, token)
	}
	other, _, err := LoadToken(filepath.Join(t.TempDir(), "mcp-token"))
	if err != nil || other == token {
		t.Errorf("another state folder: %q, %v", other, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the state folder holds %d files, want only the token", len(entries))
	}
}

func TestLoadTokenRefuses(t *testing.T) {
	for _, tt := range []struct {
		name    string
		content string
		mode    os.FileMode
		want    string
	}{
		{"group-readable", strings.Repeat("a", 43) + "\n", 0o640, "can be read or changed by other users (mode 0640); make it private with 'chmod 600 "},
		{"world-readable", strings.Repeat("a", 43) + "\n", 0o644, "(mode 0644)"},
		{"world-writable", strings.Repeat("a", 43) + "\n", 0o602, "(mode 0602)"},
		{"empty", "", 0o600, "does not hold a token"},
		{"too short", "abc\n", 0o600, "does not hold a token"},
		{"not a token", strings.Repeat("a", 40) + " b\n", 0o600, "does not hold a token"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if runtime.GOOS == "windows" && tt.mode != 0o600 {
				t.Skip("no permission bits on Windows")
			}
			path := filepath.Join(t.TempDir(), "mcp-token")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tt.mode); err != nil {
				t.Fatal(err)
			}
			token, _, err := LoadToken(path)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("LoadToken = %q, %v; want an error with %q", token, err, tt.want)
			}
			// Rotating fixes it.
			token, err = RotateToken(path)
			if err != nil {
				t.Fatal(err)
			}
			if got, _, err := LoadToken(path); err != nil || got != token {
				t.Errorf("after rotating: %q, %v; want %q", got, err, token)
			}
		})
	}
}

func TestRequireToken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp-token")
	token, _, err := LoadToken(path)
	if err != nil {
		t.Fatal(err)
	}
	var warned []string
	h := RequireToken(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("served")) }),
		func(m string) { warned = append(warned, m) })
	do := func(auth string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "http://127.0.0.1/", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	check := func(name, auth string, code int, challenge string) {
		t.Helper()
		rec := do(auth)
		if rec.Code != code || rec.Header().Get("WWW-Authenticate") != challenge {
			t.Errorf("%s: %d, WWW-Authenticate %q; want %d, %q (%s)", name, rec.Code, rec.Header().Get("WWW-Authenticate"), code, challenge, rec.Body)
		}
		if code == http.StatusOK && rec.Body.String() != "served" {
			t.Errorf("%s: %q", name, rec.Body)
		}
	}
	check("no header", "", 401, `Bearer realm="cortex"`)
	check("another scheme", "Basic "+token, 401, `Bearer realm="cortex"`)
	check("no token", "Bearer ", 401, `Bearer realm="cortex"`)
	check("a wrong token", "Bearer "+strings.Repeat("x", 43), 401, `Bearer realm="cortex", error="invalid_token"`)
	check("a prefix of the token", "Bearer "+token[:42], 401, `Bearer realm="cortex", error="invalid_token"`)
	check("the token", "Bearer "+token, 200, "")
	check("the token, scheme in lower case", "bearer "+token, 200, "")

	// A rotation takes effect at once.
	rotated, err := RotateToken(path)
	if err != nil {
		t.Fatal(err)
	}
	check("the old token after a rotation", "Bearer "+token, 401, `Bearer realm="cortex", error="invalid_token"`)
	check("the new token", "Bearer "+rotated, 200, "")

	// A token file gone bad refuses everything, and says so once.
	if runtime.GOOS != "windows" {
		if err := os.Chmod(path, 0o644); err != nil {
			t.Fatal(err)
		}
		check("a token file others can read", "Bearer "+rotated, 500, "")
		check("again", "Bearer "+rotated, 500, "")
		if len(warned) != 1 || !strings.Contains(warned[0], "can be read or changed by other users") || !strings.Contains(warned[0], "refusing every request") {
			t.Errorf("warnings: %q", warned)
		}
		if err := os.Chmod(path, 0o600); err != nil {
			t.Fatal(err)
		}
		check("fixed", "Bearer "+rotated, 200, "")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	check("no token file", "Bearer "+rotated, 500, "")
}
