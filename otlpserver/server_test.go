package otlpserver

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/cortexmem/cortex/transcript/otlp"
)

const fixtureDir = "../fixtures/otlp/hand-made"

func fixture(t testing.TB, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtureDir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// protobufOf is an OTLP/JSON request in binary protobuf, as an exporter set
// to http/protobuf sends it (ids read as the hex OTLP/JSON writes).
func protobufOf(t testing.TB, data []byte) []byte {
	t.Helper()
	var req logspb.LogsData
	if err := protojson.Unmarshal(data, &req); err != nil {
		t.Fatal(err)
	}
	for _, rl := range req.ResourceLogs {
		for _, sl := range rl.ScopeLogs {
			for _, lr := range sl.LogRecords {
				for _, id := range []*[]byte{&lr.TraceId, &lr.SpanId} {
					if len(*id) > 0 {
						h, err := hex.DecodeString(base64.StdEncoding.EncodeToString(*id))
						if err != nil {
							t.Fatal(err)
						}
						*id = h
					}
				}
			}
		}
	}
	out, err := proto.Marshal(&req)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func gzipped(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// post sends body to the server's path and returns the status, the
// response's content type and body.
func post(t testing.TB, url, path, contentType, encoding string, body io.Reader) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if encoding != "" {
		req.Header.Set("Content-Encoding", encoding)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), out
}

func start(t *testing.T, opts Options, hold chan struct{}) (*Server, string) {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	s := newServer(opts, hold)
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		ts.Close()
		if hold != nil {
			select {
			case <-hold:
			default:
				close(hold)
			}
		}
		s.Close()
	})
	return s, ts.URL
}

// TestExport posts the fixtures' real-shaped exports — Claude Code's as
// JSON, Codex's as protobuf, Gemini CLI's as gzipped protobuf — and finds
// each session's records in <dir>/<service>/<session>.jsonl, the same
// lines the decoder's golden files hold; the answers are OTLP's empty
// responses in the request's encoding.
func TestExport(t *testing.T) {
	dir := t.TempDir()
	s, url := start(t, Options{Dir: dir}, nil)
	tests := []struct {
		name, contentType, encoding string
		body                        []byte
		file                        string
		wantBody                    string
	}{
		{"claude-code", otlp.ContentJSON, "", fixture(t, "requests/claude-code.json"), "claude-code/7d2a9c1e-5b3f-4e8a-9c0d-1e2f3a4b5c6d.jsonl", "{}"},
		{"codex", otlp.ContentProtobuf, "", protobufOf(t, fixture(t, "requests/codex.json")), "codex_cli_rs/019a4c2e-8f10-7c3d-9e2a-5b6c7d8e9f01.jsonl", ""},
		{"gemini-cli", otlp.ContentProtobuf, "gzip", gzipped(t, protobufOf(t, fixture(t, "requests/gemini-cli.json"))), "gemini-cli/c3f1e2d4-0a9b-4c8d-8e7f-6a5b4c3d2e1f.jsonl", ""},
	}
	for _, tt := range tests {
		status, ct, body := post(t, url, PathLogs, tt.contentType, tt.encoding, bytes.NewReader(tt.body))
		if status != http.StatusOK || ct != tt.contentType || string(body) != tt.wantBody {
			t.Fatalf("%s: %d %s %q", tt.name, status, ct, body)
		}
	}
	s.Flush()
	for _, tt := range tests {
		got, err := os.ReadFile(filepath.Join(dir, tt.file))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(fixture(t, "sessions/"+tt.name+".jsonl")), string(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.file, diff)
		}
	}
	// A second export of a session appends to its file.
	post(t, url, PathLogs, otlp.ContentJSON, "", bytes.NewReader(fixture(t, "requests/claude-code.json")))
	s.Flush()
	got, _ := os.ReadFile(filepath.Join(dir, tests[0].file))
	if want := strings.Repeat(string(fixture(t, "sessions/claude-code.jsonl")), 2); string(got) != want {
		t.Errorf("second export not appended: %d bytes, want %d", len(got), len(want))
	}
	if st := s.Stats(); st.Requests != 4 || st.Records != 24 || st.Stored != 24 || st.Refused != 0 {
		t.Errorf("stats %+v", st)
	}
}

