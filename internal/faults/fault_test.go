package faults_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// The faults on their own, without a run: what they draw and what they do
// to a call. (Each kind's own unit tests sit beside its run tests.)

// entry parses a scenario whose one fault is the YAML flow mapping given,
// against a target of the given transport.
func entry(t *testing.T, transport, yaml string) scenarios.Fault {
	t.Helper()
	src := "target: {builtin: {transport: " + transport + "}}\nload: {rate: 1/s, duration: 1s}\ncalls: [{tool: slow_task}]\nfaults: [" + yaml + "]\n"
	sc, err := scenarios.Parse("x.yaml", []byte(src))
	if err != nil {
		t.Fatalf("%s: %v", yaml, err)
	}
	return sc.Faults[0]
}

// newFault builds the fault a YAML entry describes, for an HTTP target.
func newFault(t *testing.T, yaml string) faults.Fault {
	t.Helper()
	f, err := faults.New(entry(t, "http", yaml), "http")
	if err != nil {
		t.Fatalf("New(%s): %v", yaml, err)
	}
	return f
}

// actor is newFault for a fault that acts on calls in flight.
func actor(t *testing.T, yaml string) faults.Actor {
	t.Helper()
	a, ok := newFault(t, yaml).(faults.Actor)
	if !ok {
		t.Fatalf("%s is not an Actor", yaml)
	}
	return a
}

