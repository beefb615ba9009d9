package limits

import (
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
// is held against its share of the rate measured, not the sum.
func TestHeadersPerTool(t *testing.T) {
	claims := []obs{{claim: 20, claimWindow: time.Second, claimFrom: "RateLimit-Limit"},
		{claim: 20, claimWindow: time.Second, claimFrom: "RateLimit-Limit"}}
	for _, tc := range []struct {
		name, budget, want string
	}{
		{"budgets of their own", "per_tool", "honest"},
		{"one budget", "shared", "too_low"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rate := 39.9
			l := &report.Limits{Rate: &rate, Budget: tc.budget, Tools: map[string]string{"echo": "limited", "slow_task": "limited"}}
			s := &Search{all: claims}
			s.headers(l)
			if l.Headers.Verdict != tc.want {
				t.Errorf("headers verdict %q, want %q (%v)", l.Headers.Verdict, tc.want, l.Evidence)
			}
		})
	}
}
