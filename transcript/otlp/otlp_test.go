package otlp

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/cortexmem/cortex/internal/golden"
)

const fixtureDir = "../../fixtures/otlp/hand-made"

// requests are the OTLP/JSON export requests of the fixtures, by name.
func requests(t testing.TB) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(fixtureDir, "requests", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no requests in %s: %v", fixtureDir, err)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(p), ".json")] = data
	}
	return out
}

// ToProtobuf turns an OTLP/JSON request into the same request in binary
// protobuf, as an exporter set to http/protobuf sends it (ids read as the
// hex OTLP/JSON writes them).
func toProtobuf(t testing.TB, data []byte) []byte {
	t.Helper()
	var req logspb.LogsData
	if err := protojson.Unmarshal(data, &req); err != nil {
		t.Fatal(err)
	}
	unhex := func(b []byte) []byte {
		if len(b) == 0 {
			return nil
		}
		h, err := hex.DecodeString(base64.StdEncoding.EncodeToString(b))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	for _, rl := range req.ResourceLogs {
		for _, sl := range rl.ScopeLogs {
			for _, lr := range sl.LogRecords {
				lr.TraceId, lr.SpanId = unhex(lr.TraceId), unhex(lr.SpanId)
			}
		}
	}
	out, err := proto.Marshal(&req)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func lines(t testing.TB, recs []Record) []byte {
	t.Helper()
	var b bytes.Buffer
	for i := range recs {
		line, err := json.Marshal(&recs[i])
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TestDecodeFixtures decodes each fixture request, sent as JSON and as
// protobuf: both give the same records, which are the records kept for the
// adapter's fixtures (sessions/<name>.jsonl; -update rewrites them).
func TestDecodeFixtures(t *testing.T) {
	for name, data := range requests(t) {
		t.Run(name, func(t *testing.T) {
			fromJSON, err := DecodeLogs(data, ContentJSON)
			if err != nil {
				t.Fatal(err)
			}
			fromProto, err := DecodeLogs(toProtobuf(t, data), ContentProtobuf)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(fromJSON, fromProto); diff != "" {
				t.Errorf("JSON and protobuf differ (-json +protobuf):\n%s", diff)
			}
			golden.Check(t, filepath.Join(fixtureDir, "sessions", name+".jsonl"), lines(t, fromJSON))
		})
	}
}

// TestDecodeFields checks what a record keeps of a log record: the times,
// the event name from each place an agent puts it, the session from the
// attributes or else the resource, the ids as hex, every kind of value.
func TestDecodeFields(t *testing.T) {
	str := func(s string) *commonpb.AnyValue {
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: s}}
	}
	kv := func(k string, v *commonpb.AnyValue) *commonpb.KeyValue { return &commonpb.KeyValue{Key: k, Value: v} }
	deep := str("bottom")
	for range maxDepth + 5 {
		deep = &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: []*commonpb.AnyValue{deep}}}}
	}
	req := &logspb.LogsData{ResourceLogs: []*logspb.ResourceLogs{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{kv("service.name", str("agent")), kv("conversation.id", str("res-session"))}},
		ScopeLogs: []*logspb.ScopeLogs{{LogRecords: []*logspb.LogRecord{
			{EventName: "agent.first", Body: str("agent.second"), TimeUnixNano: 1, TraceId: []byte{0xab, 0x01}, SpanId: []byte{0xff},
				Attributes: []*commonpb.KeyValue{kv("event.name", str("third")), kv("session.id", str("attr-session"))}},
			{Body: str("agent.second"), Attributes: []*commonpb.KeyValue{kv("event.name", str("third"))}},
			{Body: str("a sentence. not a name"), ObservedTimeUnixNano: 2_000_000_001, Attributes: []*commonpb.KeyValue{
				kv("event.name", str("agent.third")),
				kv("n", &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: -7}}),
				kv("f", &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: math.Inf(1)}}),
				kv("b", &commonpb.AnyValue{Value: &commonpb.AnyValue_BytesValue{BytesValue: []byte("hi")}}),
				kv("t", &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: true}}),
				kv("m", &commonpb.AnyValue{Value: &commonpb.AnyValue_KvlistValue{KvlistValue: &commonpb.KeyValueList{Values: []*commonpb.KeyValue{kv("z", str("1")), kv("a", nil)}}}}),
				kv("dup", str("first")), kv("dup", str("last")),
				kv("deep", deep),
			}},
		}}},
	}}}
	data, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := DecodeLogs(data, ContentProtobuf)
	if err != nil {
		t.Fatal(err)
	}
	type got struct{ Event, Session, Time, Observed, Trace, Span string }
	var gots []got
	for _, r := range recs {
		gots = append(gots, got{r.Event, r.Session, r.Time, r.ObservedTime, r.TraceID, r.SpanID})
	}
	want := []got{
		{"agent.first", "attr-session", "1970-01-01T00:00:00.000000001Z", "", "ab01", "ff"},
		{"agent.second", "res-session", "", "", "", ""},
		{"agent.third", "res-session", "", "1970-01-01T00:00:02.000000001Z", "", ""},
	}
	if diff := cmp.Diff(want, gots); diff != "" {
		t.Fatalf("records (-want +got):\n%s", diff)
	}
	attrs := recs[2].Attributes
	for k, w := range map[string]string{"n": `-7`, "f": `"+Inf"`, "b": `"aGk="`, "t": `true`, "m": `{"a":null,"z":"1"}`, "dup": `"last"`} {
		if string(attrs[k]) != w {
			t.Errorf("attribute %s = %s, want %s", k, attrs[k], w)
		}
	}
	if d := string(attrs["deep"]); strings.Count(d, "[") != maxDepth || !strings.Contains(d, "nested too deeply") {
		t.Errorf("deep value not cut at %d levels: %s", maxDepth, d)
	}
	if !json.Valid(lines(t, recs)[:bytes.IndexByte(lines(t, recs), '\n')]) {
		t.Error("a record is not valid JSON")
	}
}

