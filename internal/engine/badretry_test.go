package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/results"
)

// badRetryFault builds a bad_retry fault of mode, acting on every call.
func badRetryFault(t *testing.T, mode string) faults.Fault {
	t.Helper()
	sc, err := scenarios.Parse("f.yaml", []byte("target: {builtin: {}}\nload: {rate: 1/1s, duration: 1s}\ncalls: [{tool: deploy}]\n"+
		"faults: [{kind: bad_retry, mode: "+mode+"}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Faults(sc)
	if err != nil {
		t.Fatal(err)
	}
	return fs[0]
}

// TestBadRetry: each mode of the bad_retry fault against the built-in
// target's deploy tool (a real SDK server that verifies its state and its
// answer) gets the answer a correct server gives; abandon sends no retry
// and leaves nothing confirmed.
func TestBadRetry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode, outcome, detail string
		rounds                int
		notConfirmed          int64 // the target's ledger: retries its deploy refused
	}{
		{"drop_state", results.ToolError, "expected answer: a tool error", 1, 1},
		{"alter_state", results.ToolError, "expected answer: a tool error", 1, 1},
		{"wrong_answer", results.ToolError, "expected answer: a tool error", 1, 1},
		// The SDK refuses an answer it cannot read before the tool runs.
		{"wrong_shape", results.RPCError, "expected answer: an error", 1, 0},
		{"abandon", results.Cancelled, "abandoned after input_required: no retry sent", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			tg := newTarget(t, targetserver.Config{Confirm: true})
			p := httpPlan(tg.URL, Load{Rate: perSec(1), Duration: time.Second, GracefulStop: testutil.WaitLong},
				CallSpec{Tool: targetserver.ToolDeploy, Arguments: json.RawMessage(`{"steps":1,"step_ms":1}`)})
			p.Client = accepting()
			p.Faults = []faults.Fault{badRetryFault(t, tt.mode)}
			o := runLoad(t, context.Background(), p)
			if len(o.recs) != 1 {
				t.Fatalf("%d records, want 1", len(o.recs))
			}
			r := o.recs[0]
			if r.Outcome != tt.outcome || r.Rounds != tt.rounds || len(r.Faults) != 1 || r.Faults[0].Detail != tt.detail || r.Faults[0].Mode != tt.mode {
				t.Errorf("outcome %s, rounds %d, faults %+v; want %s, %d rounds, %q", r.Outcome, r.Rounds, r.Faults, tt.outcome, tt.rounds, tt.detail)
			}
			st := tg.Server.Stats()
			if st.ConfirmAsked != 1 || st.Confirmed != 0 || st.NotConfirmed != tt.notConfirmed {
				t.Errorf("target ledger asked %d, confirmed %d, not confirmed %d; want 1, 0, %d", st.ConfirmAsked, st.Confirmed, st.NotConfirmed, tt.notConfirmed)
			}
		})
	}
}

// TestBadRetryNotSent: a broken retry the call never sent (its think
// time outlasted the call's cap) is not judged: nothing answered it.
func TestBadRetryNotSent(t *testing.T) {
	t.Parallel()
	f := startRoundFake(t, func(int) string { return askConfirm })
	p := thinkPastCap(f.URL)
	p.Faults = []faults.Fault{badRetryFault(t, "drop_state")}
	o := runLoad(t, context.Background(), p)
	if len(o.recs) != 1 {
		t.Fatalf("%d records, want 1", len(o.recs))
	}
	r := o.recs[0]
	if r.Outcome != results.TimeoutCap || len(r.Faults) != 1 || !strings.HasPrefix(r.Faults[0].Detail, "not judged: stopped before the broken retry was sent") {
		t.Errorf("outcome %s, faults %+v; want timeout_cap, the fault not judged", r.Outcome, r.Faults)
	}
}

// TestBadRetryUnexpected: a server that does the work on a retry without
// its state is caught; a call that gets no input_required is left alone.
func TestBadRetryUnexpected(t *testing.T) {
	t.Parallel()
	f := startRoundFake(t, func(n int) string { return []string{askConfirm, completeResult}[min(n, 1)] })
	p := oneCall(f.URL, accepting())
	p.Faults = []faults.Fault{badRetryFault(t, "drop_state")}
	o := runLoad(t, context.Background(), p)
	if len(o.recs) != 1 || len(o.recs[0].Faults) != 1 || !strings.HasPrefix(o.recs[0].Faults[0].Detail, "unexpected answer: the work done") {
		t.Fatalf("records %+v, want one whose bad_retry is an unexpected answer", o.recs)
	}
	if saw := f.received(); len(saw) != 2 || saw[1].Params.RequestState != nil {
		t.Errorf("the retry carried state %s, want none", saw[len(saw)-1].Params.RequestState)
	}

	plain := startRoundFake(t, func(int) string { return completeResult })
	p = oneCall(plain.URL, accepting())
	p.Faults = []faults.Fault{badRetryFault(t, "abandon")}
	o = runLoad(t, context.Background(), p)
	if r := o.recs[0]; r.Outcome != results.OK || !r.Faults[0].Skipped {
		t.Errorf("outcome %s, faults %+v: want ok and the fault skipped", r.Outcome, r.Faults)
	}
}

// TestLoadShedRounds: against the built-in target shedding half its calls
// (the Go SDK's load-shedding answer), each shed call is retried with its
// state echoed, with a client section and without one (load shedding asks
// for no input): every call ends ok, and the rounds match the target's own
// count of shed calls and served retries.
func TestLoadShedRounds(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		client *scenarios.Client
	}{{"client section", &scenarios.Client{MaxRounds: 10}}, {"no client section", nil}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tg := newTarget(t, targetserver.Config{LoadShed: 0.5, Seed: 3})
			p := httpPlan(tg.URL, Load{Rate: perSec(20), Duration: time.Second, GracefulStop: testutil.WaitLong}, echoCall)
			p.Client = tt.client
			o := runLoad(t, context.Background(), p)
			shed := 0
			for _, r := range o.recs {
				if r.Outcome != results.OK || r.Rounds != r.LoadShed {
					t.Errorf("seq %d: outcome %s, rounds %d, load shed %d; want ok, every round a load shed", r.Seq, r.Outcome, r.Rounds, r.LoadShed)
				}
				shed += r.LoadShed
			}
			st := tg.Server.Stats()
			if shed == 0 || int64(shed) != st.Shed || st.ShedRetried != st.Shed {
				t.Errorf("client retried %d shed calls; the target shed %d and served %d retries", shed, st.Shed, st.ShedRetried)
			}
		})
	}
}
