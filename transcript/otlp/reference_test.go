package otlp

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// referenceDecode is DecodeLogs as it was written over the official
// bindings (go.opentelemetry.io/proto/otlp with protojson and
// proto.Unmarshal): the decoders of this package must give the same
// records, and refuse the same bodies.
func referenceDecode(body []byte, mediaType string) ([]Record, error) {
	var req logspb.LogsData
	switch mediaType {
	case ContentProtobuf:
		if err := proto.Unmarshal(body, &req); err != nil {
			return nil, err
		}
	case ContentJSON:
		if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(body, &req); err != nil {
			return nil, err
		}
	}
	var out []Record
	for _, rl := range req.GetResourceLogs() {
		res := referenceAttributes(rl.GetResource().GetAttributes())
		for _, sl := range rl.GetScopeLogs() {
			scope := sl.GetScope()
			scopeAttrs := referenceAttributes(scope.GetAttributes())
			for _, lr := range sl.GetLogRecords() {
				r := Record{
					OTLP:            Kind,
					Service:         stringAttr(res, "service.name"),
					ServiceVersion:  stringAttr(res, "service.version"),
					Time:            stamp(lr.GetTimeUnixNano()),
					ObservedTime:    stamp(lr.GetObservedTimeUnixNano()),
					Severity:        lr.GetSeverityText(),
					SeverityNumber:  int32(lr.GetSeverityNumber()),
					Attributes:      referenceAttributes(lr.GetAttributes()),
					Resource:        res,
					Scope:           scope.GetName(),
					ScopeVersion:    scope.GetVersion(),
					ScopeAttributes: scopeAttrs,
					TraceID:         id(lr.GetTraceId(), mediaType),
					SpanID:          id(lr.GetSpanId(), mediaType),
					Flags:           lr.GetFlags(),
					Dropped:         lr.GetDroppedAttributesCount(),
				}
				if b := lr.GetBody(); b != nil {
					r.Body = referenceValue(b, 0)
				}
				r.Event = referenceEventName(lr, r.Attributes)
				r.Session = session(r.Attributes, res)
				out = append(out, r)
			}
		}
	}
	return out, nil
}

func referenceEventName(lr *logspb.LogRecord, attrs map[string]json.RawMessage) string {
	if n := lr.GetEventName(); n != "" {
		return n
	}
	if s, ok := lr.GetBody().GetValue().(*commonpb.AnyValue_StringValue); ok {
		if n := s.StringValue; len(n) <= 128 && strings.Contains(n, ".") && !strings.ContainsAny(n, " \t\r\n") {
			return n
		}
	}
	return stringAttr(attrs, "event.name")
}

func referenceAttributes(kvs []*commonpb.KeyValue) map[string]json.RawMessage {
	if len(kvs) == 0 {
		return nil
	}
	m := make(map[string]json.RawMessage, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = referenceValue(kv.GetValue(), 0)
	}
	return m
}

// referenceValue is value as it was written over the official AnyValue.
func referenceValue(v *commonpb.AnyValue, depth int) json.RawMessage {
	if depth >= maxDepth {
		return json.RawMessage(`"(nested too deeply)"`)
	}
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return marshal(x.StringValue)
	case *commonpb.AnyValue_BoolValue:
		return marshal(x.BoolValue)
	case *commonpb.AnyValue_IntValue:
		return marshal(x.IntValue)
	case *commonpb.AnyValue_DoubleValue:
		if math.IsNaN(x.DoubleValue) || math.IsInf(x.DoubleValue, 0) {
			return marshal(fmt.Sprint(x.DoubleValue)) // JSON has no NaN nor infinities
		}
		return marshal(x.DoubleValue)
	case *commonpb.AnyValue_BytesValue:
		return marshal(x.BytesValue)
	case *commonpb.AnyValue_ArrayValue:
		var b bytes.Buffer
		b.WriteByte('[')
		for i, e := range x.ArrayValue.GetValues() {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(referenceValue(e, depth+1))
		}
		b.WriteByte(']')
		return b.Bytes()
	case *commonpb.AnyValue_KvlistValue:
		m := map[string]json.RawMessage{}
		for _, kv := range x.KvlistValue.GetValues() {
			m[kv.GetKey()] = referenceValue(kv.GetValue(), depth+1)
		}
		return marshal(m)
	}
	return json.RawMessage("null")
}

