// Package otlpserver is cortex's OTLP receiver: an http.Handler that takes
// OpenTelemetry exports over OTLP/HTTP (binary protobuf or JSON, gzip or
// not) from coding agents whose telemetry is pointed at it, decodes their
// log records (transcript/otlp) and appends them, one JSON object a line,
// to <dir>/<service>/<session>.jsonl, where the otlp adapter reads them as
// transcripts.
//
// It never blocks a sender: a request is answered once its records are
// queued, and a request that does not fit (too many requests decoding at
// once, or the queue full) is refused at once with 503 and Retry-After,
// which OTLP exporters retry. Memory is bounded by the body limit times
// the requests decoded at once, plus the queue's bytes. Nothing accepted is
// lost: Close writes everything queued before it returns.
package otlpserver

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cortexmem/cortex/transcript/otlp"
)

// Defaults of Options.
const (
	DefaultMaxBody    = 16 << 20
	DefaultQueueBytes = 64 << 20
	DefaultDecoders   = 4
)

// The paths of OTLP/HTTP's three signals.
const (
	PathLogs    = "/v1/logs"
	PathTraces  = "/v1/traces"
	PathMetrics = "/v1/metrics"
)

// Options configure a Server.
type Options struct {
	// Dir is where records are kept (<Dir>/<service>/<session>.jsonl).
	Dir string
	// MaxBody is the largest body accepted, in bytes, after gzip is
	// undone; a larger one is refused with 413. DefaultMaxBody when 0.
	MaxBody int64
	// QueueBytes bounds the records waiting to be written, in bytes of
	// their lines; a request that would pass it is refused with 503.
	// DefaultQueueBytes when 0.
	QueueBytes int64
	// Decoders bounds the requests read and decoded at once; one more is
	// refused with 503. DefaultDecoders when 0.
	Decoders int
	// Logf, when set, is told of what goes wrong writing.
	Logf func(format string, args ...any)
}

// Stats are what a Server did.
type Stats struct {
	// Requests answered 200 on /v1/logs, and the records they held.
	Requests, Records int64
	// Stored are the records written; Failed, those a write error lost.
	Stored, Failed int64
	// Discarded are the requests of the traces and metrics signals:
	// accepted, so an exporter pointed at the whole endpoint does not
	// fail, and not kept.
	Discarded int64
	// Refused are the requests answered 4xx or 5xx.
	Refused int64
}

// Server receives OTLP/HTTP exports. Its methods are safe for concurrent
// use.
type Server struct {
	opts     Options
	decoders chan struct{}

	mu      sync.Mutex
	queue   []batch
	queued  int64 // bytes of the lines in queue
	closed  bool
	stats   Stats
	wake    chan struct{}
	done    chan struct{}
	flushed *sync.Cond // signalled after each write of the queue
	writing bool

	// hold, when not nil, keeps the writer from taking the queue until it
	// is closed: the tests fill the queue with it.
	hold chan struct{}
}

// batch is one request's records: lines by file, in order.
type batch struct {
	files []string
	lines [][]byte
	size  int64
}

// New returns a Server writing below opts.Dir and starts its writer; Close
// stops it.
func New(opts Options) *Server { return newServer(opts, nil) }

func newServer(opts Options, hold chan struct{}) *Server {
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.QueueBytes <= 0 {
		opts.QueueBytes = DefaultQueueBytes
	}
	if opts.Decoders <= 0 {
		opts.Decoders = DefaultDecoders
	}
	s := &Server{opts: opts, decoders: make(chan struct{}, opts.Decoders), wake: make(chan struct{}, 1), done: make(chan struct{}), hold: hold}
	s.flushed = sync.NewCond(&s.mu)
	go s.writer()
	return s
}

// Stats returns what the server did so far.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Close refuses further requests, writes every record queued and returns
// once they are written.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		<-s.done
		return
	}
	s.closed = true
	s.mu.Unlock()
	s.signal()
	<-s.done
}

// Flush waits until every record queued so far is written.
func (s *Server) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for (len(s.queue) > 0 || s.writing) && !s.closedAndDrained() {
		s.flushed.Wait()
	}
}

