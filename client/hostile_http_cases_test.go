package client

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// hostileHTTPForeignCases are messages on the call's stream that do not
// belong to it: progress for tokens never sent, server requests, data that
// is not JSON-RPC and responses for other ids.
var hostileHTTPForeignCases = []hostileHTTPCase{
	{
		name: "progress for a token never sent", progress: true,
		answer: func(w http.ResponseWriter, req fakeReq) {
			writeSSE(w, progressJSON("zzz", 1), progressJSON("p999999", 2), progressJSON(req.token(), 3), resultJSON(req.ID, "ok"))
		},
		check: func(t *testing.T, call *Call, evs []Event) {
			wantViolations(t, evs, ViolUnknownToken, ViolUnknownToken)
			if p := ofKind(evs, EvProgress); len(p) != 1 || p[0].Progress != 3 || p[0].Total != 10 || !p[0].HasTotal {
				t.Errorf("progress events = %s", describe(p))
			}
			wantCleanEnd(t, evs)
		},
	},
	{
		name: "progress for another request's token", progress: true,
		answer: func(w http.ResponseWriter, req fakeReq) {
			writeSSE(w, progressJSON("p1", 1), resultJSON(req.ID, "ok")) // 1: the discover probe
		},
		check: func(t *testing.T, call *Call, evs []Event) {
			wantViolations(t, evs, ViolWrongStream)
			wantCleanEnd(t, evs)
		},
	},
	{
		name: "progress for a call that asked for none",
		answer: func(w http.ResponseWriter, req fakeReq) {
			writeSSE(w, progressJSON("p"+string(req.ID), 1), resultJSON(req.ID, "ok"))
		},
		check: func(t *testing.T, call *Call, evs []Event) {
			wantViolations(t, evs, ViolWrongStream)
			if count(evs, EvProgress) != 0 {
				t.Error("progress delivered for a call without a token")
			}
		},
	},
	{
		name: "malformed progress", progress: true,
		answer: func(w http.ResponseWriter, req fakeReq) {
			writeSSE(w, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"`+req.token()+`"}}`,
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"`+req.token()+`","progress":"half"}}`,
				resultJSON(req.ID, "ok"))
		},
		check: func(t *testing.T, call *Call, evs []Event) {
			wantViolations(t, evs, ViolBadProgress, ViolBadProgress)
			wantCleanEnd(t, evs)
		},
	},
	{
		name: "server-initiated request and cancel on the stream",
		answer: func(w http.ResponseWriter, req fakeReq) {
			writeSSE(w, `{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}}`,
				`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+string(req.ID)+`}}`,
				`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`,
				resultJSON(req.ID, "ok"))
		},
		check: func(t *testing.T, call *Call, evs []Event) {
			wantViolations(t, evs, ViolServerRequest, ViolServerCancel)
			wantCleanEnd(t, evs)
		},
	},
	{
		name: "SSE data that is not JSON-RPC",
		answer: func(w http.ResponseWriter, req fakeReq) {
			writeSSE(w, "hello", `[{"jsonrpc":"2.0"}]`, `{"jsonrpc":"2.0","id":`+string(req.ID)+`}`, resultJSON(req.ID, "ok"))
		},
		check: func(t *testing.T, call *Call, evs []Event) {
			wantViolations(t, evs, ViolNotJSONRPC, ViolNotJSONRPC, ViolNotJSONRPC)
			wantCleanEnd(t, evs)
		},
	},
	{
		name: "response with another id",
		answer: func(w http.ResponseWriter, req fakeReq) {
			writeSSE(w, resultJSON(json.RawMessage(`"x"`), "no"), resultJSON(json.RawMessage(`424242`), "no"), resultJSON(req.ID, "ok"))
		},
		check: func(t *testing.T, call *Call, evs []Event) {
			// Well-formed responses that answer no call in flight: unknown
			// responses of the connection, not broken messages.
			wantViolations(t, evs)
			if s := call.c.Stats(); s.UnknownResponses != 2 || s.NotJSONRPC != 0 {
				t.Errorf("Stats = %+v, want 2 unknown responses", s)
			}
			if r := ofKind(evs, EvResult); len(r) != 1 || string(r[0].Result.Text) != "ok" {
				t.Errorf("results = %s", describe(r))
			}
			wantCleanEnd(t, evs)
		},
	},
	{
		name: "stream ends after a response for another id",
		answer: func(w http.ResponseWriter, req fakeReq) {
			writeSSE(w, resultJSON(json.RawMessage(`424242`), "no"))
		},
		check: func(t *testing.T, call *Call, evs []Event) {
			wantViolations(t, evs)
			wantProtocolEnd(t, evs, "after a response for id `424242`")
			if s := call.c.Stats(); s.UnknownResponses != 1 {
				t.Errorf("Stats = %+v, want 1 unknown response", s)
			}
		},
	},
	{
		name: "JSON body for another id",
		answer: func(w http.ResponseWriter, req fakeReq) {
			writeJSON(w, 200, resultJSON(json.RawMessage(`"x"`), "no"))
		},
		check: func(t *testing.T, call *Call, evs []Event) {
			wantViolations(t, evs)
			wantProtocolEnd(t, evs, "the JSON body held a response for id `\"x\"`")
			if s := call.c.Stats(); s.UnknownResponses != 1 {
				t.Errorf("Stats = %+v, want 1 unknown response", s)
			}
		},
	},
	{
		name:   "stream ends after data that is not JSON-RPC",
		answer: func(w http.ResponseWriter, req fakeReq) { writeSSE(w, "hello") },
		check: func(t *testing.T, call *Call, evs []Event) {
			wantViolations(t, evs, ViolNotJSONRPC)
			wantProtocolEnd(t, evs, "after a message that is not JSON-RPC")
		},
	},
}

