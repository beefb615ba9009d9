package targetserver

import (
	"encoding/json"
	"sync"
	"testing"

	mc "github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// answerLog keeps what a call's final answer was.
type answerLog struct {
	mu            sync.Mutex
	typ           mc.ResultType
	isError       bool
	inputRequests string
	state         json.RawMessage
	code          int64
}

func (a *answerLog) OnEvent(ev mc.Event) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch ev.Kind {
	case mc.EvResult:
		a.typ, a.isError = ev.Result.Type, ev.Result.IsError
		a.inputRequests = string(ev.Result.InputRequests)
		a.state = append(json.RawMessage(nil), ev.Result.RequestState...)
	case mc.EvRPCError:
		a.code = ev.Code
	}
}

// TestConfirm: the deploy tool of the confirm knob, driven over 2026 HTTP
// with our own client, asks for confirmation, works only for a retry that
// carries an accepted answer and its state unaltered, refuses a client
// that did not declare elicitation, and counts each case in its ledger.
func TestConfirm(t *testing.T) {
	t.Parallel()
	r := startHTTP(t, Config{Confirm: true, Seed: 5})
	dial := func(caps string) *mc.Client {
		c, err := mc.Dial(t.Context(), mc.Config{HTTP: &mc.HTTPConfig{URL: r.URL}, Capabilities: []byte(caps)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close(t.Context()) })
		return c
	}
	c := dial(`{"elicitation":{"form":{}}}`)
	call := func(c *mc.Client, responses, state string) *answerLog {
		t.Helper()
		a := &answerLog{}
		req := mc.CallRequest{Tool: ToolDeploy, Arguments: json.RawMessage(`{"steps":1,"step_ms":1}`), Observer: a}
		if responses != "" {
			req.InputResponses = json.RawMessage(responses)
		}
		if state != "" {
			req.RequestState = json.RawMessage(state)
		}
		cl, err := c.Start(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		cl.Wait()
		return a
	}

	first := call(c, "", "")
	if first.typ != mc.ResultInputRequired || first.state == nil {
		t.Fatalf("first answer %s with state %s, want input_required with a requestState", first.typ, first.state)
	}
	var reqs map[string]struct {
		Method string `json:"method"`
	}
	if err := json.Unmarshal([]byte(first.inputRequests), &reqs); err != nil || reqs[ConfirmKey].Method != vocab.MethodElicit {
		t.Fatalf("inputRequests %s, want an elicitation under %q", first.inputRequests, ConfirmKey)
	}
	state := string(first.state)
	altered := state[:len(state)-2] + `0"`
	if altered == state {
		altered = state[:len(state)-2] + `1"`
	}
	yes := `{"confirm":{"action":"accept","content":{"confirm":true}}}`
	for _, tc := range []struct {
		name, responses, state string
		isError                bool
	}{
		{"accepted", yes, state, false},
		{"declined", `{"confirm":{"action":"decline"}}`, state, true},
		{"not confirmed", `{"confirm":{"action":"accept","content":{"confirm":false}}}`, state, true},
		{"state dropped", yes, "", true},
		{"state altered", yes, altered, true},
	} {
		a := call(c, tc.responses, tc.state)
		if a.typ != mc.ResultComplete || a.isError != tc.isError {
			t.Errorf("%s: result %s, isError %v; want complete, isError %v", tc.name, a.typ, a.isError, tc.isError)
		}
	}
	if a := call(dial(`{}`), "", ""); a.code != codeMissingCapability {
		t.Errorf("a client without elicitation got code %d, want %d", a.code, codeMissingCapability)
	}
	st := r.Server.Stats()
	if st.ConfirmAsked != 1 || st.Confirmed != 1 || st.NotConfirmed != 4 || st.Completed != 1 {
		t.Errorf("ledger: asked %d, confirmed %d, not confirmed %d, completed %d; want 1, 1, 4, 1",
			st.ConfirmAsked, st.Confirmed, st.NotConfirmed, st.Completed)
	}
}
