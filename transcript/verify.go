package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The invariants every adapter keeps on every transcript.
const (
	InvWellFormed    = "well_formed"   // schema version, source, kind and exactly its payload; file edits' diffs parse
	InvMonotonicSeq  = "monotonic_seq" // seq strictly increases within each session
	InvUniqueIDs     = "unique_ids"    // no event id twice in a stream
	InvLossless      = "lossless"      // every record gives at least one event, and every event points at its record
	InvDeterministic = "deterministic" // two reads give byte-identical NDJSON
	InvResumable     = "resumable"     // stopping at a record boundary and resuming gives the same events as one read
	InvPartialLine   = "partial_line"  // a cut last line is left unconsumed
	InvNoPanic       = "no_panic"      // the adapter never failed on a record
)

// Violation is one broken invariant.
type Violation struct {
	Invariant string `json:"invariant"`
	Line      int    `json:"line,omitempty"`
	EventID   string `json:"event_id,omitempty"`
	Detail    string `json:"detail"`
}

func (v Violation) String() string {
	var b strings.Builder
	b.WriteString(v.Invariant)
	if v.Line > 0 {
		fmt.Fprintf(&b, " at line %d", v.Line)
	}
	if v.EventID != "" {
		fmt.Fprintf(&b, " (event %s)", v.EventID)
	}
	return b.String() + ": " + v.Detail
}

// VariantCount is how many records had one schema variant.
type VariantCount struct {
	Variant
	Records int `json:"records"`
}

// Report is what Verify found in one transcript.
type Report struct {
	File    string       `json:"file"`
	Source  SourceKind   `json:"source"`
	Records int          `json:"records"`
	Events  int          `json:"events"`
	Kinds   map[Kind]int `json:"kinds"`
	// Unknown counts the Unknown events by "reason" or "reason:raw_type".
	Unknown    map[string]int `json:"unknown"`
	Variants   []VariantCount `json:"variants"`
	Violations []Violation    `json:"violations"`
}

// OK reports whether no invariant was broken.
func (r *Report) OK() bool { return len(r.Violations) == 0 }

// VerifyOptions tunes Verify.
type VerifyOptions struct {
	// ResumePoints bounds the record boundaries resumption is checked at:
	// that many, spread evenly (the first and last always in). Zero checks
	// every boundary, which costs a read per boundary.
	ResumePoints int
}

// Verify reads data (a whole transcript named file) with a and checks every
// invariant: the events' own (CheckEvents), determinism, resumption at record
// boundaries, and that a cut last line is left for later.
func Verify(a Adapter, file string, data []byte, opt VerifyOptions) Report {
	recs, evs, _ := readRecords(a, file, data, true)
	rep := Report{File: file, Source: a.Source(), Records: len(recs), Events: len(evs),
		Kinds: map[Kind]int{}, Unknown: map[string]int{}, Violations: []Violation{}}
	for _, e := range evs {
		rep.Kinds[e.Kind]++
		if e.Unknown != nil {
			key := e.Unknown.Reason
			if e.Unknown.RawType != "" {
				key += ":" + e.Unknown.RawType
			}
			rep.Unknown[key]++
		}
	}
	variants := map[Variant]int{}
	for _, r := range recs {
		variants[a.Fingerprint(r)]++
	}
	for v, n := range variants {
		rep.Variants = append(rep.Variants, VariantCount{Variant: v, Records: n})
	}
	slices.SortFunc(rep.Variants, func(x, y VariantCount) int {
		return strings.Compare(x.Schema+"\x00"+x.ToolVersion, y.Schema+"\x00"+y.ToolVersion)
	})
	rep.Violations = append(rep.Violations, CheckEvents(a.Source(), recs, evs)...)

	full, err := Marshal(evs)
	if err != nil {
		rep.Violations = append(rep.Violations, Violation{Invariant: InvWellFormed, Detail: err.Error()})
		return rep
	}
	_, again, _ := readRecords(a, file, data, true)
	if b, err := Marshal(again); err != nil || !bytes.Equal(b, full) {
		rep.Violations = append(rep.Violations, Violation{Invariant: InvDeterministic,
			Detail: "a second read gave different events" + firstDifference(full, b)})
	}
	rep.Violations = append(rep.Violations, checkResume(a, file, data, recs, full, opt.ResumePoints)...)
	return rep
}