// checkAsReference decodes body with DecodeLogs and with referenceDecode
// and fails when one refuses what the other accepts or the records differ
// in any byte.
func checkAsReference(t *testing.T, body []byte, mediaType string) {
	t.Helper()
	got, err := DecodeLogs(body, mediaType)
	want, wantErr := referenceDecode(body, mediaType)
	if testing.Verbose() {
		t.Logf("%s %.60q (%d bytes): %d records, error %v", mediaType, body, len(body), len(want), wantErr)
	}
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%s %q: error %v, official bindings' error %v", mediaType, body, err, wantErr)
	}
	if err != nil {
		if !errors.Is(err, ErrMalformed) {
			t.Fatalf("error %v is not ErrMalformed", err)
		}
		return
	}
	if diff := cmp.Diff(string(lines(t, want)), string(lines(t, got))); diff != "" {
		t.Fatalf("%s %q: records differ from the official bindings' (-official +got):\n%s", mediaType, body, diff)
	}
}

// jsonCases are OTLP/JSON bodies at the edges of the protobuf JSON mapping.
var jsonCases = []string{
	``, ` `, `{}`, `null`, `[]`, `{} {}`, `{}x`, "{}\x00", `{"resourceLogs":null}`, `{"resourceLogs":[]}`,
	`{"resource_logs":[{}]}`, `{"resourceLogs":[],"resource_logs":[]}`, `{"ResourceLogs":[{}]}`, `{"resourceLogs":[null]}`,
	`{"resourceLogs":[{},]}`, `{"resourceLogs":[{}],}`, `{"unknown":{"a":[1,2,{"b":null}]},"resourceLogs":[]}`,
	`{"unknown":[1,]}`, `{"unknown":01}`, `{"unknown":1.}`, `{"unknown":-}`, `{"unknown":1e}`, `{"unknown":tru}`, `{"unknown":truex}`,
	`{"unknown":"\u00e9\ud83d\ude00"}`, `{"unknown":"\ud83d"}`, `{"unknown":"\ude00\ud83d"}`, `{"unknown":"\ud83dx"}`, `{"unknown":"\x"}`,
	"{\"unknown\":\"\xff\"}", "{\"unknown\":\"a\tb\"}", `{"unknown":"\u12G4"}`, `{"[ext.name]":1}`,
	`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}],"droppedAttributesCount":"3","entityRefs":[{"type":"t","idKeys":["a"],"descriptionKeys":[]}]},"schemaUrl":"u","scopeLogs":[{"scope":{"name":"n","version":"v","attributes":[{"key":"k"}],"dropped_attributes_count":1},"schema_url":"s","logRecords":[{}]}]}]}`,
	`{"resourceLogs":[{"resource":{"entityRefs":[{"idKeys":[null]}]}}]}`,
	`{"resourceLogs":[{"resource":{"entityRefs":[{"idKeys":"a"}]}}]}`,
	`{"resourceLogs":[{"schemaUrl":5}]}`,
	`{"resourceLogs":[{"resource":null,"scopeLogs":null}]}`,
	`{"resourceLogs":[{"resource":{},"resource":{}}]}`,
}

