// Package inbox is the capture inbox: the queue between what must never fail
// or wait — lifecycle hooks, `cortex capture`, the MCP capture tool — and
// normalize, which turns events into notes later, on its own schedule (the
// outbox pattern: write to a durable medium, return, let a consumer do the
// rest).
//
// An event is one file, <id>.md (<id>-<key>.md for a hook's, see FileName),
// in pending/: YAML frontmatter (the event's
// id, type, time, origin, session, project, tags, transcript, …) and the body
// under a "## Raw Content" heading (see Event.Marshal). It is written as a
// file without a name (or, where the file system has none, a hidden
// temporary one), flushed to disk, and linked into place, so a crash leaves
// the whole event or nothing (Inbox.create). Ids are ULIDs, so the names
// sort in the order events arrived.
//
// Capture reads nothing of the body and touches no index and no vault lock:
// it works when everything else is broken. It does not scan the body for
// secrets either (the scanner's rule table alone takes longer to build than
// capture's whole budget): the inbox is private to the person (files 0600,
// folders 0700, in the state folder, never in the vault), and normalize scans
// and redacts every event before anything of it becomes a note — a manual
// capture holding a secret is refused into failed/, as save refuses it.
//
// The consumer's side, as normalize must keep it:
//
//	pending/<name>.md     waiting; read in name order (IDOf gives the id)
//	processed/<name>.md   consumed (moved, not copied)
//	failed/<name>.md      could not be used; failed/<id>.error says why
//	normalize.lock      held by normalize for its whole pass
//
// Files starting with "." are temporary and never events.
package inbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"

	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/filelock"
	"github.com/cortexmem/cortex/memories"
)

// Folder and file names inside the inbox.
const (
	PendingDir   = "pending"
	ProcessedDir = "processed"
	FailedDir    = "failed"
	LockFile     = "normalize.lock"
	// ErrorSuffix names the file beside a failed event that says why.
	ErrorSuffix = ".error"
	eventSuffix = ".md"
)

// Limits of what capture takes.
const (
	// MaxBody is the largest body, in bytes.
	MaxBody = 1 << 20
	// maxField bounds the one-line fields (session, client, hook, …).
	maxField = 200
	// maxPath bounds the transcript and cwd paths.
	maxPath = 4096
	// idTries is how many ids are tried when one is taken.
	idTries = 5
)

// Inbox is the capture inbox of one vault.
type Inbox struct {
	dir string
	ids memories.IDGen
	now func() time.Time
	// create writes data to path as a new file, failing with fs.ErrExist
	// when path exists: atomicfile.CreateUnlisted (flushed, then linked into
	// place, so never torn or empty) unless a test injects a failing one.
	// The folder is not flushed: a power loss right after may lose the
	// newest event, as it loses what the agent was doing then; a flush more
	// would double what capture costs (hooks wait for it).
	create func(path string, data []byte) error
}

// Option configures an Inbox.
type Option func(*Inbox)

// WithClock makes the inbox read the time from now.
func WithClock(now func() time.Time) Option { return func(b *Inbox) { b.now = now } }

// WithIDGen makes the inbox mint ids with g.
func WithIDGen(g memories.IDGen) Option { return func(b *Inbox) { b.ids = g } }

// New returns the inbox in dir; nothing is created until an event is added.
func New(dir string, opts ...Option) *Inbox {
	b := &Inbox{dir: dir, ids: memories.NewULIDGen(nil), now: time.Now, create: atomicfile.CreateUnlisted}
	for _, o := range opts {
		o(b)
	}
	return b
}

// Dir is the inbox folder.
func (b *Inbox) Dir() string { return b.dir }

// Pending is the folder of events waiting for normalize.
func (b *Inbox) Pending() string { return filepath.Join(b.dir, PendingDir) }

// Failed is the folder of events normalize could not use.
func (b *Inbox) Failed() string { return filepath.Join(b.dir, FailedDir) }

// Processed is the folder of events normalize consumed.
func (b *Inbox) Processed() string { return filepath.Join(b.dir, ProcessedDir) }

// LockPath is normalize's lock: held for a whole pass.
func (b *Inbox) LockPath() string { return filepath.Join(b.dir, LockFile) }

// Request is a capture: what `cortex capture` and the MCP capture tool take.
type Request struct {
	Type       string
	Content    string
	Session    string
	Project    string
	Tags       []string
	Transcript string
	// Origin is OriginCLI or OriginMCP; Client the MCP client's name.
	Origin, Client string
}

// Capture validates req and adds it to the inbox as one event. It returns
// the event's id, the only thing a caller needs to find it again.
func (b *Inbox) Capture(req Request) (string, error) {
	ev, err := req.event()
	if err != nil {
		return "", err
	}
	return b.Add(ev)
}

