package client

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestDecodeMessage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		in     string
		kind   msgKind
		id     string // idRaw
		num    bool
		method string
		err    string
	}{
		{name: "result", in: `{"jsonrpc":"2.0","id":42,"result":{}}`, kind: kindResult, id: "42", num: true},
		{name: "error", in: `{"jsonrpc":"2.0","id":"a","error":{"code":-1,"message":"m"}}`, kind: kindError, id: "a"},
		{name: "notification", in: `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, kind: kindNotification, method: "notifications/progress"},
		{name: "request", in: `{"jsonrpc":"2.0","id":7,"method":"ping"}`, kind: kindRequest, id: "7", num: true, method: "ping"},
		{name: "null id is no id", in: `{"jsonrpc":"2.0","id":null,"method":"x"}`, kind: kindNotification, method: "x"},
		{name: "fractional id", in: `{"id":1.5,"result":1}`, kind: kindResult, id: "1.5"},
		{name: "huge id", in: `{"id":123456789012345678901234,"result":1}`, kind: kindResult, id: "123456789012345678901234"},
		{name: "escaped keys", in: `{"\u0069d":3,"\u0072esult":null}`, kind: kindResult, id: "3", num: true},
		{name: "white space", in: " \t\r\n{ \"id\" : 3 , \"result\" : [ ] }\n", kind: kindResult, id: "3", num: true},
		{name: "duplicate id, last wins", in: `{"id":7,"id":"x","method":"ping"}`, kind: kindRequest, id: "x", method: "ping"},
		{name: "batch", in: `[{"id":1,"result":{}}]`, err: "batch"},
		{name: "not an object", in: `"x"`, err: "not a JSON object"},
		{name: "empty", in: ``, err: "not a JSON object"},
		{name: "both result and error", in: `{"id":1,"result":{},"error":{"code":1}}`, err: "both"},
		{name: "response without id", in: `{"result":{}}`, err: "without id"},
		{name: "error with a null id answers an unreadable request", in: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, kind: kindError},
		{name: "result with a null id", in: `{"id":null,"result":{}}`, err: "without id"},
		{name: "nothing", in: `{"jsonrpc":"2.0"}`, err: "neither"},
		{name: "error without code", in: `{"id":1,"error":{"message":"m"}}`, err: "no code"},
		{name: "error code not an integer", in: `{"id":1,"error":{"code":1.5}}`, err: "not an integer"},
		{name: "method not a string", in: `{"method":5}`, err: "invalid JSON"},
		{name: "id a boolean", in: `{"id":true,"result":{}}`, err: "invalid JSON"},
		{name: "trailing data", in: `{"id":1,"result":{}} x`, err: "trailing"},
		{name: "truncated", in: `{"id":1,"result":{"a":`, err: "invalid JSON"},
		{name: "control character in string", in: "{\"method\":\"a\x01\"}", err: "invalid JSON"},
		{name: "invalid UTF-8", in: "{\"method\":\"a\xff\"}", err: "not valid UTF-8"},
		{name: "invalid UTF-8 and truncated", in: "{\"method\":\"a\xff\"", err: "invalid JSON"},
		{name: "invalid UTF-8 in a key", in: "{\"k\xff\":1,\"id\":3,\"result\":{}}", kind: kindResult, id: "3", num: true, err: "not valid UTF-8"},
		{name: "invalid UTF-8 before the id", in: "{\"result\":{\"t\":\"\xe9\"},\"id\":3}", kind: kindResult, id: "3", num: true, err: "not valid UTF-8"},
		{name: "bad escape", in: `{"method":"\x"}`, err: "invalid JSON"},
		{name: "leading zero", in: `{"id":01,"result":1}`, err: "invalid JSON"},
		{name: "too deep", in: `{"id":1,"result":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`, err: "too deeply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sc scanner
			var m inMsg
			err := decodeMessage(&sc, []byte(tc.in), &m)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				if tc.kind == kindInvalid {
					return
				}
				// Only invalid UTF-8 leaves the message read: its id says
				// whose answer it was.
			} else if err != nil {
				t.Fatal(err)
			}
			if m.kind != tc.kind || string(m.idRaw) != tc.id || m.idIsNum != tc.num || string(m.method) != tc.method {
				t.Errorf("got kind %d id %q (num %v) method %q", m.kind, m.idRaw, m.idIsNum, m.method)
			}
		})
	}
}

func TestDecodeProgress(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in       string
		tok      string
		str      bool
		progress float64
		total    float64
		hasTotal bool
		err      string
	}{
		{in: `{"progressToken":"p5","progress":1,"total":2,"message":"m"}`, tok: "p5", str: true, progress: 1, total: 2, hasTotal: true},
		{in: `{"progress":0.25,"progressToken":9}`, tok: "9", progress: 0.25},
		{in: `{"progressToken":"p5","progress":1e3,"total":null}`, tok: "p5", str: true, progress: 1000},
		{in: `{"progressToken":"p5","progress":-3}`, tok: "p5", str: true, progress: -3},
		{in: `{"progressToken":"p5"}`, err: "without progress"},
		{in: `{"progress":1}`, err: "without progressToken"},
		{in: `{"progressToken":"p5","progress":"1"}`, err: "not a number"},
		{in: `{"progressToken":"p5","progress":1,"total":"2"}`, err: "not a number"},
		{in: `{"progressToken":"p5","progress":1e999}`, err: "range"},
		{in: `{"progressToken":true,"progress":1}`, err: "invalid"},
		{in: `[]`, err: "invalid"},
	} {
		var sc scanner
		var p progressMsg
		err := decodeProgress(&sc, []byte(tc.in), &p)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || string(p.token) != tc.tok || p.tokenIsStr != tc.str || p.progress != tc.progress || p.total != tc.total || p.hasTotal != tc.hasTotal {
			t.Errorf("%s: got %+v, %v", tc.in, p, err)
		}
	}
	var sc scanner
	var p progressMsg
	if err := decodeProgress(&sc, nil, &p); err == nil {
		t.Error("nil params: want an error")
	}
}

func TestTokenID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		raw  string
		str  bool
		id   int64
		ours bool
	}{
		{"p5", true, 5, true},
		{"p123456789", true, 123456789, true},
		{"p5", false, 0, false}, // a number, not our string
		{"5", true, 0, false},
		{"p", true, 0, false},
		{"p0", true, 0, false},
		{"p-5", true, 0, false},
		{"q5", true, 0, false},
		{"p5x", true, 0, false},
		{"p99999999999999999999", true, 0, false},
		// Not the token we sent for call 5, though they parse as 5.
		{"p05", true, 0, false},
		{"p+5", true, 0, false},
	} {
		id, ours := tokenID([]byte(tc.raw), tc.str)
		if id != tc.id || ours != tc.ours {
			t.Errorf("tokenID(%q, str=%v) = %d, %v; want %d, %v", tc.raw, tc.str, id, ours, tc.id, tc.ours)
		}
	}
	if got := string(appendToken(nil, 42)); got != `"p42"` {
		t.Errorf("appendToken = %s", got)
	}
}

func TestPrefixAndCancelledID(t *testing.T) {
	t.Parallel()
	var sc scanner
	for in, want := range map[string]int64{
		`{"jsonrpc":"2.0","id":12,"result":{"x":"aaaa`: 12,
		`{"id":7`:                                     7,
		`{"jsonrpc":"2.0","result":{"x":"aaa`:         -1,
		`{"id":"s","result":`:                         -1,
		`{"jsonrpc":"2.0","result":{"a":1},"id":3,"x`: 3,
	} {
		id, ok := prefixID(&sc, []byte(in))
		if (want >= 0) != ok || ok && id != want {
			t.Errorf("prefixID(%s) = %d, %v; want %d", in, id, ok, want)
		}
	}
	for in, want := range map[string]int64{
		`{"requestId":42,"reason":"r"}`: 42,
		`{"reason":"r","requestId":-3}`: -3,
		`{"requestId":"42"}`:            -1,
		`{}`:                            -1,
	} {
		id, ok := decodeCancelledID(&sc, []byte(in))
		if (want != -1) != ok || ok && id != want {
			t.Errorf("decodeCancelledID(%s) = %d, %v; want %d", in, id, ok, want)
		}
	}
}

func TestUnescape(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		`plain`:              "plain",
		`a\"b\\c\/d\n`:       "a\"b\\c/d\n",
		`\u00e9\ud83d\ude00`: "é😀",
		`\ud800`:             "\ufffd", // lone surrogate
	} {
		if got := unescape([]byte(raw)); got != want {
			t.Errorf("unescape(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestHeaderValue(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"slow_task":      "slow_task",
		"with space":     "with space",
		" lead":          "=?base64?IGxlYWQ=?=",
		"trail ":         "=?base64?dHJhaWwg?=",
		"ünï":            "=?base64?w7xuw68=?=",
		"a\tb":           "=?base64?YQli?=",
		"=?base64?abc?=": "=?base64?PT9iYXNlNjQ/YWJjPz0=?=",
		"":               "=?base64??=",
		"=?base64?abc":   "=?base64?abc",
	} {
		if got := headerValue(in); got != want {
			t.Errorf("headerValue(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"":                              -1,
		"0":                             0,
		"120":                           2 * time.Minute,
		"-5":                            -1,
		"+5":                            -1,
		"9300000000":                    math.MaxInt64, // would wrap negative as a Duration
		"99999999999999999999999":       math.MaxInt64, // beyond 64 bits
		"soon":                          -1,
		"Tue, 28 Jul 2026 12:00:30 GMT": 30 * time.Second,
		"Tue, 28 Jul 2026 11:00:00 GMT": 0, // in the past
	} {
		if got := retryAfter(in, now); got != want {
			t.Errorf("retryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestRing(t *testing.T) {
	t.Parallel()
	r := newRing(8)
	for _, tc := range []struct{ write, want string }{
		{"", ""},
		{"abc", "abc"},
		{"defgh", "abcdefgh"},
		{"ij", "cdefghij"},
		{"0123456789", "23456789"},
		{"xyz", "56789xyz"},
	} {
		r.Write([]byte(tc.write))
		if got := string(r.bytes()); got != tc.want {
			t.Errorf("after %q: %q, want %q", tc.write, got, tc.want)
		}
	}
}

func TestEnumStrings(t *testing.T) {
	t.Parallel()
	names := map[string]bool{}
	for k := EvHeaders; k <= EvEnd+1; k++ {
		names["ev:"+k.String()] = true
	}
	for v := ViolUnknownToken; v <= ViolServerCancel+1; v++ {
		names["v:"+v.String()] = true
	}
	for m := AbortFIN; m <= AbortKill+1; m++ {
		names["a:"+m.String()] = true
	}
	for r := ResultMissing; r <= ResultUnknown; r++ {
		names["r:"+r.String()] = true
	}
	for m := MalformNone; m <= MalformMissingMeta; m++ {
		names["m:"+m.String()] = true
	}
	// Every value has its own name; one past the last is "unknown".
	if want := 7 + 10 + 5 + 5 + 5; len(names) != want {
		t.Errorf("%d distinct names, want %d: %v", len(names), want, names)
	}
}