// recordCases are log records, put into a request, at the edges of the
// mapping's scalars, enums, bytes and AnyValue's oneof.
var recordCases = []string{
	`{"timeUnixNano":"1795860000100000000","observedTimeUnixNano":1795860000100000000}`,
	`{"timeUnixNano":"18446744073709551615"}`, `{"timeUnixNano":"18446744073709551616"}`, `{"timeUnixNano":-1}`, `{"timeUnixNano":"-0"}`,
	`{"timeUnixNano":1e3}`, `{"timeUnixNano":"1.5e1"}`, `{"timeUnixNano":1.5}`, `{"timeUnixNano":"1000e-3"}`, `{"timeUnixNano":"100e-3"}`,
	`{"timeUnixNano":" 1"}`, `{"timeUnixNano":"1 2"}`, `{"timeUnixNano":"1,"}`, `{"timeUnixNano":"1x"}`, `{"timeUnixNano":""}`,
	`{"timeUnixNano":"0.0012e4"}`, `{"timeUnixNano":0e99999999999}`, `{"timeUnixNano":1e99999999999}`, `{"timeUnixNano":1e20}`, `{"timeUnixNano":true}`,
	`{"timeUnixNano":{}}`, `{"timeUnixNano":null,"time_unix_nano":5}`, `{"time_unix_nano":5,"timeUnixNano":6}`,
	`{"severityNumber":"SEVERITY_NUMBER_WARN","severityText":"WARN"}`, `{"severityNumber":"NOT_A_LEVEL"}`, `{"severityNumber":"9"}`,
	`{"severityNumber":9}`, `{"severityNumber":-3}`, `{"severityNumber":2147483648}`, `{"severityNumber":9.0}`, `{"severityNumber":true}`,
	`{"severity_text":7}`, `{"flags":4294967295}`, `{"flags":4294967296}`, `{"flags":"1"}`, `{"droppedAttributesCount":2}`,
	`{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174"}`, `{"traceId":"5B8EFFF798038103D269B633813FC60C"}`,
	`{"traceId":"abc"}`, `{"traceId":"ab-_"}`, `{"traceId":"aGk="}`, `{"traceId":"aGk"}`, `{"traceId":"xyz!"}`, `{"traceId":""}`, `{"spanId":"ab\ncd"}`,
	`{"traceId":12}`, `{"eventName":"agent.event"}`, `{"event_name":""}`,
	`{"body":{}}`, `{"body":null}`, `{"body":{"stringValue":"a.b"}}`, `{"body":{"stringValue":"a b.c"}}`, `{"body":{"stringValue":null,"intValue":"5"}}`,
	`{"body":{"stringValue":"x","intValue":5}}`, `{"body":{"boolValue":true}}`, `{"body":{"boolValue":"true"}}`, `{"body":{"intValue":"-9223372036854775808"}}`,
	`{"body":{"intValue":"9223372036854775808"}}`, `{"body":{"doubleValue":1.5}}`, `{"body":{"doubleValue":"NaN"}}`, `{"body":{"doubleValue":"-Infinity"}}`,
	`{"body":{"doubleValue":"1e400"}}`, `{"body":{"doubleValue":1e400}}`, `{"body":{"doubleValue":"2.5"}}`, `{"body":{"doubleValue":-0.0}}`, `{"body":{"doubleValue":1e-400}}`,
	`{"body":{"bytesValue":"aGk="}}`, `{"body":{"bytesValue":""}}`, `{"body":{"bytesValue":"a"}}`,
	`{"body":{"arrayValue":{}}}`, `{"body":{"arrayValue":{"values":[{},{"intValue":1},{"arrayValue":{"values":[{"stringValue":"x"}]}}]}}}`,
	`{"body":{"arrayValue":{"values":[null]}}}`, `{"body":{"kvlistValue":{"values":[{"key":"z","value":{"stringValue":"1"}},{"key":"a"},{"key":"z"}]}}}`,
	`{"body":{"kvlist_value":{"values":null}}}`, `{"body":{"arrayValue":[]}}`,
	`{"attributes":[{"key":"session.id","value":{"intValue":"42"}},{"key":"event.name","value":{"stringValue":"x"}},{"key":"dup","value":{"stringValue":"1"}},{"key":"dup","value":{"stringValue":"2"}}]}`,
	`{"attributes":[{"key":"k","value":{"stringValue":"v"},"key":"j"}]}`, `{"attributes":[{"value":{"unknown":1}}]}`, `{"attributes":{}}`,
}

// requestWith puts a log record into a request.
func requestWith(record string) string {
	return `{"resourceLogs":[{"resource":{"attributes":[{"key":"conversation.id","value":{"stringValue":"res"}}]},"scopeLogs":[{"scope":{"name":"s"},"logRecords":[` + record + `]}]}]}`
}

// deeply nests an AnyValue n arrays deep.
func deeply(n int) string {
	return `{"body":` + strings.Repeat(`{"arrayValue":{"values":[`, n) + `{"stringValue":"bottom"}` + strings.Repeat(`]}}`, n) + `}`
}

// TestJSONAsOfficialBindings: on every fixture and on bodies at the edges
// of the JSON mapping, the decoder accepts what the official bindings
// accept, with the same records, and refuses what they refuse.
func TestJSONAsOfficialBindings(t *testing.T) {
	bodies := append([]string(nil), jsonCases...)
	for _, r := range recordCases {
		bodies = append(bodies, requestWith(r))
	}
	bodies = append(bodies, requestWith(deeply(maxDepth+5)), requestWith(deeply(4997)), requestWith(deeply(4998)),
		`{"unknown":`+strings.Repeat("[", 9999)+strings.Repeat("]", 9999)+`}`,
		`{"unknown":`+strings.Repeat("[", 10000)+strings.Repeat("]", 10000)+`}`)
	for _, data := range requests(t) {
		bodies = append(bodies, string(data))
	}
	for _, b := range bodies {
		checkAsReference(t, []byte(b), ContentJSON)
	}
}

