package faults_test

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/faults"
	"github.com/mcpchaos/mcpchaos/mcp"
	"github.com/mcpchaos/mcpchaos/scenarios"
)

// The faults on their own, without a run: what they draw and what they do
// to a call. (Each kind's own unit tests sit beside its run tests.)

func dist(t *testing.T, s string) *scenarios.Dist {
	t.Helper()
	d, err := scenarios.ParseDist(s)
	if err != nil {
		t.Fatal(err)
	}
	return &d
}

func newFault(t *testing.T, spec scenarios.Fault) faults.Fault {
	t.Helper()
	v, err := faults.New(spec)
	if err != nil {
		t.Fatalf("New(%+v): %v", spec, err)
	}
	f, ok := v.(faults.Fault)
	if !ok {
		t.Fatalf("New(%s) is a %T, not a per-call Fault", spec.Kind, v)
	}
	return f
}

// TestDrawSameNumbers: a fault draws the same numbers from the call's
// random source whether it hits or not (probability 0 or 1, a tool it
// does not apply to), so the faults after it see the same numbers and a
// seed replays the same faults.
func TestDrawSameNumbers(t *testing.T) {
	t.Parallel()
	specs := map[string]scenarios.Fault{
		"cancel after":          {Kind: scenarios.FaultCancel, After: dist(t, "uniform(10ms, 1s)")},
		"cancel after_progress": {Kind: scenarios.FaultCancel, AfterProgress: 3},
		"disconnect exp":        {Kind: scenarios.FaultDisconnect, After: dist(t, "exp(200ms)"), Mode: "rst"},
		"cancel_race response":  {Kind: scenarios.FaultCancelRace, At: "response"},
		"cancel_race before":    {Kind: scenarios.FaultCancelRace, BeforeEnd: scenarios.Duration(50 * time.Millisecond)},
		"stall_read":            {Kind: scenarios.FaultStallRead, After: dist(t, "uniform(0s, 100ms)"), For: scenarios.Duration(time.Second)},
		"malformed":             {Kind: scenarios.FaultMalformed, Mode: "json"},
		"reissue":               {Kind: scenarios.FaultReissue, Max: 2},
	}
	for name, spec := range specs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var next []uint64
			var whens []faults.When
			for _, v := range []struct {
				p     float64
				tools []string
				want  bool
			}{{1, nil, true}, {0, nil, false}, {1, []string{"other_*"}, false}} {
				spec := spec
				spec.Probability, spec.Tools = v.p, v.tools
				f := newFault(t, spec)
				for seq := uint64(0); seq < 50; seq++ {
					rng := rand.New(rand.NewPCG(99, seq))
					w, ok := f.Draw(rng, faults.Info{Tool: "slow_task", Typical: 300 * time.Millisecond})
					if ok != v.want {
						t.Fatalf("probability %v, tools %v: Draw hit = %v, want %v", v.p, v.tools, ok, v.want)
					}
					if v.want {
						whens = append(whens, w)
						next = append(next, rng.Uint64())
					} else if got := rng.Uint64(); got != next[seq] {
						t.Fatalf("seq %d: the number after Draw is %d when it skips, %d when it hits: it drew differently", seq, got, next[seq])
					}
				}
			}
			// The time itself comes from the seed too.
			f := newFault(t, spec)
			for seq := uint64(0); seq < 50; seq++ {
				w, _ := f.Draw(rand.New(rand.NewPCG(99, seq)), faults.Info{Tool: "slow_task", Typical: 300 * time.Millisecond})
				if w != whens[seq] {
					t.Fatalf("seq %d: drew %+v, then %+v from the same seed", seq, whens[seq], w)
				}
			}
		})
	}
}

