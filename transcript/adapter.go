package transcript

// Adapter reads one tool's transcripts. Adapters are pure: Parse and
// Fingerprint are functions of their arguments alone (no clock, no file
// system, no map-order dependence), never panic, and route anything they do
// not recognise to an Unknown event. Only Discover touches the file system.
//
// The interface is declared here, by its consumer (the Reader, Verify and the
// invariant suite); each adapter package proves conformance with
// var _ transcript.Adapter = (*Adapter)(nil).
type Adapter interface {
	// Source is the tool this adapter reads.
	Source() SourceKind
	// Discover finds the tool's transcripts: its default locations, or the
	// one its environment override names. The result is sorted.
	Discover(env Env) Discovery
	// Fingerprint names the schema variant of one record; a Variant with an
	// empty Schema means the record does not look like this tool's.
	Fingerprint(rec Record) Variant
	// Parse turns one record into zero or more events, reading and updating
	// the stream's state in ctx. Every record must yield at least one event
	// (an Unknown one when nothing else fits).
	Parse(rec Record, ctx *Context) []Event
}

// Framer is implemented by adapters whose transcripts are not JSON lines (one
// JSON document rewritten in place, a markdown log). Frame splits the complete
// records at the start of data and returns them with the number of bytes they
// span; atEOF says no more bytes will follow. Records' offsets are relative to
// data; the reader shifts them.
type Framer interface {
	Frame(data []byte, atEOF bool) (records []Record, consumed int)
}

// Record is one raw record of a transcript: for JSON lines, one line without
// its newline.
type Record struct {
	// File is the transcript's name as the reader was given it.
	File   string
	Offset int64
	// Line is the 1-based line number, 0 when records are not lines.
	Line int
	// Pointer locates the record inside a document, for Framer adapters.
	Pointer string
	Data    []byte
}

// Provenance returns the pointer back to the record.
func (r Record) Provenance() Provenance {
	return Provenance{File: r.File, Offset: r.Offset, Length: len(r.Data), Line: r.Line, Pointer: r.Pointer}
}

// Variant is a record's schema variant, for version gating and for telling
// which tool wrote a file.
type Variant struct {
	Source SourceKind `json:"source"`
	// Schema is a stable label of the record's shape (e.g.
	// "claude-code/jsonl/v2.1"); empty when the record is not this tool's.
	Schema string `json:"schema"`
	// ToolVersion is the writing tool's version when the record says.
	ToolVersion string `json:"tool_version,omitempty"`
}

// Env is what discovery may read of the environment.
type Env struct {
	Home   string
	Getenv func(string) string
}

// Lookup returns the environment variable name's value ("" when unset or when
// there is no Getenv).
func (e Env) Lookup(name string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(name)
}

// Discovery is what an adapter found on disk, and what it passed over.
type Discovery struct {
	Source  SourceKind `json:"source"`
	Roots   []Root     `json:"roots"`
	Files   []Found    `json:"files"`
	Skipped []Skip     `json:"skipped"`
}

// Root is a folder discovery looked in.
type Root struct {
	Path string `json:"path"`
	// From says why: "default", or the environment variable that named it.
	From   string `json:"from"`
	Exists bool   `json:"exists"`
}

// Found is one transcript file.
type Found struct {
	Path string `json:"path"`
	// Session is the session id the location implies (the file name), when
	// it does; the records are the authority.
	Session string `json:"session,omitempty"`
	// Role is RoleSession for a main transcript, RoleSubagent for a
	// subagent's.
	Role string `json:"role"`
	Size int64  `json:"size"`
}

// Skip is something discovery did not read, and why.
type Skip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}