// TestProtobufAsOfficialBindings: the same for binary protobuf, on the
// fixtures, on the JSON cases the official bindings accept (written in
// protobuf by them) and on hand-made wire data: unknown fields of every
// wire type, groups, wrong wire types, merged messages, truncation, bad
// UTF-8, bad field numbers, deep nesting.
func TestProtobufAsOfficialBindings(t *testing.T) {
	var bodies [][]byte
	for _, data := range requests(t) {
		bodies = append(bodies, toProtobuf(t, data))
	}
	for _, r := range append(recordCases, deeply(maxDepth+5), deeply(4997)) {
		var req logspb.LogsData
		if protojson.Unmarshal([]byte(requestWith(r)), &req) != nil {
			continue
		}
		b, err := proto.Marshal(&req)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
	}
	// msg is a length-delimited field.
	msg := func(num byte, parts ...[]byte) []byte {
		var body []byte
		for _, p := range parts {
			body = append(body, p...)
		}
		return append(binary.AppendUvarint([]byte{num<<3 | 2}, uint64(len(body))), body...)
	}
	str := func(num byte, s string) []byte { return msg(num, []byte(s)) }
	record := func(parts ...[]byte) []byte { return msg(1, msg(2, msg(2, parts...))) }
	val := func(parts ...[]byte) []byte { return msg(5, parts...) } // a record's body
	bodies = append(bodies,
		nil, []byte{}, []byte{0x0a}, []byte{0x0a, 0x05}, []byte{0x00}, []byte{0x08, 0x01},
		[]byte{0x0b, 0x0c}, []byte{0x0b, 0x14}, []byte{0x0b, 0x08, 0x01, 0x0c}, []byte{0x0c}, []byte{0x0e}, []byte{0x0f},
		[]byte{0xf8, 0xff, 0xff, 0xff, 0x0f, 0x01}, []byte{0xf8, 0xff, 0xff, 0xff, 0x07, 0x01}, []byte{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02},
		[]byte{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, []byte{0x09, 1, 2, 3}, []byte{0x0d, 1, 2, 3, 4},
		[]byte{0x0b, 0xf8, 0xff, 0xff, 0xff, 0x0f, 0x00, 0xfc, 0xff, 0xff, 0xff, 0x0f},
		record(str(3, "WARN"), []byte{0x10, 0x0d}, []byte{0x09, 1, 0, 0, 0, 0, 0, 0, 0}, []byte{0x59, 2, 0, 0, 0, 0, 0, 0, 0}, []byte{0x45, 1, 2, 3, 4}, []byte{0x38, 0x07}),
		record([]byte{0x10, 0xff, 0xff, 0xff, 0xff, 0x1f}, []byte{0x38, 0xff, 0xff, 0xff, 0xff, 0x1f}),
		record([]byte{0x08, 0x05}, []byte{0x1d, 1, 2, 3, 4}, []byte{0x12, 0x00}, []byte{0x40, 0x01}),
		record(str(3, "\xff")), record(str(12, "\xc3")), record(str(12, "a.b"), str(12, "c.d")),
		record(str(9, "\xab\x01"), str(10, ""), str(9, "\x01")),
		record(val(str(1, "a.b")), val([]byte{0x10, 0x01})),
		record(val(msg(5, msg(1, str(1, "x")))), val(msg(5, msg(1, []byte{0x18, 0x05})))),
		record(val(msg(6, msg(1, str(1, "k")))), val(msg(6, msg(1, str(1, "j"))))),
		record(val(msg(5, msg(1))), val(str(1, "s")), val(msg(6))),
		record(val(str(7, "")), msg(6, str(1, "k"), msg(2, str(1, "v")), msg(2, []byte{0x18, 0x07}))),
		record(val(str(1, "\xff"))), record(msg(6, str(1, "\xe2\x82"))), record(val([]byte{0x21, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f})),
		record(val([]byte{0x20, 0x01})), record([]byte{0x2a, 0x00}, []byte{0x28, 0x01}),
		msg(1, msg(1, msg(1, str(1, "service.name"), msg(2, str(1, "a"))), []byte{0x10, 0x02}, msg(3, str(2, "\xff")))),
		msg(1, msg(1, msg(3, str(3, "ok"), str(4, "\xff")))), msg(1, str(3, "\xff")), msg(1, msg(2, str(3, "\xff"))),
		msg(1, msg(2, msg(1, str(1, "n"), str(2, "v"), []byte{0x20, 0x03}), msg(1, str(1, "m")), msg(2))),
		msg(1, msg(1, msg(1, str(1, "service.name"))), msg(1, msg(1, str(1, "service.version"), msg(2, str(1, "2"))))),
	)
	// 10,000 messages deep is the limit: a record's body in arrays.
	for _, n := range []int{4996, 4997, 4998} {
		b := str(1, "bottom")
		for range n {
			b = msg(5, msg(1, b)) // AnyValue{array_value: ArrayValue{values: [b]}}
		}
		bodies = append(bodies, record(val(b)))
	}
	for _, b := range bodies {
		checkAsReference(t, b, ContentProtobuf)
	}
}

// FuzzDecodeAsOfficialBindings: any body, in either encoding, gives what
// the official bindings give.
func FuzzDecodeAsOfficialBindings(f *testing.F) {
	for _, data := range requests(f) {
		f.Add(data, false)
		f.Add(toProtobuf(f, data), true)
	}
	for _, c := range jsonCases {
		f.Add([]byte(c), false)
	}
	for _, r := range recordCases {
		f.Add([]byte(requestWith(r)), false)
	}
	f.Fuzz(func(t *testing.T, body []byte, protobuf bool) {
		mt := ContentJSON
		if protobuf {
			mt = ContentProtobuf
		}
		checkAsReference(t, body, mt)
	})
}