// status decodes an error answer's google.rpc.Status.
func status(t *testing.T, contentType string, body []byte) (int64, string) {
	t.Helper()
	if contentType == otlp.ContentJSON {
		var st struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal(body, &st); err != nil {
			t.Fatalf("status %q: %v", body, err)
		}
		return st.Code, st.Message
	}
	var code int64
	var msg string
	for len(body) > 0 {
		num, typ, n := protowire.ConsumeTag(body)
		if n < 0 {
			t.Fatalf("status %q", body)
		}
		body = body[n:]
		switch {
		case num == 1 && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(body)
			code, body = int64(v), body[n:]
		case num == 2 && typ == protowire.BytesType:
			v, n := protowire.ConsumeString(body)
			msg, body = v, body[n:]
		default:
			t.Fatalf("status field %d", num)
		}
	}
	return code, msg
}

// TestRefused: what is not an OTLP logs export is refused with the HTTP
// status OTLP/HTTP gives it and a google.rpc.Status saying why, in the
// request's encoding; nothing is written; the server goes on serving.
func TestRefused(t *testing.T) {
	dir := t.TempDir()
	s, url := start(t, Options{Dir: dir, MaxBody: 1 << 20}, nil)
	tests := []struct {
		name, method, path, contentType, encoding string
		body                                      []byte
		want                                      int
		code                                      int64
		msg                                       string
	}{
		{"malformed JSON", "POST", PathLogs, otlp.ContentJSON, "", []byte(`{"resourceLogs":[{"scopeLogs":`), 400, 3, "malformed export request: JSON"},
		{"malformed protobuf", "POST", PathLogs, otlp.ContentProtobuf, "", []byte("\x0a\xff\xff\xff\xff\x0f"), 400, 3, "malformed export request: protobuf"},
		{"not gzip", "POST", PathLogs, otlp.ContentJSON, "gzip", []byte("{}"), 400, 3, "gzip body"},
		{"other encoding", "POST", PathLogs, otlp.ContentJSON, "br", []byte("{}"), 415, 12, `Content-Encoding "br"`},
		{"form post", "POST", PathLogs, "application/x-www-form-urlencoded", "", []byte("a=b"), 415, 12, "unsupported content type"},
		{"no type", "POST", PathLogs, "", "", []byte("{}"), 415, 12, "no Content-Type"},
		{"GET", "GET", PathLogs, otlp.ContentJSON, "", nil, 405, 12, "method GET"},
		{"other path", "POST", "/v1/profiles", otlp.ContentJSON, "", []byte("{}"), 404, 5, `no such path "/v1/profiles"`},
		{"gzip bomb", "POST", PathLogs, otlp.ContentJSON, "gzip", gzipped(t, bytes.Repeat([]byte(" "), 2<<20)), 413, 8, "body larger than 1048576 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, url+tt.path, bytes.NewReader(tt.body))
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			if tt.encoding != "" {
				req.Header.Set("Content-Encoding", tt.encoding)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.want, body)
			}
			code, msg := status(t, resp.Header.Get("Content-Type"), body)
			if code != tt.code || !strings.Contains(msg, tt.msg) {
				t.Errorf("status {%d %q}, want {%d …%q…}", code, msg, tt.code, tt.msg)
			}
		})
	}
	s.Flush()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("refused requests wrote %v", entries)
	}
	if status, _, _ := post(t, url, PathLogs, otlp.ContentJSON, "", bytes.NewReader(fixture(t, "requests/codex.json"))); status != 200 {
		t.Errorf("after the refusals, a good export gets %d", status)
	}
}