func (s *Server) closedAndDrained() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func (s *Server) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// ServeHTTP answers one export.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	mt, mtErr := otlp.MediaType(r.Header.Get("Content-Type"))
	reply := mt
	if reply == "" {
		reply = otlp.ContentJSON
	}
	switch r.URL.Path {
	case PathLogs, PathTraces, PathMetrics:
	default:
		s.fail(w, reply, http.StatusNotFound, fmt.Sprintf("no such path %q: cortex receives OTLP/HTTP logs at %s", r.URL.Path, PathLogs))
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		s.fail(w, reply, http.StatusMethodNotAllowed, fmt.Sprintf("method %s: OTLP/HTTP exports are POSTed", r.Method))
		return
	}
	if mtErr != nil {
		// A browser's form post cannot send these types without a
		// preflight, which this server never answers: a web page cannot
		// write here.
		s.fail(w, reply, http.StatusUnsupportedMediaType, mtErr.Error())
		return
	}
	if r.ContentLength > s.opts.MaxBody {
		s.fail(w, reply, http.StatusRequestEntityTooLarge, s.tooLarge())
		return
	}
	select {
	case s.decoders <- struct{}{}:
		defer func() { <-s.decoders }()
	default:
		w.Header().Set("Retry-After", "1")
		s.fail(w, reply, http.StatusServiceUnavailable, "busy: too many exports being read at once; retry")
		return
	}
	body, status, err := s.read(w, r)
	if err != nil {
		s.fail(w, reply, status, err.Error())
		return
	}
	if r.URL.Path != PathLogs {
		s.mu.Lock()
		s.stats.Discarded++
		s.mu.Unlock()
		s.ok(w, mt)
		return
	}
	recs, err := otlp.DecodeLogs(body, mt)
	if err != nil {
		s.fail(w, reply, http.StatusBadRequest, err.Error())
		return
	}
	b := batch{}
	for i := range recs {
		line, err := json.Marshal(&recs[i])
		if err != nil { // cannot happen: every member is plain data
			s.fail(w, reply, http.StatusBadRequest, fmt.Sprintf("record %d: %v", i, err))
			return
		}
		line = append(line, '\n')
		b.files = append(b.files, filepath.Join(FileName(recs[i].Service, "unknown-service"), FileName(recs[i].Session, "no-session")+".jsonl"))
		b.lines = append(b.lines, line)
		b.size += int64(len(line))
	}
	switch err := s.enqueue(b); {
	case errors.Is(err, errClosed):
		s.fail(w, reply, http.StatusServiceUnavailable, "shutting down; retry")
		return
	case err != nil:
		w.Header().Set("Retry-After", "1")
		s.fail(w, reply, http.StatusServiceUnavailable, err.Error())
		return
	}
	s.ok(w, mt)
}

var (
	errClosed = errors.New("closed")
	errFull   = errors.New("busy: the queue of records to write is full; retry")
)

func (s *Server) enqueue(b batch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return errClosed
	case s.queued+b.size > s.opts.QueueBytes && s.queued > 0:
		// A batch larger than the whole bound still goes into an empty
		// queue: the body limit bounds it.
		return errFull
	}
	s.stats.Requests++
	s.stats.Records += int64(len(b.lines))
	if len(b.lines) > 0 {
		s.queue = append(s.queue, b)
		s.queued += b.size
		s.signal()
	}
	return nil
}

func (s *Server) tooLarge() string {
	return fmt.Sprintf("body larger than %d bytes (--max-body)", s.opts.MaxBody)
}

// read reads the body, gzip undone, up to the limit.
func (s *Server) read(w http.ResponseWriter, r *http.Request) ([]byte, int, error) {
	var in io.Reader = http.MaxBytesReader(w, r.Body, s.opts.MaxBody)
	switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(in)
		if err != nil {
			return nil, s.bodyStatus(err), fmt.Errorf("gzip body: %w", err)
		}
		in = zr
	default:
		return nil, http.StatusUnsupportedMediaType, fmt.Errorf("Content-Encoding %q: cortex reads gzip or none", enc)
	}
	body, err := io.ReadAll(io.LimitReader(in, s.opts.MaxBody+1))
	if err != nil {
		return nil, s.bodyStatus(err), fmt.Errorf("reading the body: %w", err)
	}
	if int64(len(body)) > s.opts.MaxBody {
		return nil, http.StatusRequestEntityTooLarge, errors.New(s.tooLarge())
	}
	return body, 0, nil
}

func (s *Server) bodyStatus(err error) int {
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusBadRequest
}

