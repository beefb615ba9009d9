package client

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// Realistic messages, as SDK servers write them, seed every target.
var seedMessages = []string{
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p42","progress":3,"total":10,"message":"step 3"}}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":0.5}}`,
	`{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"done"}],"structuredContent":{"n":1},"isError":false,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}`,
	`{"jsonrpc":"2.0","id":42,"result":{"resultType":"input_required","requestState":"opaque"}}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":-32022,"message":"unsupported protocol version","data":{"supported":["2025-11-25"],"requested":"2026-07-28"}}}`,
	`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}}`,
	`{"jsonrpc":"2.0","id":7,"method":"ping"}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42,"reason":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{}}}`,
	`{"id":null,"error":{"code":-32700,"message":"Parse error"},"jsonrpc":"2.0"}`,
	` { "jsonrpc" : "2.0" , "\u006dethod" : "notifications/\u0070rogress" , "params" : { "progressToken" : "p\u0031" , "progress" : 1e2 } } `,
	`[{"jsonrpc":"2.0","id":1,"result":{}}]`,
	`{"jsonrpc":"2.0","id":1.5,"result":{}}`,
	`{"jsonrpc":"2.0","id":99999999999999999999,"result":{}}`,
	`{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t","status":"working","_meta":{"io.modelcontextprotocol/subscriptionId":3}}}`,
}

func FuzzDecodeMessage(f *testing.F) {
	for _, s := range seedMessages {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var sc scanner
		var m inMsg
		err := decodeMessage(&sc, data, &m)
		if err == nil {
			var p progressMsg
			perr := decodeProgress(&sc, m.params, &p)
			if m.kind == kindNotification && m.methodIs(vocab.MethodProgress) {
				checkProgress(t, m.params, &p, perr)
			}
			var r Result
			rerr := decodeCallResult(&sc, m.result, &r)
			if m.kind == kindResult {
				checkResult(t, m.result, &r, rerr)
			}
			decodeCancelledID(&sc, m.params)
			decodeSubscriptionID(&sc, m.params)
		}
		prefixID(&sc, data)
		var p progressMsg
		_ = decodeProgress(&sc, data, &p)
		var r Result
		_ = decodeCallResult(&sc, data, &r)

		want, ok := referenceMessage(data)
		if !ok {
			return
		}
		if want.kind == kindInvalid {
			if err == nil {
				t.Fatalf("decodeMessage(%q) = kind %d, want an error", data, m.kind)
			}
			return
		}
		if err != nil {
			t.Fatalf("decodeMessage(%q): %v; encoding/json reads it as kind %d", data, err, want.kind)
		}
		if m.kind != want.kind {
			t.Fatalf("decodeMessage(%q) kind %d, want %d", data, m.kind, want.kind)
		}
		if m.method != nil {
			method := string(m.method)
			if m.methodEsc {
				method = unescape(m.method)
			}
			if method != want.method {
				t.Fatalf("method %q, want %q", method, want.method)
			}
		}
		if m.hasID != want.hasID || m.idIsNum != want.idIsNum || m.idIsNum && m.idNum != want.idNum {
			t.Fatalf("id: has %v num %v %d, want has %v num %v %d", m.hasID, m.idIsNum, m.idNum, want.hasID, want.idIsNum, want.idNum)
		}
		if want.idStr != nil && unescape(m.idRaw) != *want.idStr {
			t.Fatalf("string id %q, want %q", m.idRaw, *want.idStr)
		}
		if !bytes.Equal(m.params, want.params) || !bytes.Equal(m.result, want.result) {
			t.Fatalf("params %q result %q, want %q %q", m.params, m.result, want.params, want.result)
		}
		if want.kind == kindError && m.errCode != want.code {
			t.Fatalf("error code %d, want %d", m.errCode, want.code)
		}
	})
}