// hostileHTTPMalformedCases are answers that break the protocol (invalid
// UTF-8, bodies that are not JSON-RPC) and streams that end or stay open at
// the wrong time.
var hostileHTTPMalformedCases = []hostileHTTPCase{
	{
		name: "SSE answer with invalid UTF-8",
		answer: func(w http.ResponseWriter, req fakeReq) {
			writeSSE(w, resultJSON(req.ID, "caf\xe9"), resultJSON(req.ID, "ok"))
		},
		check: func(t *testing.T, call *Call, evs []Event) {
			wantViolations(t, evs, ViolNotJSONRPC)
			wantProtocolEnd(t, evs, "is not valid UTF-8")
		},
	},
	{
		name: "JSON answer with invalid UTF-8",
		answer: func(w http.ResponseWriter, req fakeReq) {
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"error":{"code":-32000,"message":"`+"\xff"+`"}}`)
		},
		check: func(t *testing.T, call *Call, evs []Event) {
			wantViolations(t, evs, ViolNotJSONRPC)
			wantProtocolEnd(t, evs, "is not valid UTF-8")
		},
	},
	{
		name:   "JSON body that is not JSON-RPC",
		answer: func(w http.ResponseWriter, req fakeReq) { writeJSON(w, 200, `{"ok":true}`) },
		check: func(t *testing.T, call *Call, evs []Event) {
			wantViolations(t, evs, ViolNotJSONRPC)
			wantProtocolEnd(t, evs, "JSON body is not a JSON-RPC message")
		},
	},
	{
		name: "result that is not a tools/call result",
		answer: func(w http.ResponseWriter, req fakeReq) {
			writeSSE(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":"done"}`)
		},
		check: func(t *testing.T, call *Call, evs []Event) {
			wantViolations(t, evs, ViolNotJSONRPC)
			wantProtocolEnd(t, evs, "not a tools/call result")
		},
	},
	{
		name: "messages after the final response, then close", progress: true,
		answer: func(w http.ResponseWriter, req fakeReq) {
			writeSSE(w, progressJSON(req.token(), 1), resultJSON(req.ID, "ok"), progressJSON(req.token(), 2), resultJSON(req.ID, "again"))
		},
		check: func(t *testing.T, call *Call, evs []Event) {
			wantViolations(t, evs)
			p, r := ofKind(evs, EvProgress), ofKind(evs, EvResult)
			if len(p) != 2 || p[0].AfterFinal || !p[1].AfterFinal {
				t.Errorf("progress = %s, want the second after the final", describe(p))
			}
			if len(r) != 2 || r[0].AfterFinal || !r[1].AfterFinal || string(r[0].Result.Text) != "ok" {
				t.Errorf("results = %s, want the second after the final", describe(r))
			}
			wantCleanEnd(t, evs)
		},
	},
	{
		name: "stream left open after the final response", progress: true,
		answer: func(w http.ResponseWriter, req fakeReq) {
			writeSSE(w, resultJSON(req.ID, "ok"))
			select {
			case <-req.Req.Context().Done():
			case <-time.After(testutil.WaitLong):
			}
		},
		check: func(t *testing.T, call *Call, evs []Event) {
			wantViolations(t, evs, ViolStreamNotClosed)
			end := lastEnd(t, evs)
			res := ofKind(evs, EvResult)[0]
			if end.Err != nil || end.At.Sub(res.At) < lateWindow {
				t.Errorf("EvEnd %v after %v, want nil after the late window %v", end.Err, end.At.Sub(res.At), lateWindow)
			}
		},
	},
	{
		name: "stream ends before the final response", progress: true,
		answer: func(w http.ResponseWriter, req fakeReq) { writeSSE(w, progressJSON(req.token(), 1)) },
		check: func(t *testing.T, call *Call, evs []Event) {
			if end := lastEnd(t, evs); !errors.Is(end.Err, errStreamEnded) {
				t.Errorf("EvEnd err = %v, want %v", end.Err, errStreamEnded)
			}
		},
	},
}

