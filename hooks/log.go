package hooks

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/memories"
)

// Log sizes.
const (
	// maxLogSize is the size past which the log is moved to hooks.log.1 (the
	// one before is dropped).
	maxLogSize = 1 << 20
	// logTail is how much of the log's end status reads.
	logTail = 256 << 10
	// maxLogError bounds an error message in the log.
	maxLogError = 2000
)

// Outcomes of a hook run.
const (
	OutcomeInjected = "injected" // context handed to the model
	OutcomeCaptured = "captured" // an event written to the inbox
	OutcomeSkipped  = "skipped"  // a repeat of a pending event, or turned off
	OutcomeNothing  = "nothing"  // ran, found nothing to inject
	OutcomeError    = "error"    // failed: the agent got nothing
)

// LogEntry is one line of the hook log: one hook run.
type LogEntry struct {
	Time    time.Time `json:"ts"`
	Client  string    `json:"client"`
	Event   string    `json:"event"`
	Session string    `json:"session,omitempty"`
	Vault   string    `json:"vault,omitempty"`
	Project string    `json:"project,omitempty"`
	Outcome string    `json:"outcome"`
	// Detail says more: the event id captured, the receipt written, why a
	// run was skipped.
	Detail string `json:"detail,omitempty"`
	// Ms is how long the run took.
	Ms    float64 `json:"ms"`
	Error string  `json:"error,omitempty"`
	// Warnings are what the run warned about without failing.
	Warnings []string `json:"warnings,omitempty"`
}

// AppendLog adds e to the log at path. When the log cannot be written (a
// read-only state folder, a full disk) the line goes to fallback instead
// (the hook's standard error, which clients keep out of the model's context)
// and the error is returned.
func AppendLog(path string, e LogEntry, fallback io.Writer) error {
	if len(e.Error) > maxLogError {
		e.Error = e.Error[:maxLogError] + "…"
	}
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	err = appendLine(path, line)
	if err != nil && fallback != nil {
		fmt.Fprintf(fallback, "cortex hook: %s(the hook log %s cannot be written: %v)\n", line, path, err)
	}
	return err
}

func appendLine(path string, line []byte) error {
	if err := atomicfile.MkdirAll(filepath.Dir(path)); err != nil {
		return err
	}
	if fi, err := os.Stat(path); err == nil && fi.Size()+int64(len(line)) > maxLogSize {
		_ = os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, atomicfile.FilePerm)
	if err != nil {
		return err
	}
	// One write of a whole line: concurrent hooks append without tearing
	// each other's lines.
	_, err = f.Write(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Reporter reports what the hooks of one vault did, for status.
type Reporter struct {
	Log, Receipts string
	// Vault is the vault's folder: runs logged for another vault are not
	// counted (runs that failed before they knew their vault are).
	Vault string
}

var _ memories.HookReporter = Reporter{}

// Activity reads the end of the log and the newest receipt: runs and errors
// of the last day, the latest error, the latest briefing.
func (r Reporter) Activity(now time.Time) (*memories.HookActivity, error) {
	act := &memories.HookActivity{Log: r.Log}
	entries, err := readTail(r.Log)
	if err != nil {
		return act, err
	}
	since := now.Add(-24 * time.Hour)
	for _, e := range entries {
		if e.Time.Before(since) || e.Vault != "" && r.Vault != "" && e.Vault != r.Vault {
			continue
		}
		act.Runs++
		if e.Outcome == OutcomeError {
			act.Errors++
			act.LastError, act.LastErrorTime = fmt.Sprintf("%s %s: %s", e.Client, e.Event, e.Error), e.Time
		}
	}
	rec, path, err := LatestReceipt(r.Receipts)
	if err != nil {
		return act, err
	}
	if rec != nil {
		act.LastBriefing = rec.Summary(path)
	}
	return act, nil
}

// readTail reads the log entries of the log's last logTail bytes; none when
// there is no log. Lines that do not parse are skipped.
func readTail(path string) ([]LogEntry, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	start := max(fi.Size()-logTail, 0)
	data := make([]byte, fi.Size()-start)
	if _, err := f.ReadAt(data, start); err != nil && err != io.EOF {
		return nil, err
	}
	if start > 0 {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	var out []LogEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), logTail)
	for sc.Scan() {
		var e LogEntry
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			out = append(out, e)
		}
	}
	return out, nil
}
