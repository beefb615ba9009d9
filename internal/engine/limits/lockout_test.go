package limits

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/report"
)

// TestLockoutVerdict: the patient client against the eager one.
func TestLockoutVerdict(t *testing.T) {
	refusal := func(hint time.Duration) obs { return obs{throttled: true, hinted: true, hint: hint} }
	tests := []struct {
		name  string
		lock  lockProbe
		want  string
		extra float64 // want ExtraS; -1: null
	}{
		{"not run", lockProbe{}, "unknown", -1},
		{"patient refused too", lockProbe{done: true, patient: refusal(time.Second)}, "unknown", -1},
		{"eager accepted within its hint", lockProbe{done: true, patient: refusal(time.Second), patientOK: true,
			eager: recovery{ref: refusal(time.Second), found: true, after: 40 * ms}}, "none", -1},
		{"eager accepted just over the hint, within the slack", lockProbe{done: true, patient: refusal(2 * time.Second), patientOK: true,
			eager: recovery{ref: refusal(time.Second), found: true, after: 2100 * ms}}, "none", -1},
		{"eager kept out 5 s", lockProbe{done: true, patient: refusal(time.Second), patientOK: true,
			eager: recovery{ref: refusal(time.Second), found: true, after: 5 * time.Second}}, "locked_out", 4},
		{"eager never accepted", lockProbe{done: true, patient: refusal(time.Second), patientOK: true,
			eager: recovery{ref: refusal(time.Second), tried: 10 * time.Second}}, "locked_out", 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Options{})
			s.f.lock = tt.lock
			l := &report.Limits{}
			s.lockout(l)
			if l.Lockout.Verdict != tt.want {
				t.Errorf("verdict %q, want %q (evidence %q)", l.Lockout.Verdict, tt.want, l.Evidence)
			}
			switch {
			case tt.extra < 0 && l.Lockout.ExtraS != nil:
				t.Errorf("extra_s %v, want null", *l.Lockout.ExtraS)
			case tt.extra >= 0 && (l.Lockout.ExtraS == nil || *l.Lockout.ExtraS != tt.extra):
				t.Errorf("extra_s %v, want %v", l.Lockout.ExtraS, tt.extra)
			}
			if tt.lock.done && (len(l.Evidence) != 1 || !strings.HasPrefix(l.Evidence[0], "lockout "+tt.want)) {
				t.Errorf("evidence %q, want one line on the lockout", l.Evidence)
			}
		})
	}
}

// TestRefusalCost: a refusal is costly when it takes 5 ms or more and
// as long as an accepted call.
func TestRefusalCost(t *testing.T) {
	call := func(ok bool, took time.Duration) obs {
		return obs{tool: "echo", ok: ok, throttled: !ok, sent: time.Second, answered: time.Second + took}
	}
	tests := []struct {
		name string
		hold []obs
		want string
	}{
		{"quick refusals, quick calls", []obs{call(true, ms), call(false, ms/2), call(false, ms/3)}, "cheap"},
		{"refusals held 100 ms", []obs{call(true, ms), call(false, 100*ms), call(false, 101*ms)}, "costly"},
		{"slow calls, refusals quicker", []obs{call(true, 500*ms), call(false, 100*ms)}, "cheap"},
		{"no accepted call", []obs{call(false, 100*ms)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Options{})
			s.f.hold = tt.hold
			l := &report.Limits{}
			s.refusalCost(l)
			if l.Overload.RefusalCost != tt.want {
				t.Errorf("refusal_cost %q, want %q", l.Overload.RefusalCost, tt.want)
			}
		})
	}
}

// TestCountsVerdict: a request counts when the tool calls right after
// it were refused, has its own limit when only it was throttled.
func TestCountsVerdict(t *testing.T) {
	tests := []struct {
		name    string
		probe   countProbe
		lockout string
		want    string
		refused string
	}{
		{"free", countProbe{key: "tools_list", method: "tools/list", control: 10, controlOK: 10, sent: 30, calls: 10, callsOK: 10}, "none", "free", "free"},
		{"spent the budget", countProbe{key: "tools_list", method: "tools/list", control: 10, controlOK: 10, sent: 30, throttled: 20, calls: 10, callsOK: 1}, "locked_out", "counts", "counts"},
		{"counted, never refused", countProbe{key: "tools_list", method: "tools/list", control: 10, controlOK: 10, sent: 30, calls: 10, callsOK: 0}, "", "counts", "unknown"},
		{"a limit of its own", countProbe{key: "tools_list", method: "tools/list", control: 10, controlOK: 10, sent: 30, throttled: 5, calls: 10, callsOK: 10}, "", "own_limit", "unknown"},
		{"the calls alone were not all accepted", countProbe{key: "tools_list", method: "tools/list", sent: 30, calls: 8, callsOK: 4, control: 8, controlOK: 4}, "", "unknown", "unknown"},
		{"none answered", countProbe{key: "tools_list", method: "tools/list", control: 10, controlOK: 10, calls: 10, callsOK: 10}, "", "unknown", "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Options{})
			s.f.counts = []countProbe{tt.probe}
			l := &report.Limits{Lockout: report.Lockout{Verdict: tt.lockout}}
			s.counts(l)
			if l.Counts.ToolsList != tt.want || l.Counts.Initialize != "unknown" || l.Counts.Refused != tt.refused {
				t.Errorf("counts %+v, want tools_list %s, initialize unknown, refused %s", l.Counts, tt.want, tt.refused)
			}
		})
	}
}

// TestIdentitiesVerdict: identities share a limit when the second's
// calls right after the first spent its limit were refused.
func TestIdentitiesVerdict(t *testing.T) {
	tests := []struct {
		name  string
		probe identProbe
		want  string
	}{
		{"per identity", identProbe{done: true, first: "a", second: "b", firstN: 30, firstTh: 20, secondN: 10, secondOK: 10}, "per_identity"},
		{"shared", identProbe{done: true, first: "a", second: "b", firstN: 30, firstTh: 20, secondN: 10, secondOK: 1}, "shared"},
		{"the first never throttled", identProbe{done: true, first: "a", second: "b", firstN: 30, secondN: 10, secondOK: 10}, "unknown"},
		{"not run", identProbe{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Options{})
			s.f.ident = tt.probe
			l := &report.Limits{}
			s.identities(l)
			if l.Identities != tt.want {
				t.Errorf("identities %q, want %q (evidence %q)", l.Identities, tt.want, l.Evidence)
			}
		})
	}
}