// hostileHTTPStatusCases are answers judged by their HTTP status and
// headers: Content-Type, Retry-After, JSON bodies and errors.
var hostileHTTPStatusCases = []hostileHTTPCase{
	{
		name: "wrong Content-Type",
		answer: func(w http.ResponseWriter, req fakeReq) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<html>"+resultJSON(req.ID, "ok"))
		},
		check: func(t *testing.T, call *Call, evs []Event) {
			wantViolations(t, evs, ViolContentType)
			if h := ofKind(evs, EvHeaders); len(h) != 1 || h[0].ContentType != "text/html" {
				t.Errorf("headers = %s", describe(h))
			}
			wantProtocolEnd(t, evs, "unexpected Content-Type")
		},
	},
	{
		name: "429 with Retry-After seconds",
		answer: func(w http.ResponseWriter, req fakeReq) {
			w.Header().Set("Retry-After", "7")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		},
		check: func(t *testing.T, call *Call, evs []Event) {
			h := ofKind(evs, EvHeaders)
			if len(h) != 1 || h[0].Status != 429 || h[0].RetryAfter != 7*time.Second {
				t.Errorf("headers = %+v", h)
			}
			if count(evs, EvResult)+count(evs, EvRPCError) != 0 {
				t.Errorf("a plain-text 429 produced an answer: %s", describe(evs))
			}
		},
	},
	{
		name: "503 with Retry-After date",
		answer: func(w http.ResponseWriter, req fakeReq) {
			w.Header().Set("Retry-After", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
			w.WriteHeader(http.StatusServiceUnavailable)
		},
		check: func(t *testing.T, call *Call, evs []Event) {
			h := ofKind(evs, EvHeaders)
			if len(h) != 1 || h[0].Status != 503 || h[0].RetryAfter < 50*time.Minute || h[0].RetryAfter > time.Hour {
				t.Errorf("headers = %+v", h)
			}
		},
	},
	{
		name: "JSON answer", progress: true,
		answer: func(w http.ResponseWriter, req fakeReq) { writeJSON(w, 200, resultJSON(req.ID, "plain")) },
		check: func(t *testing.T, call *Call, evs []Event) {
			wantViolations(t, evs)
			if h := ofKind(evs, EvHeaders); len(h) != 1 || h[0].ContentType != "application/json" || h[0].RetryAfter != -1 {
				t.Errorf("headers = %s", describe(h))
			}
			if r := ofKind(evs, EvResult); len(r) != 1 || string(r[0].Result.Text) != "plain" || r[0].Result.Type != ResultComplete {
				t.Errorf("results = %+v", r)
			}
			wantCleanEnd(t, evs)
		},
	},
	{
		name: "400 with a JSON-RPC error body",
		answer: func(w http.ResponseWriter, req fakeReq) {
			writeJSON(w, 400, errorJSON(req.ID, -32602, `missing "_meta"`))
		},
		check: func(t *testing.T, call *Call, evs []Event) {
			e := ofKind(evs, EvRPCError)
			if len(e) != 1 || e[0].Code != -32602 || string(e[0].Message) != `missing \"_meta\"` || string(e[0].Raw) != `{"k":1}` {
				t.Errorf("rpc errors = %s", describe(e))
			}
			if h := ofKind(evs, EvHeaders); len(h) != 1 || h[0].Status != 400 {
				t.Errorf("headers = %s", describe(h))
			}
		},
	},
	{
		name:   "JSON-RPC error on the stream",
		answer: func(w http.ResponseWriter, req fakeReq) { writeSSE(w, errorJSON(req.ID, -32000, "busy")) },
		check: func(t *testing.T, call *Call, evs []Event) {
			if e := ofKind(evs, EvRPCError); len(e) != 1 || e[0].Code != -32000 {
				t.Errorf("rpc errors = %s", describe(e))
			}
			wantCleanEnd(t, evs)
		},
	},
	{
		name:   "202 to a request",
		answer: func(w http.ResponseWriter, req fakeReq) { w.WriteHeader(http.StatusAccepted) },
		check: func(t *testing.T, call *Call, evs []Event) {
			if end := lastEnd(t, evs); !errors.Is(end.Err, errStreamEnded) {
				t.Errorf("EvEnd err = %v, want %v", end.Err, errStreamEnded)
			}
		},
	},
}

