package limits

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/report"
)

// claim is one limit the rate-limit headers claimed.
type claim struct {
	limit  int
	window time.Duration
	from   string
}

// mostClaimed is the claim seen in most answers, and in how many.
func mostClaimed(list []obs) (claim, int) {
	seen := map[claim]int{}
	var best claim
	for _, o := range list {
		if o.claim <= 0 {
			continue
		}
		c := claim{o.claim, o.claimWindow, o.claimFrom}
		seen[c]++
		if n := seen[c]; n > seen[best] || (n == seen[best] && c.limit < best.limit) {
			best = c
		}
	}
	return best, seen[best]
}

// headersVerdict compares a claimed limit with the rate measured (0:
// none): honest within 15 %.
func headersVerdict(c claim, measured float64) string {
	switch {
	case c.limit <= 0:
		return "absent"
	case c.window <= 0:
		return "no_window"
	case measured <= 0:
		return "unknown"
	}
	claimed := float64(c.limit) / c.window.Seconds()
	switch {
	case math.Abs(claimed-measured) <= 0.15*measured:
		return "honest"
	case claimed > measured:
		return "too_high"
	}
	return "too_low"
}

// headers: what the rate-limit headers claimed against the rate measured.
func (s *Search) headers(l *report.Limits) {
	c, n := mostClaimed(s.all)
	measured := 0.0
	if l.Rate != nil {
		measured = *l.Rate
	}
	// With a budget for each limited tool the rate measured is their sum,
	// and a tool's answers claim its own limit: held against that tool's
	// share of the sum.
	tool := ""
	if l.Budget == "per_tool" && measured > 0 {
		if t, share, ok := s.claimShare(c, measured); ok {
			tool, measured = t, share
		}
	}
	h := &l.Headers
	h.Verdict = headersVerdict(c, measured)
	if h.Verdict == "absent" {
		return
	}
	h.Limit, h.From = ptr(c.limit), c.from
	line := fmt.Sprintf("headers %s: %d answers claimed %d", h.Verdict, n, c.limit)
	if c.window > 0 {
		h.WindowS = ptr(round(c.window.Seconds(), 3))
		h.ClaimedRate = ptr(round(float64(c.limit)/c.window.Seconds(), 1))
		line += fmt.Sprintf(" per %gs (%s/s)", *h.WindowS, num(*h.ClaimedRate))
	} else {
		line += " per a window they did not state"
	}
	line += " in " + c.from
	switch {
	case measured > 0 && tool != "":
		line += fmt.Sprintf("; measured %s/s for %s, its share of the hold's accepted calls of the %s/s in all (a budget for each tool)",
			num(round(measured, 2)), tool, num(*l.Rate))
	case measured > 0:
		line += fmt.Sprintf("; measured %s/s", num(measured))
	}
	l.Evidence = append(l.Evidence, line)
}

// budgetOf says whether limited tools share one budget: offered together
// they were accepted at mixed per second in all; offered alone, one at a
// time, at alone per second each. A shared budget accepts about as many
// together as one tool alone; budgets of their own accept about the sum.
// Whichever mixed is nearer as a ratio wins (the line is the geometric
// mean of the two): a tool alone that still spent a large burst its
// budget saved reads above its rate, which moves the most of any alone
// toward the sum (20/s each, 60 saved: alone 27 and 20, together 40).
func budgetOf(mixed float64, alone []float64) string {
	most, sum := 0.0, 0.0
	for _, a := range alone {
		most, sum = max(most, a), sum+a
	}
	if len(alone) < 2 || most <= 0 || mixed <= 0 {
		return ""
	}
	if mixed*mixed > most*sum {
		return "per_tool"
	}
	return "shared"
}

// budget: whether the limited tools share one budget, from the hold (all
// of them together) and the scope phase (each alone for a second).
func (s *Search) budget(l *report.Limits) {
	if l.Rate == nil || len(s.f.scopeOK) == 0 {
		return
	}
	var alone []float64
	var parts []string
	for _, name := range s.toolNames() {
		if n, ok := s.f.scopeOK[name]; ok && l.Tools[name] == "limited" {
			alone = append(alone, float64(n))
			parts = append(parts, fmt.Sprintf("%s %d", name, n))
		}
	}
	l.Budget = budgetOf(*l.Rate, alone)
	if l.Budget == "" {
		return
	}
	what := "together they were accepted about as often as one alone"
	if l.Budget == "per_tool" {
		what = "together they were accepted about as often as all of them alone: the rate above is their sum"
	}
	l.Evidence = append(l.Evidence, fmt.Sprintf("budget %s: the limited tools were accepted %s/s together and %s in the last second of 1.5 s each alone; %s",
		l.Budget, num(*l.Rate), strings.Join(parts, ", "), what))
}

// claimShare is, with a budget for each limited tool, the tool whose
// answers made claim c most often and its share of the summed rate: its
// part of the hold's accepted calls of the limited tools. ok is false
// when no answer of the hold was accepted.
func (s *Search) claimShare(c claim, rate float64) (tool string, share float64, ok bool) {
	claims := map[string]int{}
	for _, o := range s.all {
		if o.claim == c.limit && o.claimWindow == c.window && o.claimFrom == c.from {
			claims[o.tool]++
		}
	}
	for t, n := range claims {
		if n > claims[tool] || (n == claims[tool] && t < tool) {
			tool = t
		}
	}
	accepted, all := 0, 0
	for _, o := range s.limitedOf(s.f.hold) {
		if o.ok {
			all++
			if o.tool == tool {
				accepted++
			}
		}
	}
	if tool == "" || all == 0 {
		return "", 0, false
	}
	return tool, rate * float64(accepted) / float64(all), true
}