// TestDrawSameNumbers: a fault draws the same numbers from the call's
// random source whether it hits or not (probability 0 or 1, a tool it
// does not apply to), so the faults after it see the same numbers and a
// seed replays the same faults.
func TestDrawSameNumbers(t *testing.T) {
	t.Parallel()
	specs := map[string]string{
		"cancel after":          "{kind: cancel, after: 'uniform(10ms, 1s)'}",
		"cancel after_progress": "{kind: cancel, after_progress: 3}",
		"disconnect exp":        "{kind: disconnect, after: exp(200ms), mode: rst}",
		"cancel_race response":  "{kind: cancel_race, at: response}",
		"cancel_race before":    "{kind: cancel_race, before_end: 50ms}",
		"stall_read":            "{kind: stall_read, after: 'uniform(0s, 100ms)', for: 1s}",
		"malformed":             "{kind: malformed, mode: json}",
		"reissue":               "{kind: reissue, max: 2}",
	}
	for name, yaml := range specs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			spec := entry(t, "http", yaml)
			build := func(spec scenarios.Fault) faults.Fault {
				f, err := faults.New(spec, "http")
				if err != nil {
					t.Fatal(err)
				}
				return f
			}
			var next []uint64
			var whens []faults.When
			for _, v := range []struct {
				p     float64
				tools []string
				want  bool
			}{{1, nil, true}, {0, nil, false}, {1, []string{"other_*"}, false}} {
				spec := spec
				spec.Probability, spec.Tools = v.p, v.tools
				f := build(spec)
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
			f := build(spec)
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
		spec    string
		typical time.Duration
		check   func(faults.When) bool
	}{
		{"cancel fixed", "{kind: cancel, after: 250ms}", 0,
			func(w faults.When) bool { return w == faults.When{After: 250 * time.Millisecond} }},
		{"cancel uniform", "{kind: cancel, after: 'uniform(100ms, 200ms)'}", 0,
			func(w faults.When) bool {
				return w.After >= 100*time.Millisecond && w.After <= 200*time.Millisecond && w.Progress == 0 && !w.AtResponse
			}},
		{"disconnect after_progress", "{kind: disconnect, after_progress: 2}", 0,
			func(w faults.When) bool { return w == faults.When{Progress: 2} }},
		{"stall_read after_progress", "{kind: stall_read, after_progress: 1, for: 1s}", 0,
			func(w faults.When) bool { return w == faults.When{Progress: 1} }},
		{"cancel_race at response", "{kind: cancel_race, at: response}", typical,
			func(w faults.When) bool { return w == faults.When{AtResponse: true, EvenAfterResponse: true} }},
		{"cancel_race before_end", "{kind: cancel_race, before_end: 50ms}", typical,
			func(w faults.When) bool {
				return w == faults.When{After: 250 * time.Millisecond, EvenAfterResponse: true}
			}},
		{"cancel_race before_end, typical unknown", "{kind: cancel_race, before_end: 50ms}", 0,
			func(w faults.When) bool { return w == faults.When{AtResponse: true, EvenAfterResponse: true} }},
		{"cancel_race before_end longer than typical", "{kind: cancel_race, before_end: 1s}", typical,
			func(w faults.When) bool { return w == faults.When{EvenAfterResponse: true} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
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

// TestNewErrors: each kind checks its own keys, and every problem names
// the file, the line and the column of the value, as the scenario decoder
// does.
func TestNewErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		transport, yaml string
		want            []string
	}{
		{"http", "{kind: nope}", []string{`x.yaml:4:17: faults[0].kind: unknown fault kind "nope" (known: cancel, disconnect, cancel_race, stall_read, malformed, reissue, bad_retry, same_id_retry, fast_poll, notify_flood, cancel_unknown)`}},
		{"http", "{kind: cancl, after: 1s}", []string{`x.yaml:4:17: faults[0].kind: unknown fault kind "cancl" (did you mean "cancel"? known: cancel, disconnect, cancel_race, stall_read, malformed, reissue, bad_retry, same_id_retry, fast_poll, notify_flood, cancel_unknown)`}},
		{"http", "{kind: throttle}", []string{`x.yaml:4:17: faults[0].kind: unknown fault kind "throttle" (throttle is a fault of mcpchaos proxy (a proxy file), not of a scenario; known: cancel, disconnect, cancel_race, stall_read, malformed, reissue, bad_retry, same_id_retry, fast_poll, notify_flood, cancel_unknown)`}},
		{"http", "{kind: disconnect, after: 1s, mode: slam}", []string{`x.yaml:4:46: faults[0].mode: invalid value "slam" (want one of: fin, rst, close, kill)`}},
		{"stdio", "{kind: disconnect, after: 1s, mode: rst}", []string{`x.yaml:4:46: faults[0].mode: rst does not apply to stdio targets (http: fin, rst; stdio: close, kill)`}},
		{"http", "{kind: disconnect, after: 1s, mode: kill}", []string{`x.yaml:4:46: faults[0].mode: kill does not apply to http targets (http: fin, rst; stdio: close, kill)`}},
		{"http", "{kind: malformed, mode: yaml}", []string{`x.yaml:4:34: faults[0].mode: invalid value "yaml" (want one of: json, params, oversize, missing_meta)`}},
		{"http", "{kind: malformed}", []string{`x.yaml:4:10: faults[0]: missing required key "mode"`}},
		{"http", "{kind: malformed, mode: oversize, size: 2XB}", []string{`x.yaml:4:50: faults[0].size: invalid size "2XB": want bytes such as 1000000, 512KiB or 2MiB`}},
		{"http", "{kind: malformed, mode: json, size: 1MiB}", []string{`x.yaml:4:40: faults[0].size: applies only to mode oversize`}},
		{"http", "{kind: cancel}", []string{`x.yaml:4:10: faults[0]: want after, after_progress, or both`}},
		{"http", "{kind: cancel_race, after: 1s}", []string{
			`x.yaml:4:10: faults[0]: want exactly one of at or before_end`,
			`x.yaml:4:30: faults[0]: key "after" does not apply to kind cancel_race (allowed: kind, probability, tools, at, before_end)`,
		}},
		{"http", "{kind: stall_read, after: 1s, for: 0s}", []string{`x.yaml:4:45: faults[0].for: must be positive, got "0s"`}},
		{"http", "{kind: reissue, max: 0}", []string{`x.yaml:4:31: faults[0].max: must be at least 1, got 0`}},
		{"http", "{kind: reissue, max: 101}", []string{`x.yaml:4:31: faults[0].max: must be at most 100, got 101`}},
		{"http", "{kind: malformed, mode: oversize, size: 8GiB}", []string{`x.yaml:4:50: faults[0].size: size "8GiB" is larger than the most mcpchaos builds: 256MiB`}},
		{"http", "{kind: notify_flood, rate: 1/1ns}", []string{`x.yaml:4:37: faults[0].rate: rate "1/1ns" is 1e+09/s, above the most mcpchaos can pace: 100000/1s`}},
		{"http", "{kind: stall_read, after: 1s, for: 200h}", []string{`x.yaml:4:45: faults[0].for: duration 200h is longer than the most a scenario may ask for: 168h`}},
		{"http", "{kind: notify_flood}", []string{`x.yaml:4:10: faults[0]: missing required key "rate"`}},
		{"http", "{kind: notify_flood, rate: 1/s, probability: 0.5}", []string{
			`x.yaml:4:42: faults[0]: key "probability" does not apply to kind notify_flood (allowed: kind, rate)`,
		}},
		{"http", "{kind: cancel, after: 1s, colour: red}", []string{
			`x.yaml:4:36: faults[0]: unknown key "colour" (allowed for kind cancel: kind, probability, tools, after, after_progress, also_notify)`,
		}},
	} {
		_, err := faults.New(entry(t, tc.transport, tc.yaml), tc.transport)
		var list scenarios.Errors
		if !errors.As(err, &list) {
			t.Errorf("New(%s) = %v, want scenarios.Errors", tc.yaml, err)
			continue
		}
		if got := strings.Split(err.Error(), "\n"); !slices.Equal(got, tc.want) {
			t.Errorf("New(%s):\n got %q\nwant %q", tc.yaml, got, tc.want)
		}
	}
	// Background kinds act on no call.
	for _, yaml := range []string{"{kind: notify_flood, rate: 1/s}", "{kind: cancel_unknown, rate: 1/s}"} {
		f := newFault(t, yaml)
		if _, ok := f.(faults.Background); !ok {
			t.Errorf("%s is a %T, not a Background", yaml, f)
		}
		if _, ok := f.Draw(rand.New(rand.NewPCG(1, 2)), faults.Info{Tool: "slow_task"}); ok {
			t.Errorf("%s drew a call", yaml)
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
func (c *fakeCall) Disconnect(m client.AbortMode) error {
	c.add("disconnect " + m.String())
	return nil
}
func (c *fakeCall) Pause() { c.add("pause") }
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
	http26 := faults.Info{Transport: "http", Era: client.Era20260728}
	http25 := faults.Info{Transport: "http", Era: client.Era20251125}
	stdio := faults.Info{Transport: "stdio", Era: client.Era20260728}
	for _, tc := range []struct {
		name       string
		spec       string
		info       faults.Info
		detail, do string
	}{
		{"cancel 2026 http", "{kind: cancel, after: 1s}", http26, "stream closed", "cancel mcpchaos: cancel fault"},
		{"cancel 2026 http also_notify", "{kind: cancel, after: 1s, also_notify: true}", http26,
			"stream closed and notifications/cancelled sent", "cancel mcpchaos: cancel fault +notify"},
		{"cancel 2025 http", "{kind: cancel, after: 1s}", http25, "notifications/cancelled sent", "cancel mcpchaos: cancel fault"},
		{"cancel stdio", "{kind: cancel, after: 1s}", stdio, "notifications/cancelled sent", "cancel mcpchaos: cancel fault"},
		{"disconnect rst http", "{kind: disconnect, after: 1s, mode: rst}", http26, "rst", "disconnect rst"},
		{"disconnect default", "{kind: disconnect, after: 1s}", http26, "fin", "disconnect fin"},
		// A mode for the other transport falls back to its gentle form.
		{"disconnect rst on stdio", "{kind: disconnect, after: 1s, mode: rst}", stdio, "close", "disconnect close"},
		{"cancel_race", "{kind: cancel_race, at: response}", stdio, "cancel at the response", "cancel-anyway mcpchaos: cancel race"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &fakeCall{resumed: make(chan struct{})}
			detail, err := actor(t, tc.spec).Act(c, tc.info)
			if err != nil || detail != tc.detail || c.got() != tc.do {
				t.Errorf("Act = %q, %v and did %q; want %q and %q", detail, err, c.got(), tc.detail, tc.do)
			}
		})
	}
	t.Run("cancel_race before_end", func(t *testing.T) {
		c := &fakeCall{resumed: make(chan struct{})}
		f := actor(t, "{kind: cancel_race, before_end: 50ms}")
		info := http26
		info.Typical = 312 * time.Millisecond
		if detail, _ := f.Act(c, info); detail != "cancel 50ms before the typical end (312ms)" {
			t.Errorf("detail %q", detail)
		}
	})
	// On stdio a disconnect closes stdin unless told to kill.
	for mode, want := range map[string]string{"": "close", ", mode: kill": "kill"} {
		spec := entry(t, "stdio", "{kind: disconnect, after: 1s"+mode+"}")
		f, err := faults.New(spec, "stdio")
		if err != nil {
			t.Fatal(err)
		}
		c := &fakeCall{resumed: make(chan struct{})}
		if detail, _ := f.(faults.Actor).Act(c, stdio); detail != want {
			t.Errorf("stdio disconnect%s: %q, want %q", mode, detail, want)
		}
	}
}