// hostileHTTPFramingCases are SSE framing oddities and results with every
// field a tools/call result can carry.
var hostileHTTPFramingCases = []hostileHTTPCase{
	{
		name: "SSE comments, keep-alives, priming event, fields, CRLF", progress: true,
		answer: func(w http.ResponseWriter, req fakeReq) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, ": keep-alive\n\nid: 0\ndata:\n\nretry: 1000\n\n:\n")
			io.WriteString(w, "event: message\r\nid: 1\r\ndata: "+progressJSON(req.token(), 1)+"\r\n\r\n")
			io.WriteString(w, ": ping\n\nevent: ignored\nunknown-field: x\ndata\n\n")
			io.WriteString(w, "data:"+progressJSON(req.token(), 2)+"\n\n")
			// one message split over two data lines
			io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\ndata: \"id\":"+string(req.ID)+",\"result\":{}}\n\n: bye\n")
		},
		check: func(t *testing.T, call *Call, evs []Event) {
			wantViolations(t, evs)
			if p := ofKind(evs, EvProgress); len(p) != 2 || p[0].Progress != 1 || p[1].Progress != 2 {
				t.Errorf("progress = %s", describe(p))
			}
			if count(evs, EvResult) != 1 {
				t.Errorf("no result: %s", describe(evs))
			}
			wantCleanEnd(t, evs)
		},
	},
	{
		name: "tool error, structured content and load shedding",
		answer: func(w http.ResponseWriter, req fakeReq) {
			writeSSE(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"resultType":"input_required","requestState":"abc","isError":true,"structuredContent":{"a":1},"content":[{"type":"image","data":"x"},{"text":"second","type":"text"}]}}`)
		},
		check: func(t *testing.T, call *Call, evs []Event) {
			r := ofKind(evs, EvResult)
			want := Result{Type: ResultInputRequired, IsError: true, HasStructured: true, StateOnly: true, Text: []byte("second")}
			if len(r) != 1 || r[0].Result.Type != want.Type || r[0].Result.IsError != want.IsError || r[0].Result.HasStructured != want.HasStructured || r[0].Result.StateOnly != want.StateOnly || string(r[0].Result.Text) != "second" {
				t.Errorf("result = %+v, want %+v", r, want)
			}
		},
	},
}
