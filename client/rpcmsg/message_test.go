package rpcmsg

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\slash", "ctl\x00\x01\x1f\t\n\r", "é😀", "bad\xffutf8", "sep\u2028\u2029", "<>&"} {
		b := AppendString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Errorf("AppendString(%q) = %s: not JSON: %v", s, b, err)
			continue
		}
		if want := strings.ToValidUTF8(s, "\ufffd"); got != want {
			t.Errorf("AppendString(%q) round-trips to %q", s, got)
		}
	}
}

// FuzzAppendString: any Go string becomes a JSON string that decodes to
// what encoding/json's own encoding of it decodes to (each invalid byte
// becomes U+FFFD).
func FuzzAppendString(f *testing.F) {
	f.Add("quote\" and \\ and \x00 and \xff and \u2028")
	f.Fuzz(func(t *testing.T, s string) {
		var got string
		if err := json.Unmarshal(AppendString(nil, s), &got); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		var want string
		std, _ := json.Marshal(s)
		if err := json.Unmarshal(std, &want); err != nil || got != want {
			t.Fatalf("%q round-trips to %q, encoding/json's to %q", s, got, want)
		}
	})
}

// TestEnvelopes: every envelope is one JSON object that decodes into the
// Message it describes.
func TestEnvelopes(t *testing.T) {
	must := func(b []byte, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name string
		b    []byte
		want Message
	}{
		{"request head", append(AppendRequestHead(nil, 7, "tools/call"), '}'),
			Message{JSONRPC: Version, ID: json.RawMessage("7"), Method: "tools/call"}},
		{"notification head", append(AppendNotificationHead(nil, "notifications/initialized"), '}'),
			Message{JSONRPC: Version, Method: "notifications/initialized"}},
		{"request with a string id", must(Request(StringID("up-1"), "initialize", map[string]any{"a": 1})),
			Message{JSONRPC: Version, ID: json.RawMessage(`"up-1"`), Method: "initialize", Params: json.RawMessage(`{"a":1}`)}},
		{"notification without params", must(Notification("notifications/initialized", nil)),
			Message{JSONRPC: Version, Method: "notifications/initialized"}},
		{"result", must(Result(IntID(3), map[string]string{"k": "v"})),
			Message{JSONRPC: Version, ID: json.RawMessage("3"), Result: json.RawMessage(`{"k":"v"}`)}},
		{"empty result", AppendResult(nil, IntID(4), nil),
			Message{JSONRPC: Version, ID: json.RawMessage("4"), Result: json.RawMessage(`{}`)}},
		{"error with a null id", must(ErrorResponse(nil, CodeParseError, `parse "error"`, nil)),
			Message{JSONRPC: Version, ID: json.RawMessage("null"), Error: json.RawMessage(`{"code":-32700,"message":"parse \"error\""}`)}},
		{"error with data", must(ErrorResponse(IntID(5), CodeUnsupportedVersion, "no", map[string]any{"supported": []string{"x"}})),
			Message{JSONRPC: Version, ID: json.RawMessage("5"), Error: json.RawMessage(`{"code":-32022,"message":"no","data":{"supported":["x"]}}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Message
			if err := json.Unmarshal(tt.b, &got); err != nil {
				t.Fatalf("%s: %v", tt.b, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s decodes to %+v, want %+v", tt.b, got, tt.want)
			}
		})
	}
}

func TestDecodeError(t *testing.T) {
	e, ok := DecodeError(json.RawMessage(`{"code":-32601,"message":"no such method","data":[1]}`))
	if !ok || e.Code != CodeMethodNotFound || e.Message != "no such method" || string(e.Data) != "[1]" {
		t.Errorf("DecodeError = %+v, %v", e, ok)
	}
	for _, raw := range []string{``, `null`, `{"message":"no code"}`, `{"code":"x"}`, `[]`} {
		if _, ok := DecodeError(json.RawMessage(raw)); ok {
			t.Errorf("DecodeError(%q) accepted it", raw)
		}
	}
}

func TestMessageKinds(t *testing.T) {
	for _, tt := range []struct {
		in                  string
		req, notif, respons bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, true, false, false},
		{`{"jsonrpc":"2.0","method":"notifications/progress"}`, false, true, false},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, false, false, true},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, false, false, true},
	} {
		var m Message
		if err := json.Unmarshal([]byte(tt.in), &m); err != nil {
			t.Fatal(err)
		}
		if m.IsRequest() != tt.req || m.IsNotification() != tt.notif || m.IsResponse() != tt.respons {
			t.Errorf("%s: request %v, notification %v, response %v", tt.in, m.IsRequest(), m.IsNotification(), m.IsResponse())
		}
	}
}

// TestAppendDoesNotAllocate: the client's hot path writes into a buffer it
// reuses.
func TestAppendDoesNotAllocate(t *testing.T) {
	buf := make([]byte, 0, 256)
	n := testing.AllocsPerRun(100, func() {
		b := AppendRequestHead(buf[:0], 12345, "tools/call")
		b = AppendNotificationHead(b, "notifications/cancelled")
		_ = AppendError(b, rawID, CodeInternalError, "message", nil)
	})
	if n != 0 {
		t.Errorf("%v allocations per run, want 0", n)
	}
}

// rawID is a raw id made once, outside the measured function.
var rawID = IntID(0)
