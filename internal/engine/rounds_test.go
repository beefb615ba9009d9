package engine

import (
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/results"
)

// A fake 2026 server whose tools/call answers are scripted per round, for
// the shapes a real SDK server never sends. The rounds against a real one
// are tested in cmd/mcpchaos (TestRunConfirm).

// roundReq is one tools/call the fake received.
type roundReq struct {
	ID     json.RawMessage `json:"id"`
	Params struct {
		InputResponses json.RawMessage            `json:"inputResponses"`
		RequestState   json.RawMessage            `json:"requestState"`
		Meta           map[string]json.RawMessage `json:"_meta"`
	} `json:"params"`
}

type roundFake struct {
	*httptest.Server
	mu    sync.Mutex
	calls []roundReq
}

func (f *roundFake) received() []roundReq {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]roundReq(nil), f.calls...)
}

// startRoundFake answers the n-th tools/call (from 0) with the result
// answer(n) returns.
func startRoundFake(t *testing.T, answer func(n int) string) *roundFake {
	t.Helper()
	return startReplyFake(t, func(n int, req roundReq) (json.RawMessage, string) { return req.ID, answer(n) })
}

// startReplyFake answers the n-th tools/call (from 0) under the id and
// with the result reply returns; a nil id leaves the request unanswered
// until the client gives it up.
func startReplyFake(t *testing.T, reply func(n int, req roundReq) (id json.RawMessage, result string)) *roundFake {
	t.Helper()
	f := &roundFake{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &m)
		var result string
		switch m.Method {
		case "server/discover":
			result = `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"private","resultType":"complete"}`
		case "tools/list":
			result = `{"tools":[],"resultType":"complete"}`
		case "tools/call":
			var req roundReq
			_ = json.Unmarshal(body, &req)
			f.mu.Lock()
			n := len(f.calls)
			f.calls = append(f.calls, req)
			f.mu.Unlock()
			if m.ID, result = reply(n, req); m.ID == nil {
				<-r.Context().Done()
				return
			}
		default:
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+result+`}`)
	}))
	t.Cleanup(f.Close)
	return f
}

const (
	completeResult = `{"content":[{"type":"text","text":"done"}],"resultType":"complete"}`
	askConfirm     = `{"resultType":"input_required","requestState":"st-1","inputRequests":{"c":{"method":"elicitation/create","params":{"mode":"form","message":"sure?","requestedSchema":{"type":"object"}}}}}`
)

// oneCall is a plan for a single call to the fake.
func oneCall(url string, cl *scenarios.Client) Plan {
	p := httpPlan(url+"/mcp", Load{Rate: perSec(1), Duration: time.Second, MaxInFlight: 10, GracefulStop: 5 * time.Second},
		CallSpec{Tool: "deploy", Arguments: json.RawMessage(`{}`)})
	p.Client = cl
	return p
}

func accepting() *scenarios.Client {
	return &scenarios.Client{MaxRounds: 3, Elicitation: &scenarios.Elicitation{Action: "accept", Content: map[string]any{"confirm": true}}}
}

// roundCase is one call of TestRounds: the fake's answers by round and what the
// record and the server must show.
type roundCase struct {
	name       string
	client     *scenarios.Client
	answers    []string // by round; the last one repeats
	outcome    string
	rounds     int
	loadShed   int
	elicits    int
	violation  string
	serverSaw  int
	checkRetry func(t *testing.T, first, retry roundReq)
}