// TestDecodeErrors: bodies that are not export requests are refused with
// an error that says which encoding failed; an empty request is no error.
func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, mediaType, body string
		want                  error
		msg                   string
	}{
		{"JSON not JSON", ContentJSON, `{"resourceLogs":[`, ErrMalformed, "JSON"},
		{"JSON wrong shape", ContentJSON, `{"resourceLogs":{"a":1}}`, ErrMalformed, "JSON"},
		{"JSON bad id", ContentJSON, `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"xyz!"}]}]}]}`, ErrMalformed, "JSON"},
		{"protobuf garbage", ContentProtobuf, "\x0a\xff\xff\xff\xff\x0f", ErrMalformed, "protobuf"},
		{"other type", "text/plain", "hello", ErrUnsupportedType, `"text/plain"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := DecodeLogs([]byte(tt.body), tt.mediaType)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) || recs != nil {
				t.Fatalf("got %v, %v; want %v mentioning %s", recs, err, tt.want, tt.msg)
			}
		})
	}
	for _, mt := range []string{ContentJSON, ContentProtobuf} {
		body := ""
		if mt == ContentJSON {
			body = "{}"
		}
		if recs, err := DecodeLogs([]byte(body), mt); err != nil || len(recs) != 0 {
			t.Errorf("%s: empty request gives %v, %v", mt, recs, err)
		}
	}
}

// TestMediaType reads Content-Type headers as exporters send them.
func TestMediaType(t *testing.T) {
	for in, want := range map[string]string{
		"application/json":                  ContentJSON,
		"Application/JSON; charset=utf-8":   ContentJSON,
		"application/x-protobuf":            ContentProtobuf,
		"application/x-protobuf;proto=otlp": ContentProtobuf,
	} {
		if got, err := MediaType(in); got != want || err != nil {
			t.Errorf("MediaType(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "text/plain", "application/grpc", "multipart/form-data; boundary=x"} {
		if _, err := MediaType(in); !errors.Is(err, ErrUnsupportedType) {
			t.Errorf("MediaType(%q): err %v", in, err)
		}
	}
}

// FuzzDecodeLogs: any body, in either encoding, decodes or is refused with
// ErrMalformed; never a panic; every record encodes as one line of valid
// JSON; decoding is deterministic.
func FuzzDecodeLogs(f *testing.F) {
	for _, data := range requests(f) {
		f.Add(data, false)
		f.Add(toProtobuf(f, data), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, protobuf bool) {
		mt := ContentJSON
		if protobuf {
			mt = ContentProtobuf
		}
		recs, err := DecodeLogs(body, mt)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v is not ErrMalformed", err)
			}
			return
		}
		out := lines(t, recs)
		for _, l := range bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
			if len(recs) > 0 && !json.Valid(l) {
				t.Fatalf("invalid line %q", l)
			}
		}
		again, _ := DecodeLogs(body, mt)
		if !bytes.Equal(out, lines(t, again)) {
			t.Fatal("two decodings differ")
		}
	})
}