// event checks a request and makes its event.
func (req Request) event() (*Event, error) {
	t, err := ParseType(req.Type)
	if err != nil {
		return nil, err
	}
	ev := &Event{Type: t, Origin: req.Origin, Client: req.Client, TranscriptSize: -1}
	if ev.Origin == "" {
		ev.Origin = OriginCLI
	}
	if !utf8.ValidString(req.Content) {
		return nil, argError("content", "must be valid UTF-8 text")
	}
	if len(req.Content) > MaxBody {
		return nil, argError("content", "is %d bytes; the maximum is %d (1 MiB)", len(req.Content), MaxBody)
	}
	ev.Body = req.Content
	if ev.Session, err = oneLine("session", req.Session, maxField); err != nil {
		return nil, err
	}
	if ev.Client, err = oneLine("client", req.Client, maxField); err != nil {
		return nil, err
	}
	if ev.Project, err = memories.NormalizeScope("project", req.Project); err != nil {
		return nil, err
	}
	if ev.Tags, err = memories.NormalizeTags(req.Tags); err != nil {
		return nil, err
	}
	if len(ev.Tags) == 0 {
		ev.Tags = nil
	}
	if req.Transcript != "" {
		p, err := oneLine("transcript", req.Transcript, maxPath)
		if err != nil {
			return nil, err
		}
		if !filepath.IsAbs(p) {
			return nil, argError("transcript", "%q must be an absolute path", p)
		}
		ev.Transcript = filepath.Clean(p)
		ev.TranscriptSize = Size(ev.Transcript)
	}
	if strings.TrimSpace(ev.Body) == "" {
		named := ev.Transcript != "" || ev.Session != ""
		if !named || t == TypeManual || t == TypeMeeting {
			return nil, &memories.ArgError{Arg: "content", Rule: errNoBody.Error()}
		}
	}
	return ev, nil
}

// Size is the size of the file at path, -1 when it cannot be read.
func Size(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return -1
	}
	return fi.Size()
}

// Add writes ev into pending/ atomically, giving it an id and a time when it
// has none, and returns its id. The event's one-line fields are checked:
// nothing Add writes can break the frontmatter.
func (b *Inbox) Add(ev *Event) (string, error) {
	if err := ev.check(); err != nil {
		return "", err
	}
	if ev.Time.IsZero() {
		ev.Time = b.now()
	}
	dir := b.Pending()
	if err := atomicfile.MkdirAll(dir); err != nil {
		return "", fmt.Errorf("inbox %s: %w", dir, err)
	}
	given := ev.ID
	for try := 0; ; try++ {
		if given == "" {
			ev.ID = b.ids.NewID(ev.Time)
		}
		data, err := ev.Marshal()
		if err != nil {
			return "", err
		}
		err = b.create(filepath.Join(dir, FileName(ev)), data)
		if err == nil {
			return ev.ID, nil
		}
		// Another event took the id (two captures in one millisecond with
		// a broken random source): mint another.
		if !errors.Is(err, fs.ErrExist) || given != "" || try+1 == idTries {
			return "", fmt.Errorf("capture: %w", err)
		}
	}
}