// roundCases are the cases of TestRounds.
var roundCases = []roundCase{
	{name: "answered", client: accepting(), answers: []string{askConfirm, completeResult},
		outcome: results.OK, rounds: 1, elicits: 1, serverSaw: 2,
		checkRetry: func(t *testing.T, first, retry roundReq) {
			if string(retry.Params.RequestState) != `"st-1"` {
				t.Errorf("retry requestState %s, want the state echoed", retry.Params.RequestState)
			}
			if got := string(retry.Params.InputResponses); got != `{"c":{"action":"accept","content":{"confirm":true}}}` {
				t.Errorf("retry inputResponses %s", got)
			}
			if caps := string(first.Params.Meta["io.modelcontextprotocol/clientCapabilities"]); caps != `{"elicitation":{"form":{}}}` {
				t.Errorf("declared capabilities %s, want elicitation (form)", caps)
			}
		}},
	{name: "load shed", client: &scenarios.Client{MaxRounds: 3}, serverSaw: 2,
		answers: []string{`{"resultType":"input_required","requestState":"again"}`, completeResult},
		outcome: results.OK, rounds: 1, loadShed: 1,
		checkRetry: func(t *testing.T, _, retry roundReq) {
			if string(retry.Params.RequestState) != `"again"` || retry.Params.InputResponses != nil {
				t.Errorf("retry state %s, responses %s; want the state alone", retry.Params.RequestState, retry.Params.InputResponses)
			}
		}},
	{name: "load shed without client section", client: nil, serverSaw: 2,
		answers: []string{`{"resultType":"input_required","requestState":"again"}`, completeResult},
		outcome: results.OK, rounds: 1, loadShed: 1,
		checkRetry: func(t *testing.T, first, retry roundReq) {
			if string(retry.Params.RequestState) != `"again"` || retry.Params.InputResponses != nil {
				t.Errorf("retry state %s, responses %s; want the state alone", retry.Params.RequestState, retry.Params.InputResponses)
			}
			if caps := string(first.Params.Meta["io.modelcontextprotocol/clientCapabilities"]); caps != `{}` {
				t.Errorf("declared capabilities %s, want none without a client section", caps)
			}
		}},
	{name: "load shed past the default bound", client: nil, serverSaw: scenarios.DefaultMaxRounds + 1,
		answers: []string{`{"resultType":"input_required","requestState":"again"}`},
		outcome: results.Throttled, rounds: scenarios.DefaultMaxRounds, loadShed: scenarios.DefaultMaxRounds},
	{name: "content with requests", client: accepting(), serverSaw: 1,
		answers: []string{`{"resultType":"input_required","content":[{"type":"text","text":"x"}],"inputRequests":{"c":{"method":"elicitation/create","params":{}}}}`},
		outcome: results.ProtocolError, violation: violInputWithContent},
	{name: "neither requests nor state", client: accepting(), serverSaw: 1,
		answers: []string{`{"resultType":"input_required"}`},
		outcome: results.ProtocolError, violation: violInputEmpty},
	{name: "undeclared sampling", client: accepting(), serverSaw: 1,
		answers: []string{`{"resultType":"input_required","inputRequests":{"s":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}}}`},
		outcome: results.ProtocolError, violation: violUndeclaredInput},
	{name: "url elicitation not declared", client: accepting(), serverSaw: 1,
		answers: []string{`{"resultType":"input_required","inputRequests":{"u":{"method":"elicitation/create","params":{"mode":"url","url":"https://x"}}}}`},
		outcome: results.ProtocolError, violation: violUndeclaredInput},
	{name: "no client section", client: nil, serverSaw: 1, answers: []string{askConfirm},
		outcome: results.ProtocolError, violation: violUndeclaredInput},
	{name: "not a request", client: accepting(), serverSaw: 1,
		answers: []string{`{"resultType":"input_required","inputRequests":{"a":{"method":"tools/list"}}}`},
		outcome: results.ProtocolError, violation: violBadInputRequest},
	{name: "rounds bound", client: accepting(), answers: []string{askConfirm},
		outcome: results.ToolError, rounds: 3, elicits: 3, serverSaw: 4},
}

