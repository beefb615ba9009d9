package client

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// hostileStdioServer is the "hostile" helper process: a 2026 stdio server
// whose tools break protocol rules on purpose, one rule per tool name.
func hostileStdioServer() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	send := func(lines ...string) {
		for _, l := range lines {
			out.WriteString(l + "\n")
		}
		out.Flush()
	}
	var held json.RawMessage // a held_* call's id, answered at the next ping
	var heldFirst bool       // held_before: its answer goes out before the ping's
	for in.Scan() {
		var req fakeReq
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue // notifications
		}
		id, tok := req.ID, req.token()
		switch req.Method {
		case vocab.MethodDiscover:
			send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"supportedVersions":["2026-07-28"]}}`)
			continue
		case vocab.MethodPing:
			pong := `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{}}`
			switch {
			case held == nil:
				send(pong)
			case heldFirst:
				send(resultJSON(held, "held"), pong)
			default:
				send(pong, resultJSON(held, "held"))
			}
			held = nil
			continue
		case vocab.MethodToolsCall:
		default:
			send(errorJSON(id, -32601, "no such method"))
			continue
		}
		switch req.Params.Name {
		case "unknown_token":
			send(progressJSON("zzz", 1), progressJSON("p999999", 2), `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}`,
				progressJSON(tok, 3), resultJSON(id, "ok"))
		case "not_json":
			send("this is not json", `{"jsonrpc":"2.0"}`, "", `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, resultJSON(id, "ok"))
		case "server_request":
			send(`{"jsonrpc":"2.0","id":7,"method":"ping"}`, `{"jsonrpc":"2.0","id":"abc","method":"sampling/createMessage","params":{}}`,
				`{"jsonrpc":"2.0","id":8,"id":"dup","method":"ping"}`, "{\"jsonrpc\":\"2.0\",\"id\":\"q\\\"\x7f\",\"method\":\"ping\"}",
				`{"jsonrpc":"2.0","id":123456789012345678901,"method":"ping"}`)
			for n := 0; n < 5 && in.Scan(); n++ {
				fmt.Fprintf(os.Stderr, "answer %s\n", in.Bytes())
			}
			send(resultJSON(id, "ok"))
		case "after_final":
			send(progressJSON(tok, 1), resultJSON(id, "ok"), progressJSON(tok, 2), resultJSON(id, "again"))
		case "stale":
			send(resultJSON(id, "ok"))
			time.Sleep(8 * lateWindow) // long after the client forgot the id
			send(progressJSON(tok, 5), resultJSON(id, "stale"))
		case "server_cancel":
			send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+string(id)+`}}`, resultJSON(id, "ok"))
		case "unknown_response":
			send(resultJSON(json.RawMessage("999999"), "?"), resultJSON(json.RawMessage(`"str"`), "?"), resultJSON(id, "ok"))
		case "too_deep":
			send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`)
		case "held_before", "held_after":
			held, heldFirst = id, req.Params.Name == "held_before"
		case "echo":
			send(resultJSON(id, "echo"))
		default:
			send(errorJSON(id, -32602, "unknown tool"))
		}
	}
}

// hostileStdioCase is a tool of the hostile helper server that breaks a
// rule, and a check of what the client made of it.
type hostileStdioCase struct {
	name  string
	check func(t *testing.T, c *Client, evs []Event)
}

var hostileStdioCases = []hostileStdioCase{
	{"unknown_token", func(t *testing.T, c *Client, evs []Event) {
		if s := c.Stats(); s.UnknownTokens != 3 {
			t.Errorf("Stats.UnknownTokens = %d, want 3 (%+v)", s.UnknownTokens, s)
		}
		if p := ofKind(evs, EvProgress); len(p) != 1 || p[0].Progress != 3 {
			t.Errorf("progress = %s", describe(p))
		}
	}},
	{"not_json", func(t *testing.T, c *Client, evs []Event) {
		// three lines that are no message, and one progress without fields
		if s := c.Stats(); s.NotJSONRPC != 4 {
			t.Errorf("Stats.NotJSONRPC = %d, want 4 (%+v)", s.NotJSONRPC, s)
		}
	}},
	{"server_request", func(t *testing.T, c *Client, evs []Event) {
		if s := c.Stats(); s.ServerRequests != 5 {
			t.Errorf("Stats.ServerRequests = %d, want 5", s.ServerRequests)
		}
		stderr := string(c.Stderr())
		for _, line := range stderrLines(c, "answer ") {
			if !json.Valid([]byte(strings.TrimPrefix(line, "answer "))) {
				t.Errorf("the client wrote invalid JSON to the server: %s", line)
			}
		}
		for _, want := range []string{`answer {"jsonrpc":"2.0","id":7,"result":{}}`, `answer {"jsonrpc":"2.0","id":"abc","error":{"code":-32601,`,
			`answer {"jsonrpc":"2.0","id":"dup","result":{}}`, "answer {\"jsonrpc\":\"2.0\",\"id\":\"q\\\"\x7f\",\"result\":{}}",
			`answer {"jsonrpc":"2.0","id":123456789012345678901,"result":{}}`} {
			if !strings.Contains(stderr, want) {
				t.Errorf("server did not get %s; its stderr:\n%s", want, stderr)
			}
		}
	}},
	{"after_final", func(t *testing.T, c *Client, evs []Event) {
		p, r := ofKind(evs, EvProgress), ofKind(evs, EvResult)
		if len(p) != 2 || p[0].AfterFinal || !p[1].AfterFinal || p[1].Late {
			t.Errorf("progress = %s", describe(p))
		}
		if len(r) != 2 || r[0].AfterFinal || !r[1].AfterFinal || string(r[0].Result.Text) != "ok" {
			t.Errorf("results = %s", describe(r))
		}
	}},
	{"stale", func(t *testing.T, c *Client, evs []Event) {
		testutil.Eventually(t, "two stale messages", func() bool { return c.Stats().Stale == 2 })
		if s := c.Stats(); s.StaleAnswers != 0 {
			t.Errorf("Stats.StaleAnswers = %d, want 0: the call had its answer, nobody stopped it", s.StaleAnswers)
		}
		if r := ofKind(evs, EvResult); len(r) != 1 {
			t.Errorf("results = %s", describe(r))
		}
	}},
	{"server_cancel", func(t *testing.T, c *Client, evs []Event) {
		wantViolations(t, evs, ViolServerCancel)
		if s := c.Stats(); s.ServerCancels != 1 {
			t.Errorf("Stats.ServerCancels = %d", s.ServerCancels)
		}
	}},
	{"unknown_response", func(t *testing.T, c *Client, evs []Event) {
		if s := c.Stats(); s.UnknownResponses != 2 {
			t.Errorf("Stats.UnknownResponses = %d, want 2", s.UnknownResponses)
		}
	}},
}

// dialHostile connects to the hostile helper server and closes the client
// at the end of the test.
func dialHostile(t *testing.T) *Client {
	t.Helper()
	c, err := Dial(ctxT(t), Config{Stdio: helperStdio("hostile"), LateWindow: lateWindow, ProbeTimeout: testutil.WaitLong})
	if err != nil {
		t.Fatal(err)
	}
	closeClient(t, c)
	return c
}

// TestHostileStdio calls each rule-breaking tool of the hostile helper
// server, checks what the client reports, and that the connection still
// works after it.
func TestHostileStdio(t *testing.T) {
	t.Parallel()
	for _, tc := range hostileStdioCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := dialHostile(t)
			if c.Era() != Era20260728 {
				t.Fatalf("era %s", c.Era())
			}
			_, evs := runCall(t, c, tc.name, true)
			if r := ofKind(evs, EvResult); len(r) == 0 || string(r[0].Result.Text) != "ok" || r[0].AfterFinal {
				t.Errorf("first result = %s", describe(r))
			}
			tc.check(t, c, evs)
			// Whatever the server did, the connection still works.
			_, evs = runCall(t, c, "echo", true)
			if r := ofKind(evs, EvResult); len(r) != 1 || string(r[0].Result.Text) != "echo" || lastEnd(t, evs).Err != nil {
				t.Errorf("a later call failed: %s", describe(evs))
			}
		})
	}
}

// TestHostileStdioTooDeep: an answer nested deeper than mcpchaos reads
// (over 256 levels) ends its call at once with the cause, as over HTTP; it
// was dropped, and the call waited for its timeout (a review of issue 29:
// tools timed out after 30 s). The connection still works after it.
func TestHostileStdioTooDeep(t *testing.T) {
	t.Parallel()
	c := dialHostile(t)
	_, evs := runCall(t, c, "too_deep", false)
	end := lastEnd(t, evs)
	if end.Err == nil || !strings.Contains(end.Err.Error(), "nested too deeply") || !IsProtocolError(end.Err) {
		t.Errorf("the call ended with %v, want a protocol error naming the depth", end.Err)
	}
	if !hasViolation(evs, ViolNotJSONRPC) {
		t.Errorf("no not_jsonrpc violation in %s", describe(evs))
	}
	_, evs = runCall(t, c, "echo", false)
	if r := ofKind(evs, EvResult); len(r) != 1 || string(r[0].Result.Text) != "echo" {
		t.Errorf("a later call failed: %s", describe(evs))
	}
}

// TestStaleAnswerFenced: an answer to a call we stopped, read after the
// late window, counts as a stale answer (work that ran on after the
// cancel) only when the server wrote it after answering a fence sent after
// the stop. Written before the fence's answer, it may have waited in the
// pipe since before the server saw the cancel (a starved server or
// reader): stale, but no evidence.
func TestStaleAnswerFenced(t *testing.T) {
	for _, tc := range []struct {
		tool string
		want int64
	}{{"held_before", 0}, {"held_after", 1}} {
		t.Run(tc.tool, func(t *testing.T) {
			t.Parallel()
			c := dialHostile(t)
			rec := newRecorder()
			call, err := c.Start(ctxT(t), CallRequest{Tool: tc.tool, Observer: rec})
			if err != nil {
				t.Fatal(err)
			}
			if err := call.Cancel("test", true); err != nil {
				t.Fatal(err)
			}
			rec.waitEnd(t) // the late window is over: the id is forgotten
			if _, err := c.Fence(ctxT(t)); err != nil {
				t.Fatal(err)
			}
			testutil.Eventually(t, "the held answer read", func() bool { return c.Stats().Stale == 1 })
			if got := c.Stats().StaleAnswers; got != tc.want {
				t.Errorf("Stats.StaleAnswers = %d, want %d", got, tc.want)
			}
		})
	}
}
