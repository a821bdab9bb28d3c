package mcp

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// oldEncoding is how go-sdk encoded a message before cortex patch 0003:
// encoding/json over the wire struct, without HTML escaping, which checks
// and compacts the raw params or result.
func oldEncoding(t *testing.T, id jsonrpc.ID, method string, params, result json.RawMessage) []byte {
	t.Helper()
	wire := struct {
		VersionTag string          `json:"jsonrpc"`
		ID         any             `json:"id,omitempty"`
		Method     string          `json:"method,omitempty"`
		Params     json.RawMessage `json:"params,omitempty"`
		Result     json.RawMessage `json:"result,omitempty"`
	}{"2.0", id.Raw(), method, params, result}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&wire); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// TestMessagesEncodeTheirJSONAsBefore covers go-sdk patch 0003: a message's
// params or result, JSON already, are written as they are after its other
// fields, and the bytes are those encoding/json wrote; a value holding a
// newline (which would break stdio's line framing) is compacted as before;
// and a tool's result marshals to what json.Marshal makes of it.
func TestMessagesEncodeTheirJSONAsBefore(t *testing.T) {
	res := &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: "<b>a & b</b>\n\t\"quoted\" ünïcode \u2028 日本語"}},
		StructuredContent: json.RawMessage(`{"results":[{"id":"01abc","body":"x <y> & z\n"}],"total":1}`),
	}
	data, err := res.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, want) {
		t.Fatalf("CallToolResult.MarshalJSON is not what json.Marshal makes of it:\n%s\n%s", data, want)
	}
	num, err := jsonrpc.MakeID(float64(7))
	if err != nil {
		t.Fatal(err)
	}
	str, err := jsonrpc.MakeID("req-1")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		msg  jsonrpc.Message
		id   jsonrpc.ID
		// method, params and result as the old encoding is given them
		method         string
		params, result json.RawMessage
	}{
		{"a result", &jsonrpc.Response{ID: num, Result: data}, num, "", nil, data},
		{"a null result", &jsonrpc.Response{ID: str, Result: json.RawMessage("null")}, str, "", nil, json.RawMessage("null")},
		{"a request", &jsonrpc.Request{ID: str, Method: "tools/call", Params: json.RawMessage(`{"name":"memory_recall","arguments":{"query":"a<b"}}`)},
			str, "tools/call", json.RawMessage(`{"name":"memory_recall","arguments":{"query":"a<b"}}`), nil},
		{"a notification", &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)},
			jsonrpc.ID{}, "notifications/initialized", json.RawMessage(`{}`), nil},
		{"a result on lines", &jsonrpc.Response{ID: num, Result: json.RawMessage("{\n  \"a\": [1, 2]\n}")}, num, "", nil, json.RawMessage("{\n  \"a\": [1, 2]\n}")},
		{"no result", &jsonrpc.Response{ID: num}, num, "", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := jsonrpc.EncodeMessage(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			if want := oldEncoding(t, tc.id, tc.method, tc.params, tc.result); !bytes.Equal(got, want) {
				t.Fatalf("encoded\n%s\nwant\n%s", got, want)
			}
			if bytes.IndexByte(got, '\n') >= 0 {
				t.Fatalf("the message holds a newline: %s", got)
			}
			if _, err := jsonrpc.DecodeMessage(got); err != nil {
				t.Fatalf("the message does not decode: %v", err)
			}
		})
	}
}