// TestRounds runs one call against a fake that answers input_required
// rounds and checks the record, the requests the fake got and the retries.
func TestRounds(t *testing.T) {
	t.Parallel()
	for _, tt := range roundCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := startRoundFake(t, func(n int) string { return tt.answers[min(n, len(tt.answers)-1)] })
			o := runLoad(t, context.Background(), oneCall(f.URL, tt.client))
			if len(o.recs) != 1 {
				t.Fatalf("%d records, want 1", len(o.recs))
			}
			r := o.recs[0]
			if r.Outcome != tt.outcome || r.Rounds != tt.rounds || r.LoadShed != tt.loadShed || r.Inputs["elicitation"] != tt.elicits {
				t.Errorf("outcome %s, rounds %d, load shed %d, inputs %v; want %s, %d, %d, %d elicitation",
					r.Outcome, r.Rounds, r.LoadShed, r.Inputs, tt.outcome, tt.rounds, tt.loadShed, tt.elicits)
			}
			if tt.violation != "" && r.Violations[tt.violation] != 1 {
				t.Errorf("violations %v, want one %s", r.Violations, tt.violation)
			}
			if tt.violation == "" && len(r.Violations) > 0 {
				t.Errorf("violations %v, want none", r.Violations)
			}
			saw := f.received()
			if len(saw) != tt.serverSaw {
				t.Fatalf("the server got %d tools/call, want %d", len(saw), tt.serverSaw)
			}
			ids := map[string]bool{}
			for _, c := range saw {
				if ids[string(c.ID)] {
					t.Errorf("id %s reused by a retry", c.ID)
				}
				ids[string(c.ID)] = true
			}
			if last := saw[len(saw)-1].ID; string(last) != jsonInt(r.ID) {
				t.Errorf("record id %d, want the last round's %s", r.ID, last)
			}
			if tt.checkRetry != nil {
				tt.checkRetry(t, saw[0], saw[1])
			}
		})
	}
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }

// thinkPastCap is one call to url that accepts every confirmation after
// an hour's think, with a cap of 300 ms: the cap stops it while it thinks.
func thinkPastCap(url string) Plan {
	c := accepting()
	c.Elicitation.Think = scenarios.Dist{Value: time.Hour}
	p := oneCall(url, c)
	p.Timeouts = Timeouts{Idle: 100 * time.Millisecond, Max: 300 * time.Millisecond}
	return p
}

// TestRoundsAbandoned: a think time longer than the call's cap abandons
// the call between rounds: it ends as a cap timeout and no retry is sent,
// so no round and no answer is counted, and its think time is the time it
// thought before the cap (not the hour it planned).
func TestRoundsAbandoned(t *testing.T) {
	t.Parallel()
	f := startRoundFake(t, func(int) string { return askConfirm })
	p := thinkPastCap(f.URL)
	o := runLoad(t, context.Background(), p)
	if len(o.recs) != 1 {
		t.Fatalf("%d records, want 1", len(o.recs))
	}
	r := o.recs[0]
	// It thought until the cap stopped it: 300 ms from the send, and a
	// wake-up's delay more on a busy machine (never the hour).
	if r.Outcome != results.TimeoutCap || r.Rounds != 0 || r.ThinkUs <= 0 || r.ThinkUs > results.Us(p.Timeouts.Max+5*time.Second) || len(r.Inputs) != 0 {
		t.Errorf("outcome %s, rounds %d, think %dus, inputs %v; want timeout_cap, no round or answer sent, the time to the cap thought", r.Outcome, r.Rounds, r.ThinkUs, r.Inputs)
	}
	// The server's ask is still counted (mrtr.input_required): the last
	// answer, not retried.
	if r.ResultType != "input_required" {
		t.Errorf("result type %q; want input_required, the last answer", r.ResultType)
	}
	if n := len(f.received()); n != 1 {
		t.Errorf("the server got %d tools/call, want 1 (the retry abandoned)", n)
	}
	if o.elapsed > time.Minute {
		t.Errorf("the run took %s: the think was not cut by the cap", o.elapsed)
	}
}