// TestTooLarge: a 100 MB export is refused with 413 before its body is
// read, and so is one of unknown length once it passes the limit.
func TestTooLarge(t *testing.T) {
	_, url := start(t, Options{}, nil)
	const size = 100 << 20
	req, _ := http.NewRequest(http.MethodPost, url+PathLogs, io.LimitReader(zeros{}, size))
	req.ContentLength = size
	req.Header.Set("Content-Type", otlp.ContentProtobuf)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("100 MB with its length: %d", resp.StatusCode)
	}
	// Chunked: no length to refuse it by; the limit stops the reading.
	pr, pw := io.Pipe()
	go func() {
		io.Copy(pw, io.LimitReader(zeros{}, DefaultMaxBody+1<<20))
		pw.Close()
	}()
	status, ct, body := post(t, url, PathLogs, otlp.ContentProtobuf, "", pr)
	pr.Close()
	if status != http.StatusRequestEntityTooLarge || ct != otlp.ContentProtobuf {
		t.Fatalf("chunked past the limit: %d %s", status, ct)
	}
	if _, msg := statusOf(body); !strings.Contains(msg, fmt.Sprint(DefaultMaxBody)) {
		t.Errorf("message %q does not give the limit", msg)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func statusOf(body []byte) (int64, string) {
	var code int64
	var msg string
	for len(body) > 0 {
		num, typ, n := protowire.ConsumeTag(body)
		if n < 0 {
			return code, msg
		}
		body = body[n:]
		n = protowire.ConsumeFieldValue(num, typ, body)
		if n < 0 {
			return code, msg
		}
		switch num {
		case 1:
			v, _ := protowire.ConsumeVarint(body)
			code = int64(v)
		case 2:
			msg, _ = protowire.ConsumeString(body)
		}
		body = body[n:]
	}
	return code, msg
}

// TestFlood: with the writer stalled, exports are accepted until the
// queue's bound and refused past it with 503 and Retry-After, at once
// (the sender never waits on the disk); once the writer runs, every
// accepted record is written, and the senders' retries of the refused
// ones are accepted: nothing below the bound is lost.
func TestFlood(t *testing.T) {
	dir := t.TempDir()
	one := fixture(t, "requests/codex.json")
	recs, err := otlp.DecodeLogs(one, otlp.ContentJSON)
	if err != nil {
		t.Fatal(err)
	}
	lineBytes := int64(len(fixture(t, "sessions/codex.jsonl")))
	hold := make(chan struct{})
	s, url := start(t, Options{Dir: dir, QueueBytes: 10 * lineBytes, Decoders: 64}, hold)
	const senders = 40
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		accepted int
		refused  []int
	)
	for i := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodPost, url+PathLogs, bytes.NewReader(one))
			req.Header.Set("Content-Type", otlp.ContentJSON)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			mu.Lock()
			defer mu.Unlock()
			switch resp.StatusCode {
			case http.StatusOK:
				accepted++
			case http.StatusServiceUnavailable:
				if resp.Header.Get("Retry-After") == "" {
					t.Error("503 without Retry-After")
				}
				refused = append(refused, i)
			default:
				t.Errorf("status %d", resp.StatusCode)
			}
		}()
	}
	wg.Wait()
	if accepted != 10 || len(refused) != senders-10 {
		t.Fatalf("with the writer stalled: %d accepted, %d refused; want 10 and %d", accepted, len(refused), senders-10)
	}
	close(hold)
	s.Flush()
	for range refused { // the exporters' retries, each until accepted
		for attempt := 0; ; attempt++ {
			status, _, body := post(t, url, PathLogs, otlp.ContentJSON, "", bytes.NewReader(one))
			if status == http.StatusOK {
				break
			}
			if status != http.StatusServiceUnavailable || attempt == 100 {
				t.Fatalf("retry %d: %d %s", attempt, status, body)
			}
			s.Flush() // as Retry-After: the writer catches up
		}
	}
	s.Close()
	got, err := os.ReadFile(filepath.Join(dir, "codex_cli_rs", "019a4c2e-8f10-7c3d-9e2a-5b6c7d8e9f01.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(got, []byte("\n")); n != senders*len(recs) {
		t.Errorf("%d records written, want %d", n, senders*len(recs))
	}
	if st := s.Stats(); st.Stored != int64(senders*len(recs)) || st.Requests != senders || st.Failed != 0 {
		t.Errorf("stats %+v", st)
	}
}