// ok answers a success: an empty Export…ServiceResponse in the request's
// encoding.
func (s *Server) ok(w http.ResponseWriter, mt string) {
	w.Header().Set("Content-Type", mt)
	w.WriteHeader(http.StatusOK)
	if mt == otlp.ContentJSON {
		io.WriteString(w, "{}")
	}
}

// fail answers an error with a google.rpc.Status in the request's
// encoding, as OTLP/HTTP asks.
func (s *Server) fail(w http.ResponseWriter, mt string, status int, msg string) {
	if status == http.StatusRequestEntityTooLarge {
		msg = s.tooLarge()
	}
	s.mu.Lock()
	s.stats.Refused++
	s.mu.Unlock()
	code := 3 // INVALID_ARGUMENT
	switch status {
	case http.StatusServiceUnavailable:
		code = 14 // UNAVAILABLE
	case http.StatusNotFound:
		code = 5 // NOT_FOUND
	case http.StatusMethodNotAllowed, http.StatusUnsupportedMediaType:
		code = 12 // UNIMPLEMENTED
	case http.StatusRequestEntityTooLarge:
		code = 8 // RESOURCE_EXHAUSTED
	}
	w.Header().Set("Content-Type", mt)
	w.WriteHeader(status)
	if mt == otlp.ContentProtobuf {
		// A google.rpc.Status: code (field 1, varint), message (field 2,
		// bytes). Written by hand: the protobuf runtime's initialisation
		// would cost every start of the program. A tag is the field number
		// shifted left by three, then the wire type (0 varint, 2 bytes).
		const codeTag, messageTag = 1 << 3, 2<<3 | 2
		b := []byte{codeTag}
		b = binary.AppendUvarint(b, uint64(code))
		b = append(b, messageTag)
		b = binary.AppendUvarint(b, uint64(len(msg)))
		b = append(b, msg...)
		w.Write(b)
		return
	}
	out, _ := json.Marshal(map[string]any{"code": code, "message": msg})
	w.Write(out)
}

// writer appends the queued records to their files until Close.
func (s *Server) writer() {
	defer close(s.done)
	for {
		if s.hold != nil {
			<-s.hold
		}
		s.mu.Lock()
		q, closed := s.queue, s.closed
		s.queue, s.queued = nil, 0
		s.writing = len(q) > 0
		s.mu.Unlock()
		if len(q) > 0 {
			s.write(q)
			s.mu.Lock()
			s.writing = false
			s.flushed.Broadcast()
			s.mu.Unlock()
			continue
		}
		if closed {
			s.mu.Lock()
			s.flushed.Broadcast()
			s.mu.Unlock()
			return
		}
		<-s.wake
	}
}

// write appends the batches' lines, in order, one write per file.
func (s *Server) write(q []batch) {
	var order []string
	byFile := map[string][]byte{}
	counts := map[string]int64{}
	for _, b := range q {
		for i, f := range b.files {
			if _, ok := byFile[f]; !ok {
				order = append(order, f)
			}
			byFile[f] = append(byFile[f], b.lines[i]...)
			counts[f]++
		}
	}
	for _, f := range order {
		err := appendFile(filepath.Join(s.opts.Dir, f), byFile[f])
		s.mu.Lock()
		if err != nil {
			s.stats.Failed += counts[f]
		} else {
			s.stats.Stored += counts[f]
		}
		s.mu.Unlock()
		if err != nil && s.opts.Logf != nil {
			s.opts.Logf("otlp: %d records not kept: %v", counts[f], err)
		}
	}
}

// appendFile appends data to path in one write, making its folder.
func appendFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// FileName turns a service's or a session's name into a file name: the
// characters [A-Za-z0-9._-] kept, others replaced by "-", at most 80 of
// them; a name changed so gets a hash of itself appended, so two names
// never share a file. An empty name is empty.
func FileName(name, empty string) string {
	if name == "" {
		return empty
	}
	var b strings.Builder
	changed := false
	for i, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || (c == '.' && i > 0)
		if !ok {
			c, changed = '-', true
		}
		if b.Len() >= 80 {
			changed = true
			break
		}
		b.WriteRune(c)
	}
	out := b.String()
	if changed {
		sum := sha256.Sum256([]byte(name))
		out += "-" + hex.EncodeToString(sum[:])[:12]
	}
	return out
}