// checkResume reads data up to record boundaries in tail mode, carries the
// position through JSON, reads the rest, and compares with the full read; it
// also cuts the following record in half and checks the half is left unread.
func checkResume(a Adapter, file string, data []byte, recs []Record, full []byte, points int) []Violation {
	var bounds []int64
	for _, r := range recs {
		bounds = append(bounds, r.Offset)
	}
	bounds = append(bounds, int64(len(data)))
	if points > 0 && len(bounds) > points {
		picked := make([]int64, 0, points)
		for i := range points {
			picked = append(picked, bounds[i*(len(bounds)-1)/max(points-1, 1)])
		}
		bounds = slices.Compact(picked)
	}
	var out []Violation
	for _, b := range bounds {
		head, pos := ParseBytes(a, file, data[:b], false)
		if pos.Offset != b && !(b == int64(len(data)) && pos.Offset < b) {
			out = append(out, Violation{Invariant: InvResumable, Detail: fmt.Sprintf("a read of the first %d bytes stopped at %d", b, pos.Offset)})
			continue
		}
		// A position must survive being saved and loaded.
		saved, err := json.Marshal(pos)
		if err != nil {
			out = append(out, Violation{Invariant: InvResumable, Detail: fmt.Sprintf("saving the position at %d: %v", b, err)})
			continue
		}
		var loaded Position
		if err := json.Unmarshal(saved, &loaded); err != nil {
			out = append(out, Violation{Invariant: InvResumable, Detail: fmt.Sprintf("loading the position at %d: %v", b, err)})
			continue
		}
		tail, _, err := ReadAll(a, bytes.NewReader(data[loaded.Offset:]), loaded, true)
		if err != nil {
			out = append(out, Violation{Invariant: InvResumable, Detail: err.Error()})
			continue
		}
		got, err := Marshal(append(head, tail...))
		if err != nil || !bytes.Equal(got, full) {
			out = append(out, Violation{Invariant: InvResumable,
				Detail: fmt.Sprintf("resuming at byte %d gave different events", b) + firstDifference(full, got)})
			continue
		}
		// Half of the next line: not consumed, no event for it.
		if end := nextNewline(data, b); end > b+1 && !isFramer(a) {
			cut := b + (end-b)/2
			h2, p2 := ParseBytes(a, file, data[:cut], false)
			if p2.Offset != b || len(h2) != len(head) {
				out = append(out, Violation{Invariant: InvPartialLine,
					Detail: fmt.Sprintf("a read cut at byte %d (inside the line at %d) stopped at %d with %d events, want %d and %d", cut, b, p2.Offset, len(h2), b, len(head))})
			}
		}
	}
	return out
}

func isFramer(a Adapter) bool {
	_, ok := a.(Framer)
	return ok
}

func nextNewline(data []byte, from int64) int64 {
	i := bytes.IndexByte(data[from:], '\n')
	if i < 0 {
		return from
	}
	return from + int64(i)
}

// firstDifference describes where two NDJSON outputs first differ.
func firstDifference(want, got []byte) string {
	wl, gl := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	for i := range max(len(wl), len(gl)) {
		var w, g []byte
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if !bytes.Equal(w, g) {
			return fmt.Sprintf(": event %d is\n  %.300s\nwant\n  %.300s", i, g, w)
		}
	}
	return ""
}

// readRecords reads data whole and returns the records the adapter was
// given, the events, and the final position.
func readRecords(a Adapter, file string, data []byte, final bool) ([]Record, []Event, Position) {
	rec := &recorder{Adapter: a}
	var ad Adapter = rec
	if f, ok := a.(Framer); ok {
		ad = framedRecorder{rec, f}
	}
	evs, pos := ParseBytes(ad, file, data, final)
	return rec.recs, evs, pos
}

type recorder struct {
	Adapter
	recs []Record
}

func (r *recorder) Parse(rec Record, ctx *Context) []Event {
	r.recs = append(r.recs, rec)
	return r.Adapter.Parse(rec, ctx)
}

type framedRecorder struct {
	*recorder
	Framer
}

