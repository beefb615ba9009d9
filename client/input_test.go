package client

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// cannedAnswers answers elicitation only, as a client section with
// client.elicitation would.
type cannedAnswers struct{}

func (cannedAnswers) AnswerInput(tool, method string, _ []byte) InputAnswer {
	if method != vocab.MethodElicit {
		return InputAnswer{}
	}
	return InputAnswer{Result: []byte(`{"action":"accept","content":{"tool":"` + tool + `"}}`), Declared: true}
}

// TestLegacyInputRequests: a 2025 server's input requests on a call's
// stream are answered with a POST of their own when declared (the call
// sees EvInput), refused with method-not-found and reported as
// undeclared_input when not; the capabilities go into initialize.
func TestLegacyInputRequests(t *testing.T) {
	t.Parallel()
	f := startLegacyFake(t, func(w http.ResponseWriter, req fakeReq) bool {
		if req.Method != vocab.MethodToolsCall {
			return false
		}
		writeSSE(w,
			`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"sure?","requestedSchema":{"type":"object"}}}`,
			`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}`,
			resultJSON(req.ID, "done"))
		return true
	})
	c := dialFake(t, f, Config{Protocol: Era20251125, Capabilities: []byte(`{"elicitation":{}}`), Answerer: cannedAnswers{}})
	_, evs := runCall(t, c, "deploy", false)
	var inputs []string
	for _, ev := range evs {
		if ev.Kind == EvInput {
			inputs = append(inputs, ev.Detail)
		}
	}
	if len(inputs) != 1 || inputs[0] != "elicitation" || !hasViolation(evs, ViolUndeclaredInput) {
		t.Errorf("inputs %v, undeclared violation %v; want one elicitation and the sampling request undeclared", inputs, hasViolation(evs, ViolUndeclaredInput))
	}
	answer := func(id string) string {
		for _, r := range f.requests() {
			if strings.Contains(string(r.Body), `"id":"`+id+`"`) {
				return string(r.Body)
			}
		}
		return ""
	}
	testutil.Eventually(t, "both answers posted", func() bool { return answer("e1") != "" && answer("s1") != "" })
	if got := answer("e1"); got != `{"jsonrpc":"2.0","id":"e1","result":{"action":"accept","content":{"tool":"deploy"}}}` {
		t.Errorf("elicitation answer %s", got)
	}
	if got := answer("s1"); !strings.Contains(got, `"code":-32601`) {
		t.Errorf("sampling answer %s, want method-not-found", got)
	}
	for _, r := range f.requests() {
		if r.Method == vocab.MethodInitialize && !strings.Contains(string(r.Body), `"capabilities":{"elicitation":{}}`) {
			t.Errorf("initialize %s does not declare elicitation", r.Body)
		}
	}
	if st := c.Stats(); st.ServerRequests != 0 || st.InputElicitation != 0 {
		t.Errorf("connection stats %+v: the requests on the call's stream belong to the call", st)
	}
}

// TestDecodeInputRequired: what the client reads of input_required
// results: the raw requests and state, load shedding (state only, or the
// Go SDK's empty inputRequests), and content beside requests.
func TestDecodeInputRequired(t *testing.T) {
	tests := []struct {
		name, result            string
		stateOnly, hasContent   bool
		inputRequests, reqState string
	}{
		{"requests and state", `{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"}},"requestState":"s"}`,
			false, false, `{"a":{"method":"roots/list"}}`, `"s"`},
		{"state only", `{"resultType":"input_required","requestState":"s"}`, true, false, "", `"s"`},
		{"empty requests", `{"resultType":"input_required","inputRequests":{ },"requestState":"s"}`, true, false, "", `"s"`},
		{"null state", `{"resultType":"input_required","requestState":null}`, false, false, "", ""},
		{"content beside requests", `{"resultType":"input_required","content":[{"type":"text","text":"x"}],"inputRequests":{"a":{}}}`,
			false, true, `{"a":{}}`, ""},
		{"empty content", `{"resultType":"complete","content":[]}`, false, false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sc scanner
			var r Result
			if err := decodeCallResult(&sc, []byte(tt.result), &r); err != nil {
				t.Fatal(err)
			}
			if r.StateOnly != tt.stateOnly || r.HasContent != tt.hasContent || string(r.InputRequests) != tt.inputRequests || string(r.RequestState) != tt.reqState {
				t.Errorf("state only %v, content %v, requests %s, state %s", r.StateOnly, r.HasContent, r.InputRequests, r.RequestState)
			}
		})
	}
}

// TestInputRequiredMethod: input_required to tools/list (which may not
// carry it) is counted on the connection; to tools/call it is not.
func TestInputRequiredMethod(t *testing.T) {
	t.Parallel()
	f := startFake(t, func(w http.ResponseWriter, req fakeReq) bool {
		switch req.Method {
		case vocab.MethodToolsList, vocab.MethodToolsCall:
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"resultType":"input_required","requestState":"s"}}`)
			return true
		}
		return false
	})
	c := dialFake(t, f, Config{})
	_, _ = c.ListTools(ctxT(t))
	_, _ = c.CallTool(ctxT(t), "echo", nil)
	if n := c.Stats().InputMethod; n != 1 {
		t.Errorf("InputMethod = %d, want 1 (tools/list only)", n)
	}
}

// slowAnswers answers elicitation after an hour's think.
type slowAnswers struct{}

func (slowAnswers) AnswerInput(string, string, []byte) InputAnswer {
	return InputAnswer{Result: []byte(`{"action":"decline"}`), Think: time.Hour, Declared: true}
}

// TestInputAnswersStopOnClose: answers still thinking when the client
// closes are dropped, not left waiting out their think time.
func TestInputAnswersStopOnClose(t *testing.T) {
	t.Parallel()
	f := startLegacyFake(t, func(w http.ResponseWriter, req fakeReq) bool {
		if req.Method != vocab.MethodToolsCall {
			return false
		}
		writeSSE(w, `{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"?"}}`, resultJSON(req.ID, "done"))
		return true
	})
	c := dialFake(t, f, Config{Protocol: Era20251125, Capabilities: []byte(`{"elicitation":{}}`), Answerer: slowAnswers{}})
	runCall(t, c, "deploy", false)
	if n := len(c.inputAnswering.slots); n != 1 {
		t.Fatalf("%d answers waiting, want the one thinking", n)
	}
	if err := c.Close(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the thinking answer dropped", func() bool { return len(c.inputAnswering.slots) == 0 })
}