// TestDrawWhen: when each kind acts.
func TestDrawWhen(t *testing.T) {
	t.Parallel()
	typical := 300 * time.Millisecond
	for _, tc := range []struct {
		name    string
		spec    scenarios.Fault
		typical time.Duration
		check   func(faults.When) bool
	}{
		{"cancel fixed", scenarios.Fault{Kind: scenarios.FaultCancel, After: dist(t, "250ms")}, 0,
			func(w faults.When) bool { return w == faults.When{After: 250 * time.Millisecond} }},
		{"cancel uniform", scenarios.Fault{Kind: scenarios.FaultCancel, After: dist(t, "uniform(100ms, 200ms)")}, 0,
			func(w faults.When) bool {
				return w.After >= 100*time.Millisecond && w.After <= 200*time.Millisecond && w.Progress == 0 && !w.AtResponse
			}},
		{"disconnect after_progress", scenarios.Fault{Kind: scenarios.FaultDisconnect, AfterProgress: 2}, 0,
			func(w faults.When) bool { return w == faults.When{Progress: 2} }},
		{"stall_read after_progress", scenarios.Fault{Kind: scenarios.FaultStallRead, AfterProgress: 1, For: scenarios.Duration(time.Second)}, 0,
			func(w faults.When) bool { return w == faults.When{Progress: 1} }},
		{"cancel_race at response", scenarios.Fault{Kind: scenarios.FaultCancelRace, At: "response"}, typical,
			func(w faults.When) bool { return w == faults.When{AtResponse: true} }},
		{"cancel_race before_end", scenarios.Fault{Kind: scenarios.FaultCancelRace, BeforeEnd: scenarios.Duration(50 * time.Millisecond)}, typical,
			func(w faults.When) bool { return w == faults.When{After: 250 * time.Millisecond} }},
		{"cancel_race before_end, typical unknown", scenarios.Fault{Kind: scenarios.FaultCancelRace, BeforeEnd: scenarios.Duration(50 * time.Millisecond)}, 0,
			func(w faults.When) bool { return w == faults.When{AtResponse: true} }},
		{"cancel_race before_end longer than typical", scenarios.Fault{Kind: scenarios.FaultCancelRace, BeforeEnd: scenarios.Duration(time.Second)}, typical,
			func(w faults.When) bool { return w == faults.When{} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.spec.Probability = 1
			f := newFault(t, tc.spec)
			for seq := uint64(0); seq < 20; seq++ {
				w, ok := f.Draw(rand.New(rand.NewPCG(1, seq)), faults.Info{Tool: "t", Typical: tc.typical})
				if !ok || !tc.check(w) {
					t.Fatalf("seq %d: Draw = %+v, %v", seq, w, ok)
				}
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec scenarios.Fault
		want string
	}{
		{scenarios.Fault{Kind: "nope"}, `unknown fault kind "nope"`},
		{scenarios.Fault{Kind: scenarios.FaultDisconnect, Mode: "slam"}, `disconnect: unknown mode "slam"`},
		{scenarios.Fault{Kind: scenarios.FaultMalformed, Mode: "yaml"}, `malformed: unknown mode "yaml"`},
		{scenarios.Fault{Kind: scenarios.FaultMalformed}, `malformed: unknown mode ""`},
	} {
		if v, err := faults.New(tc.spec); err == nil || err.Error() != tc.want {
			t.Errorf("New(%+v) = %v, %v; want the error %q", tc.spec, v, err, tc.want)
		}
	}
	// Background kinds are Backgrounds, not per-call faults.
	for _, k := range []scenarios.FaultKind{scenarios.FaultNotifyFlood, scenarios.FaultCancelUnknown} {
		v, err := faults.New(scenarios.Fault{Kind: k, Rate: scenarios.Rate{Freq: 1, Per: time.Second}})
		if b, ok := v.(faults.Background); err != nil || !ok || b.Kind() != string(k) {
			t.Errorf("New(%s) = %T, %v; want a Background of that kind", k, v, err)
		}
		if _, ok := v.(faults.Fault); ok {
			t.Errorf("New(%s) is also a per-call Fault", k)
		}
	}
}

// fakeCall records what a fault does to a call.
type fakeCall struct {
	mu      sync.Mutex
	actions []string
	resumed chan struct{}
}

func (c *fakeCall) add(s string) {
	c.mu.Lock()
	c.actions = append(c.actions, s)
	c.mu.Unlock()
}

func (c *fakeCall) Cancel(reason string, alsoNotify bool) error {
	c.add("cancel " + reason + map[bool]string{true: " +notify", false: ""}[alsoNotify])
	return nil
}
func (c *fakeCall) CancelAnyway(reason string) error { c.add("cancel-anyway " + reason); return nil }
func (c *fakeCall) Disconnect(m mcp.AbortMode) error { c.add("disconnect " + m.String()); return nil }
func (c *fakeCall) Pause()                           { c.add("pause") }
func (c *fakeCall) Resume() {
	c.add("resume")
	close(c.resumed)
}

func (c *fakeCall) got() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.actions, "; ")
}

// TestAct: what each fault does to a call on each transport and era.
func TestAct(t *testing.T) {
	t.Parallel()
	http26 := faults.Info{Transport: "http", Era: mcp.Era20260728}
	http25 := faults.Info{Transport: "http", Era: mcp.Era20251125}
	stdio := faults.Info{Transport: "stdio", Era: mcp.Era20260728}
	for _, tc := range []struct {
		name       string
		spec       scenarios.Fault
		info       faults.Info
		detail, do string
	}{
		{"cancel 2026 http", scenarios.Fault{Kind: scenarios.FaultCancel}, http26, "stream closed", "cancel mcpchaos: cancel fault"},
		{"cancel 2026 http also_notify", scenarios.Fault{Kind: scenarios.FaultCancel, AlsoNotify: true}, http26,
			"stream closed and notifications/cancelled sent", "cancel mcpchaos: cancel fault +notify"},
		{"cancel 2025 http", scenarios.Fault{Kind: scenarios.FaultCancel}, http25, "notifications/cancelled sent", "cancel mcpchaos: cancel fault"},
		{"cancel stdio", scenarios.Fault{Kind: scenarios.FaultCancel}, stdio, "notifications/cancelled sent", "cancel mcpchaos: cancel fault"},
		{"disconnect rst http", scenarios.Fault{Kind: scenarios.FaultDisconnect, Mode: "rst"}, http26, "rst", "disconnect rst"},
		{"disconnect default", scenarios.Fault{Kind: scenarios.FaultDisconnect}, http26, "fin", "disconnect fin"},
		{"disconnect kill stdio", scenarios.Fault{Kind: scenarios.FaultDisconnect, Mode: "kill"}, stdio, "kill", "disconnect kill"},
		// A mode for the other transport falls back to its gentle form.
		{"disconnect rst on stdio", scenarios.Fault{Kind: scenarios.FaultDisconnect, Mode: "rst"}, stdio, "close", "disconnect close"},
		{"disconnect kill on http", scenarios.Fault{Kind: scenarios.FaultDisconnect, Mode: "kill"}, http26, "fin", "disconnect fin"},
		{"cancel_race", scenarios.Fault{Kind: scenarios.FaultCancelRace, At: "response"}, stdio, "cancel at the response", "cancel-anyway mcpchaos: cancel race"},
		{"malformed", scenarios.Fault{Kind: scenarios.FaultMalformed, Mode: "params"}, http26, "", ""},
		{"reissue", scenarios.Fault{Kind: scenarios.FaultReissue}, http26, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &fakeCall{resumed: make(chan struct{})}
			detail, err := newFault(t, tc.spec).Act(c, tc.info)
			if err != nil || detail != tc.detail || c.got() != tc.do {
				t.Errorf("Act = %q, %v and did %q; want %q and %q", detail, err, c.got(), tc.detail, tc.do)
			}
		})
	}
	t.Run("cancel_race before_end", func(t *testing.T) {
		c := &fakeCall{resumed: make(chan struct{})}
		f := newFault(t, scenarios.Fault{Kind: scenarios.FaultCancelRace, BeforeEnd: scenarios.Duration(50 * time.Millisecond)})
		info := http26
		info.Typical = 312 * time.Millisecond
		if detail, _ := f.Act(c, info); detail != "cancel 50ms before the typical end (312ms)" {
			t.Errorf("detail %q", detail)
		}
	})
}
