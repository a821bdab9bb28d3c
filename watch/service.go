package watch

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cortexmem/cortex/atomicfile"
)

// Service managers a service file is written for.
const (
	Systemd = "systemd"
	Launchd = "launchd"
)

// ServiceName names the service: the unit and the launchd label.
const (
	unitName = "cortex-watch.service"
	label    = "dev.cortex.watch"
)

// Service says how the watcher is run as a service of the person's login
// session.
type Service struct {
	// Manager is Systemd or Launchd.
	Manager string
	// Binary is cortex's absolute path; Args the global flags that name the
	// vault, state and config the watcher is for.
	Binary string
	Args   []string
	// Home is the person's home folder, where the file goes.
	Home string
	// Log is the file the service's output goes to (launchd).
	Log string
}

// Path is where the service file goes: ~/.config/systemd/user/ or
// ~/Library/LaunchAgents/.
func (s Service) Path() (string, error) {
	switch s.Manager {
	case Systemd:
		return filepath.Join(s.Home, ".config", "systemd", "user", unitName), nil
	case Launchd:
		return filepath.Join(s.Home, "Library", "LaunchAgents", label+".plist"), nil
	}
	return "", fmt.Errorf("service: %q is not systemd or launchd", s.Manager)
}

// marker identifies a file cortex wrote, so that uninstall never removes a
// person's own.
const marker = "written by cortex watch --install"

// File is the service file's content.
func (s Service) File() ([]byte, error) {
	argv := append([]string{s.Binary}, s.Args...)
	argv = append(argv, "watch")
	var b bytes.Buffer
	switch s.Manager {
	case Systemd:
		quoted := make([]string, len(argv))
		for i, a := range argv {
			quoted[i] = systemdQuote(a)
		}
		fmt.Fprintf(&b, `# %s; 'cortex watch --uninstall' removes it.
[Unit]
Description=cortex watch: keep cortex's indexes and notes up to date as the vault, the inbox and agents' transcripts change

[Service]
Type=simple
ExecStart=%s
Restart=on-failure
RestartSec=5
KillSignal=SIGTERM

[Install]
WantedBy=default.target
`, marker, strings.Join(quoted, " "))
	case Launchd:
		fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- %s; 'cortex watch --uninstall' removes it. -->
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>%s</string>
	<key>ProgramArguments</key>
	<array>
`, marker, label)
		for _, a := range argv {
			fmt.Fprintf(&b, "\t\t<string>%s</string>\n", html.EscapeString(a))
		}
		fmt.Fprintf(&b, `	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>StandardOutPath</key>
	<string>%s</string>
	<key>StandardErrorPath</key>
	<string>%s</string>
</dict>
</plist>
`, html.EscapeString(s.Log), html.EscapeString(s.Log))
	default:
		return nil, fmt.Errorf("service: %q is not systemd or launchd", s.Manager)
	}
	return b.Bytes(), nil
}

// systemdQuote quotes one argument of ExecStart.
func systemdQuote(a string) string {
	if a != "" && !strings.ContainsAny(a, " \t\"'\\$%;") {
		return a
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `$$`, `%`, `%%`)
	return `"` + r.Replace(a) + `"`
}

// Enable is the command that starts the installed service.
func (s Service) Enable(path string) string {
	if s.Manager == Launchd {
		return "launchctl load -w " + path
	}
	return "systemctl --user daemon-reload && systemctl --user enable --now " + unitName
}

// Install writes the service file, replacing one cortex wrote before; it
// refuses to replace a file cortex did not write. It reports whether the
// file changed.
func (s Service) Install() (path string, changed bool, err error) {
	path, err = s.Path()
	if err != nil {
		return "", false, err
	}
	data, err := s.File()
	if err != nil {
		return "", false, err
	}
	old, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(old, data):
		return path, false, nil
	case err == nil && !bytes.Contains(old, []byte(marker)):
		return path, false, fmt.Errorf("service: %s exists and was not written by cortex; remove it first", path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return path, false, fmt.Errorf("service: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return path, false, fmt.Errorf("service: %w", err)
	}
	if err := atomicfile.Write(path, data); err != nil {
		return path, false, fmt.Errorf("service: %w", err)
	}
	return path, true, nil
}

// Uninstall removes the service file cortex wrote; a file it did not write
// is left alone. It reports whether a file was removed.
func (s Service) Uninstall() (path string, removed bool, err error) {
	path, err = s.Path()
	if err != nil {
		return "", false, err
	}
	old, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, false, nil
	}
	if err != nil {
		return path, false, fmt.Errorf("service: %w", err)
	}
	if !bytes.Contains(old, []byte(marker)) {
		return path, false, fmt.Errorf("service: %s was not written by cortex; left as it is", path)
	}
	if err := os.Remove(path); err != nil {
		return path, false, fmt.Errorf("service: %w", err)
	}
	return path, true, nil
}
