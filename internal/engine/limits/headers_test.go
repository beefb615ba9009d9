package limits

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/report"
)

func TestHeadersVerdict(t *testing.T) {
	tests := []struct {
		name     string
		c        claim
		measured float64
		want     string
	}{
		{"no claim", claim{}, 30, "absent"},
		{"30 per second, 30.4 measured", claim{30, time.Second, "RateLimit-Limit"}, 30.4, "honest"},
		{"40 per 2 s, 20 measured", claim{40, 2 * time.Second, "RateLimit-Limit"}, 20, "honest"},
		{"twice the limit", claim{60, time.Second, "RateLimit-Limit"}, 30, "too_high"},
		{"half the limit", claim{15, time.Second, "RateLimit-Limit"}, 30, "too_low"},
		{"no window", claim{30, 0, "X-RateLimit-Limit"}, 30, "no_window"},
		{"nothing measured", claim{30, time.Second, "RateLimit-Limit"}, 0, "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := headersVerdict(tt.c, tt.measured); got != tt.want {
				t.Errorf("headersVerdict(%+v, %v) = %s, want %s", tt.c, tt.measured, got, tt.want)
			}
		})
	}
}

func TestMostClaimed(t *testing.T) {
	list := []obs{{}, {claim: 30, claimWindow: time.Second, claimFrom: "RateLimit-Limit"}, {claim: 60, claimWindow: time.Second, claimFrom: "RateLimit-Limit"},
		{claim: 30, claimWindow: time.Second, claimFrom: "RateLimit-Limit"}}
	if c, n := mostClaimed(list); c.limit != 30 || n != 2 {
		t.Errorf("mostClaimed = %+v in %d answers, want 30 in 2", c, n)
	}
	if c, n := mostClaimed([]obs{{}, {}}); c.limit != 0 || n != 0 {
		t.Errorf("mostClaimed of no claims = %+v, %d", c, n)
	}
}

func TestBudgetOf(t *testing.T) {
	tests := []struct {
		name  string
		mixed float64
		alone []float64
		want  string
	}{
		{"one budget of 20/s for two tools", 20.3, []float64{21, 20}, "shared"},
		{"20/s each", 40.1, []float64{21, 20}, "per_tool"},
		{"20/s each, the first alone still spending its saved burst", 40.1, []float64{27, 20}, "per_tool"},
		{"one budget, the first alone still spending its saved burst", 20.4, []float64{27, 20}, "shared"},
		{"one limited tool", 20, []float64{20}, ""},
		{"nothing accepted alone", 20, []float64{0, 0}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := budgetOf(tt.mixed, tt.alone); got != tt.want {
				t.Errorf("budgetOf(%v, %v) = %q, want %q", tt.mixed, tt.alone, got, tt.want)
			}
		})
	}
}

// TestHeadersPerTool: with a budget for each limited tool, a tool's claim
// is held against its share of the summed rate (its part of the hold's
// accepted calls), not the sum.
func TestHeadersPerTool(t *testing.T) {
	var all, hold []obs
	for _, tool := range []string{"echo", "slow_task"} {
		all = append(all, obs{tool: tool, throttled: true, claim: 20, claimWindow: time.Second, claimFrom: "RateLimit-Limit"})
		for range 40 {
			hold = append(hold, obs{tool: tool, ok: true})
		}
	}
	for _, tc := range []struct {
		name, budget, want, line string
	}{
		{"budgets of their own", "per_tool", "honest", "measured 19.95/s for echo, its share of the hold's accepted calls of the 39.9/s in all"},
		{"one budget", "shared", "too_low", "measured 39.9/s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rate := 39.9
			l := &report.Limits{Rate: &rate, Budget: tc.budget, Tools: map[string]string{"echo": "limited", "slow_task": "limited"}}
			s := &Search{all: all, f: findings{hold: hold}}
			s.headers(l)
			if l.Headers.Verdict != tc.want || !strings.Contains(strings.Join(l.Evidence, "\n"), tc.line) {
				t.Errorf("headers verdict %q, want %q; evidence %q, want it to say %q", l.Headers.Verdict, tc.want, l.Evidence, tc.line)
			}
		})
	}
}