// CheckEvents checks what can be checked of one stream's events alone, given
// the records they came from: well-formedness, monotonic seq, unique ids and
// losslessness.
func CheckEvents(source SourceKind, recs []Record, evs []Event) []Violation {
	var out []Violation
	bad := func(inv string, e *Event, format string, args ...any) {
		out = append(out, Violation{Invariant: inv, Line: e.Provenance.Line, EventID: e.EventID, Detail: fmt.Sprintf(format, args...)})
	}
	byOffset := map[int64]int{} // record offset → index
	for i, r := range recs {
		byOffset[r.Offset] = i
	}
	lastSeq := map[string]uint64{}
	ids := map[string]bool{}
	covered := make([]int, len(recs))
	lastRec := -1
	closed := map[int]bool{}
	for i := range evs {
		e := &evs[i]
		if e.SchemaVersion != SchemaVersion {
			bad(InvWellFormed, e, "schema_version %d, want %d", e.SchemaVersion, SchemaVersion)
		}
		if e.Source != source {
			bad(InvWellFormed, e, "source %q, want %q", e.Source, source)
		}
		if k, n := e.payloadKind(); n != 1 || k != e.Kind {
			bad(InvWellFormed, e, "kind %q with %d payloads (%q)", e.Kind, n, k)
		}
		checkPayload(e, bad)
		if s, ok := lastSeq[e.SessionID]; ok && e.Seq <= s {
			bad(InvMonotonicSeq, e, "seq %d after %d in session %q", e.Seq, s, e.SessionID)
		}
		lastSeq[e.SessionID] = e.Seq
		switch {
		case e.EventID == "":
			bad(InvUniqueIDs, e, "no event id")
		case ids[e.EventID]:
			bad(InvUniqueIDs, e, "event id used twice")
		}
		ids[e.EventID] = true
		ri, ok := byOffset[e.Provenance.Offset]
		switch {
		case !ok && e.Unknown != nil && e.Unknown.Reason == ReasonTooLarge:
		case !ok:
			bad(InvLossless, e, "provenance offset %d is not the start of a record", e.Provenance.Offset)
		case e.Provenance.Length != len(recs[ri].Data) || e.Provenance.Line != recs[ri].Line:
			bad(InvLossless, e, "provenance length %d line %d, the record's are %d and %d", e.Provenance.Length, e.Provenance.Line, len(recs[ri].Data), recs[ri].Line)
		default:
			covered[ri]++
			if ri != lastRec {
				if closed[ri] {
					bad(InvLossless, e, "the events of the record at line %d are not together", recs[ri].Line)
				}
				closed[lastRec] = true
				lastRec = ri
			}
		}
	}
	for i, n := range covered {
		if n == 0 {
			out = append(out, Violation{Invariant: InvLossless, Line: recs[i].Line, Detail: fmt.Sprintf("the record at byte %d gave no event", recs[i].Offset)})
		}
	}
	return out
}

var validReasons = map[string]bool{ReasonUnmapped: true, ReasonUnrecognized: true, ReasonMalformed: true,
	ReasonDuplicate: true, ReasonTooLarge: true, ReasonParserError: true}

func checkPayload(e *Event, bad func(string, *Event, string, ...any)) {
	switch {
	case e.FileEdit != nil:
		f := e.FileEdit
		if f.Path == "" {
			bad(InvWellFormed, e, "file_edit without a path")
		}
		if f.Op != OpCreate && f.Op != OpUpdate && f.Op != OpDelete && f.Op != OpMove {
			bad(InvWellFormed, e, "file_edit op %q", f.Op)
		}
		if f.From != FromToolPatch && f.From != FromContent && f.From != FromInput {
			bad(InvWellFormed, e, "file_edit from %q", f.From)
		}
		_, _, hs, err := ParseUnified(f.Unified)
		if err != nil {
			bad(InvWellFormed, e, "file_edit diff: %v", err)
			return
		}
		if a, r := CountChanges(hs); a != f.Added || r != f.Removed {
			bad(InvWellFormed, e, "file_edit counts +%d -%d, the diff has +%d -%d", f.Added, f.Removed, a, r)
		}
	case e.Unknown != nil:
		u := e.Unknown
		if u.Reason == ReasonParserError {
			bad(InvNoPanic, e, "the adapter panicked on this record")
		}
		if !validReasons[u.Reason] {
			bad(InvWellFormed, e, "unknown reason %q", u.Reason)
		}
		n := 0
		for _, set := range []bool{len(u.Raw) > 0, u.Text != "", len(u.Bytes) > 0} {
			if set {
				n++
			}
		}
		if n > 1 || n == 0 && u.Reason != ReasonTooLarge {
			bad(InvWellFormed, e, "unknown event holds the record %d ways", n)
		}
	}
}