func TestAnswersRespond(t *testing.T) {
	a := newAnswers(&scenarios.Client{
		Elicitation: &scenarios.Elicitation{Action: "decline", Think: scenarios.Dist{Value: time.Second}},
		Sampling:    &scenarios.Sampling{Text: "hi", Model: "m", StopReason: "endTurn", Think: scenarios.Dist{Value: 2 * time.Second}},
		Roots:       []scenarios.Root{{URI: "file:///a"}}, HasRoots: true,
		ByTool: map[string]scenarios.ToolAnswers{"t": {Elicitation: &scenarios.Elicitation{Action: "cancel"}}},
	}, 1)
	reqs := `{"e":{"method":"elicitation/create","params":{}},"s":{"method":"sampling/createMessage","params":{}},"r":{"method":"roots/list"}}`
	got, err := a.respond("other", []byte(reqs), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"e":{"action":"decline"},"r":{"roots":[{"uri":"file:///a"}]},"s":{"content":{"text":"hi","type":"text"},"model":"m","role":"assistant","stopReason":"endTurn"}}`
	if string(got.responses) != want || got.think != 3*time.Second || len(got.undeclared) != 0 {
		t.Errorf("responses %s, think %s, undeclared %v\nwant %s, 3s", got.responses, got.think, got.undeclared, want)
	}
	got, _ = a.respond("t", []byte(`{"e":{"method":"elicitation/create","params":{}}}`), nil)
	if string(got.responses) != `{"e":{"action":"cancel"}}` {
		t.Errorf("by_tool answer %s, want cancel", got.responses)
	}
	if caps := string(a.capabilities()); caps != `{"elicitation":{"form":{}},"roots":{},"sampling":{}}` {
		t.Errorf("capabilities %s", caps)
	}
	if a.AnswerInput("x", vocab.MethodElicit, []byte(`{"mode":"url"}`)).Declared {
		t.Error("a url elicitation was answered; only form is declared")
	}
	if !strings.Contains(string(answers{c: &scenarios.Client{}}.capabilities()), "{}") {
		t.Error("an empty client section does not declare {}")
	}
}

// TestThinkDrawn: a think distribution is drawn from the generator it is
// given: within its bounds, the same for the same seed.
func TestThinkDrawn(t *testing.T) {
	a := answers{c: &scenarios.Client{Elicitation: &scenarios.Elicitation{Action: "accept",
		Think: scenarios.Dist{Kind: scenarios.DistUniform, Low: time.Second, High: 2 * time.Second}}}}
	reqs := []byte(`{"a":{"method":"elicitation/create","params":{}},"b":{"method":"elicitation/create","params":{}}}`)
	draw := func(seed uint64) time.Duration {
		got, err := a.respond("x", reqs, rand.New(rand.NewPCG(seed, 1)))
		if err != nil {
			t.Fatal(err)
		}
		return got.think
	}
	d := draw(7)
	if d < 2*time.Second || d > 4*time.Second || d != draw(7) || d == draw(8) {
		t.Errorf("think %s (seed 7), %s again, %s (seed 8): want two draws of 1-2s each, the same for the same seed", d, draw(7), draw(8))
	}
}

// TestContentMismatch: an accepted form whose content does not fit the
// form's requestedSchema is counted; one that fits is not.
func TestContentMismatch(t *testing.T) {
	t.Parallel()
	ask := `{"resultType":"input_required","requestState":"s","inputRequests":{"c":{"method":"elicitation/create","params":{"message":"sure?",` +
		`"requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}}}}}`
	for _, tc := range []struct {
		name    string
		content map[string]any
		want    int
	}{
		{"fits", map[string]any{"confirm": true}, 0},
		{"wrong type", map[string]any{"confirm": "yes"}, 1},
		{"missing", nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := startRoundFake(t, func(n int) string { return []string{ask, completeResult}[min(n, 1)] })
			c := accepting()
			c.Elicitation.Content = tc.content
			o := runLoad(t, context.Background(), oneCall(f.URL, c))
			if r := o.recs[0]; r.ContentMismatch != tc.want || r.Outcome != results.OK {
				t.Errorf("content mismatch %d, outcome %s; want %d, ok", r.ContentMismatch, r.Outcome, tc.want)
			}
		})
	}
}