// TestBusyDecoders: past the requests being read at once, one more is
// refused at once rather than queued behind them.
func TestBusyDecoders(t *testing.T) {
	s, url := start(t, Options{Decoders: 1}, nil)
	pr, pw := io.Pipe()
	done := make(chan int)
	go func() {
		status, _, _ := post(t, url, PathLogs, otlp.ContentJSON, "", pr)
		done <- status
	}()
	pw.Write([]byte(`{"resourceLogs":[`)) // the first request is being read
	// Only once the first request holds the one decoder is a second one
	// sure to find it busy (the client may still be connecting).
	for deadline := time.Now().Add(10 * time.Second); len(s.decoders) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first request never took the decoder")
		}
	}
	var status int
	for range 100 {
		if status, _, _ = post(t, url, PathLogs, otlp.ContentJSON, "", strings.NewReader("{}")); status == http.StatusServiceUnavailable {
			break
		}
	}
	if status != http.StatusServiceUnavailable {
		t.Errorf("second request while the first is read: %d", status)
	}
	pw.Write([]byte(`]}`))
	pw.Close()
	if s := <-done; s != http.StatusOK {
		t.Errorf("first request: %d", s)
	}
}

// TestOtherSignals: traces and metrics are answered 200 and not kept, so
// an exporter pointed at the whole endpoint does not fail.
func TestOtherSignals(t *testing.T) {
	dir := t.TempDir()
	s, url := start(t, Options{Dir: dir}, nil)
	for _, p := range []string{PathTraces, PathMetrics} {
		if status, ct, body := post(t, url, p, otlp.ContentJSON, "", strings.NewReader(`{"resourceSpans":[]}`)); status != 200 || ct != otlp.ContentJSON || string(body) != "{}" {
			t.Errorf("%s: %d %s %q", p, status, ct, body)
		}
	}
	s.Flush()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("wrote %v", entries)
	}
	if st := s.Stats(); st.Discarded != 2 || st.Records != 0 {
		t.Errorf("stats %+v", st)
	}
}

// TestFileName: a service's or session's name becomes one file name, never
// a path, and two names never share one.
func TestFileName(t *testing.T) {
	for in, want := range map[string]string{
		"claude-code":            "claude-code",
		"019a4c2e-8f10.7c3":      "019a4c2e-8f10.7c3",
		"":                       "empty",
		"../../etc/passwd":       "-.-..-etc-passwd-",
		".hidden":                "-hidden-",
		"a/b":                    "a-b-",
		strings.Repeat("x", 100): strings.Repeat("x", 80) + "-",
	} {
		got := FileName(in, "empty")
		if !strings.HasPrefix(got, want) || strings.ContainsAny(got, `/\`) || (want != got && len(got) != len(want)+12) {
			t.Errorf("FileName(%q) = %q, want %q…", in, got, want)
		}
	}
	if FileName("a/b", "") == FileName("a?b", "") {
		t.Error("two names share a file")
	}
}

// TestCloseDrains: Close writes what was queued, and refuses what comes
// after with 503.
func TestCloseDrains(t *testing.T) {
	dir := t.TempDir()
	hold := make(chan struct{})
	s := newServer(Options{Dir: dir}, hold)
	ts := httptest.NewServer(s)
	defer ts.Close()
	if status, _, _ := post(t, ts.URL, PathLogs, otlp.ContentJSON, "", bytes.NewReader(fixture(t, "requests/gemini-cli.json"))); status != 200 {
		t.Fatal(status)
	}
	close(hold)
	s.Close()
	if got, _ := os.ReadFile(filepath.Join(dir, "gemini-cli", "c3f1e2d4-0a9b-4c8d-8e7f-6a5b4c3d2e1f.jsonl")); !bytes.Equal(got, fixture(t, "sessions/gemini-cli.jsonl")) {
		t.Errorf("after Close: %q", got)
	}
	if status, _, _ := post(t, ts.URL, PathLogs, otlp.ContentJSON, "", bytes.NewReader(fixture(t, "requests/gemini-cli.json"))); status != http.StatusServiceUnavailable {
		t.Errorf("after Close: %d", status)
	}
}