// check refuses what would not survive a round trip through the file.
func (ev *Event) check() error {
	if _, err := ParseType(string(ev.Type)); err != nil || ev.Type == "" {
		return argError("type", "%q is not an event type", ev.Type)
	}
	for _, f := range []struct{ arg, v string }{
		{"id", ev.ID}, {"origin", ev.Origin}, {"client", ev.Client}, {"hook", ev.Hook}, {"session", ev.Session},
		{"trigger", ev.Trigger}, {"reason", ev.Reason},
	} {
		if _, err := oneLine(f.arg, f.v, maxField); err != nil {
			return err
		}
	}
	for _, f := range []struct{ arg, v string }{{"transcript", ev.Transcript}, {"cwd", ev.Cwd}} {
		if _, err := oneLine(f.arg, f.v, maxPath); err != nil {
			return err
		}
	}
	if ev.ID != "" && (strings.ContainsAny(ev.ID, `/\`) || strings.HasPrefix(ev.ID, ".")) {
		return argError("id", "%q cannot be a file name", ev.ID)
	}
	if !utf8.ValidString(ev.Body) {
		return argError("content", "must be valid UTF-8 text")
	}
	if len(ev.Body) > MaxBody {
		return argError("content", "is %d bytes; the maximum is %d (1 MiB)", len(ev.Body), MaxBody)
	}
	return nil
}

// oneLine checks a one-line text field: valid UTF-8, no control characters,
// at most max bytes. Surrounding spaces are trimmed.
func oneLine(arg, s string, max int) (string, error) {
	s = strings.TrimSpace(s)
	if !utf8.ValidString(s) {
		return "", argError(arg, "must be valid UTF-8 text")
	}
	if len(s) > max {
		return "", argError(arg, "is %d bytes; the maximum is %d", len(s), max)
	}
	if i := strings.IndexFunc(s, unicode.IsControl); i >= 0 {
		return "", argError(arg, "must be one line without control characters")
	}
	return s, nil
}

func argError(arg, format string, a ...any) error {
	return &memories.ArgError{Arg: arg, Rule: fmt.Sprintf(format, a...)}
}

// Key is what makes two hook events the same for de-duplication: one agent,
// session, type and transcript.
type Key struct {
	Client, Session, Transcript string
	Type                        Type
}

// hash is a short fingerprint of the key, for file names.
func (k Key) hash() string {
	sum := sha256.Sum256([]byte(strings.Join([]string{k.Client, k.Session, k.Transcript, string(k.Type)}, "\x00")))
	return hex.EncodeToString(sum[:4])
}

// FileName is the name of ev's file in the inbox: its id, and for a hook's
// event the fingerprint of its de-duplication key, so that a repeat is found
// by the names of the pending events alone ("<id>.md", "<id>-<key>.md").
// Names sort in the order events arrived.
func FileName(ev *Event) string {
	if ev.Origin == OriginHook {
		return ev.ID + "-" + KeyOf(ev).hash() + eventSuffix
	}
	return ev.ID + eventSuffix
}

// IDOf is the id of the event whose file is named name.
func IDOf(name string) string {
	id := strings.TrimSuffix(name, eventSuffix)
	if i := strings.IndexByte(id, '-'); i >= 0 {
		id = id[:i]
	}
	return id
}

// KeyOf is the de-duplication key of ev.
func KeyOf(ev *Event) Key {
	return Key{Client: ev.Client, Session: ev.Session, Transcript: ev.Transcript, Type: ev.Type}
}

// AddUnlessPending adds ev unless an event with the same key is pending and
// was captured within window of ev, and returns the id written, or the id of
// the pending event and true. Hooks fire again and again — Gemini CLI's
// PreCompress before every model call, Stop after every turn — and a pending
// event already makes normalize read the transcript to its end, so another
// adds nothing. The check is skipped while normalize runs (its lock is
// held): an event it may be reading right now could end before this one's
// news.
func (b *Inbox) AddUnlessPending(ev *Event, window time.Duration) (id string, dup bool, err error) {
	if ev.Time.IsZero() {
		ev.Time = b.now()
	}
	if window > 0 {
		if prev, err := b.pendingLike(ev, window); err != nil {
			return "", false, err
		} else if prev != "" {
			return prev, true, nil
		}
	}
	id, err = b.Add(ev)
	return id, false, err
}

// pendingLike finds a pending event with ev's key captured within window
// before ev (or after it: clocks of two processes), when normalize is not
// running.
func (b *Inbox) pendingLike(ev *Event, window time.Duration) (string, error) {
	names, err := b.pendingNames()
	if err != nil || len(names) == 0 {
		return "", err
	}
	lock, err := filelock.TryAcquire(b.LockPath())
	if err != nil || lock == nil {
		// Normalize runs (or its lock cannot be had): write the event.
		return "", nil
	}
	defer lock.Release()
	key := KeyOf(ev)
	suffix := "-" + key.hash() + eventSuffix
	from := ev.Time.Add(-window)
	// Newest first: the last firing is the likeliest match.
	for _, name := range slices.Backward(names) {
		t, ok := idTime(IDOf(name))
		if !ok {
			continue
		}
		if t.Before(from) {
			break
		}
		if !strings.HasSuffix(name, suffix) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(b.Pending(), name))
		if err != nil {
			continue // taken by normalize meanwhile, or unreadable: not a match
		}
		prev, err := Parse(data)
		if err != nil {
			continue
		}
		if KeyOf(prev) == key {
			return prev.ID, nil
		}
	}
	return "", nil
}

// pendingNames lists the event files of pending/, sorted (oldest first).
func (b *Inbox) pendingNames() ([]string, error) {
	return eventNames(b.Pending())
}

// eventNames lists the event files of dir, sorted; none when dir is missing.
func eventNames(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("inbox: %w", err)
	}
	var names []string
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, ".") && strings.HasSuffix(n, eventSuffix) && e.Type().IsRegular() {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names, nil
}

// idTime is the time a ULID id was minted at.
func idTime(id string) (time.Time, bool) {
	u, err := ulid.ParseStrict(strings.ToUpper(id))
	if err != nil {
		return time.Time{}, false
	}
	return u.Timestamp(), true
}

var _ memories.InboxReporter = (*Inbox)(nil)

// Backlog counts the pending and failed events (for status).
func (b *Inbox) Backlog() (memories.InboxBacklog, error) {
	bl := memories.InboxBacklog{Dir: b.dir}
	pending, err := b.pendingNames()
	if err != nil {
		return bl, err
	}
	bl.Pending = len(pending)
	if len(pending) > 0 {
		if t, ok := idTime(IDOf(pending[0])); ok {
			bl.OldestPending = t
		}
	}
	failed, err := eventNames(b.Failed())
	if err != nil {
		return bl, err
	}
	bl.Failed = len(failed)
	if len(failed) > 0 {
		last := IDOf(failed[len(failed)-1])
		bl.LastFailure = last
		if data, err := os.ReadFile(filepath.Join(b.Failed(), last+ErrorSuffix)); err == nil {
			line, _, _ := strings.Cut(strings.TrimSpace(string(data)), "\n")
			if utf8.RuneCountInString(line) > 300 {
				line = string([]rune(line)[:300]) + "…"
			}
			bl.LastFailureError = line
		}
	}
	return bl, nil
}