var seedStreams = []string{
	"event: message\ndata: " + seedMessages[0] + "\n\n",
	"id: 0\ndata:\n\nretry: 500\n\n: keep-alive\n\nevent: message\r\ndata: " + seedMessages[2] + "\r\n\r\n",
	"data: a\ndata: b\n\ndata\n\ndata: tail-without-blank-line",
	": only a comment\n\n\n\n",
	"data: " + string(bytes.Repeat([]byte("x"), 300)) + "\n\n",
}

// FuzzSSEReader: arbitrary stream bytes through sseReader with a small
// maximum: it must not panic, must not return data longer than the
// maximum, and must agree with a straightforward reading of the stream.
func FuzzSSEReader(f *testing.F) {
	for _, s := range seedStreams {
		f.Add([]byte(s), uint16(64))
		f.Add([]byte(s), uint16(1000))
	}
	f.Fuzz(func(t *testing.T, stream []byte, max uint16) {
		limit := int(max%1024) + 1
		checkSSE(t, newSSEReader(bufio.NewReaderSize(bytes.NewReader(stream), 16), limit), stream, limit)
	})
}

// checkSSE reads r to its end and checks its events against the
// reference reading of stream with the maximum limit.
func checkSSE(t *testing.T, r *sseReader, stream []byte, limit int) {
	t.Helper()
	want, wantErr := referenceSSE(stream, limit)
	for i := 0; ; i++ {
		data, err := r.next()
		if err != nil {
			if i != len(want) {
				t.Fatalf("got %d events then %v, want %d events %q", i, err, len(want), want)
			}
			if wantErr == nil && err != io.EOF || wantErr != nil && !IsOversize(err) {
				t.Fatalf("error %v, want %v", err, wantErr)
			}
			return
		}
		if len(data) > limit {
			t.Fatalf("event data of %d bytes over the maximum %d", len(data), limit)
		}
		if i >= len(want) || string(data) != want[i] {
			t.Fatalf("event %d = %q, want %q", i, data, want)
		}
	}
}

// FuzzLineReader: lines come back whole and bounded; with discard, an
// oversize line is skipped and reading goes on at the next one.
func FuzzLineReader(f *testing.F) {
	for _, s := range seedStreams {
		f.Add([]byte(s), uint16(64), true)
	}
	f.Add([]byte("short\n"+string(bytes.Repeat([]byte("y"), 100))+"\nafter\n"), uint16(50), true)
	f.Add([]byte("exactly\nten-bytes!\r\n"), uint16(10), false)
	f.Fuzz(func(t *testing.T, stream []byte, max uint16, discard bool) {
		limit := int(max%512) + 1
		const prefix = 8
		r := lineReader{br: bufio.NewReaderSize(bytes.NewReader(stream), 16), max: limit}
		var want [][]byte
		for _, l := range bytes.SplitAfter(stream, []byte("\n")) {
			if len(l) > 0 {
				want = append(want, bytes.TrimSuffix(bytes.TrimSuffix(l, []byte("\n")), []byte("\r")))
			}
		}
		for i := 0; ; i++ {
			line, err := r.next(discard, prefix)
			if errors.Is(err, io.EOF) {
				if i != len(want) {
					t.Fatalf("EOF after %d lines, want %d", i, len(want))
				}
				return
			}
			if i >= len(want) {
				t.Fatalf("line %d (%q, %v) past the end", i, line, err)
			}
			switch {
			case len(want[i]) > limit:
				if !IsOversize(err) {
					t.Fatalf("line %d of %d bytes (max %d): got %q, %v; want an oversize error", i, len(want[i]), limit, line, err)
				}
				if len(line) > prefix || !bytes.HasPrefix(want[i], line) {
					t.Fatalf("oversize prefix %q, want at most %d bytes of %q", line, prefix, want[i])
				}
				if !discard {
					return
				}
			case err != nil:
				t.Fatalf("line %d (%d bytes, max %d): %v", i, len(want[i]), limit, err)
			case !bytes.Equal(line, want[i]):
				t.Fatalf("line %d = %q, want %q", i, line, want[i])
			}
		}
	})
}
