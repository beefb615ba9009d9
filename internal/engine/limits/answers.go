package limits

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/report"
)

// slack is what a delay measured by probing may be late by: a probe's
// spacing and a round trip on a busy machine.
func (s *Search) slack() time.Duration { return s.o.Probe + 100*time.Millisecond }

// answers draws the answers from the findings, each with its evidence.
func (s *Search) answers() *report.Limits {
	l := &report.Limits{SearchedUpTo: round(s.f.searched, 1), SearchS: round(s.f.took.Seconds(), 1), Ended: s.f.ended,
		Tools: map[string]string{}, Hints: []string{}}
	s.signal(l)
	s.shape(l)
	s.retryAfter(l)
	s.tools(l)
	s.budget(l)
	s.headers(l) // after budget: with budgets per tool a claim is one tool's
	s.overload(l)
	s.workAnswer(l)
	s.lockout(l)
	s.counts(l)
	s.identities(l)
	s.capacity(l)
	s.lateClient(l)
	l.Evidence = append(l.Evidence, s.f.notes...)
	if s.dropped > 0 {
		l.Evidence = append(l.Evidence, fmt.Sprintf("%d calls not sent: %d were in flight already", s.dropped, s.o.MaxInFlight))
	}
	return l
}

// maxLag is how late the hold's calls may go out (the median) before the
// answers drawn from it are marked unsure: the client could not offer
// what it meant to.
const maxLag = 20 * time.Millisecond

// lateClient notes a hold whose calls went out late (a busy machine: the
// rate offered was not the rate meant, and the accepted rate may read
// low), and lowers the confidence.
func (s *Search) lateClient(l *report.Limits) {
	var lags []time.Duration
	for _, o := range s.f.hold {
		lags = append(lags, o.lag)
	}
	if lag := median(lags); lag > maxLag {
		l.Confidence = "low"
		l.Evidence = append(l.Evidence, fmt.Sprintf("unsure: the hold's calls went out %v late (median) on a busy client; the rate offered was not the rate meant, and answers from it may read low",
			lag.Round(time.Millisecond)))
	}
}

// signal: the throttling kind seen most, and where hints came from.
func (s *Search) signal(l *report.Limits) {
	kinds := map[string]int{}
	throttled := 0
	for _, o := range s.all {
		if !o.throttled {
			continue
		}
		throttled++
		kinds[o.kind]++
		if o.hinted && !slices.Contains(l.Hints, o.hintFrom) {
			l.Hints = append(l.Hints, o.hintFrom)
		}
	}
	l.Signal = "none"
	for k, n := range kinds {
		if l.Signal == "none" || n > kinds[l.Signal] || (n == kinds[l.Signal] && k < l.Signal) {
			l.Signal = k
		}
	}
	if throttled == 0 {
		l.Evidence = append(l.Evidence, fmt.Sprintf("signal none: none of %d calls was throttled", len(s.all)))
		return
	}
	hints := "no retry hint"
	if len(l.Hints) > 0 {
		hints = "hints: " + strings.Join(l.Hints, ", ")
	}
	l.Evidence = append(l.Evidence, fmt.Sprintf("signal %s: %d of %d calls throttled; %s; %s", l.Signal, throttled, len(s.all), hints, s.brokeRules()))
}

// brokeRules says whether the throttled answers were valid for the era
// (each was matched to its call by its id, or it would not be counted).
func (s *Search) brokeRules() string {
	rules := map[string]int{}
	n := 0
	for _, o := range s.all {
		if o.throttled && o.broke != "" {
			rules[o.broke]++
			n++
		}
	}
	if n == 0 {
		return "every refusal answered its call's id, valid for the era"
	}
	names := make([]string, 0, len(rules))
	for name := range rules {
		names = append(names, name)
	}
	slices.Sort(names)
	return fmt.Sprintf("%d refusals broke a rule of the era (%s)", n, strings.Join(names, ", "))
}

// retryAfter: the advertised retry time against the measured one.
func (s *Search) retryAfter(l *report.Limits) {
	r := s.f.rec
	if !r.done {
		r = s.f.holdRec
	}
	if !r.done {
		l.RetryAfter.Verdict = "unknown"
		return
	}
	measured := r.tried
	if r.found {
		measured = r.after
		l.RetryAfter.AcceptedAfterS = ptr(round(r.after.Seconds(), 2))
	}
	l.RetryAfter.Verdict = retryVerdict(r.ref.hinted, r.ref.hint, r.found, measured, s.slack())
	advertised := "no hint"
	if r.ref.hinted {
		l.RetryAfter.AdvertisedS = ptr(round(r.ref.hint.Seconds(), 3))
		advertised = fmt.Sprintf("advertised %gs (%s)", r.ref.hint.Seconds(), r.ref.hintFrom)
	}
	accepted := fmt.Sprintf("no call accepted again within %.1fs", r.tried.Seconds())
	if r.found {
		accepted = fmt.Sprintf("a call was accepted %.2fs after the refusal", r.after.Seconds())
	}
	l.Evidence = append(l.Evidence, fmt.Sprintf("retry-after %s: %s; %s (one probe every %v)", l.RetryAfter.Verdict, advertised, accepted, s.o.Probe))
}

// tools: limited when any of its calls was throttled.
func (s *Search) tools(l *report.Limits) {
	throttled := map[string]int{}
	for _, o := range s.all {
		if o.throttled {
			throttled[o.tool]++
		}
	}
	var parts []string
	for _, name := range s.toolNames() {
		l.Tools[name] = "unlimited"
		if throttled[name] > 0 {
			l.Tools[name] = "limited"
		}
		part := fmt.Sprintf("%s %s (%d throttled", name, l.Tools[name], throttled[name])
		if n, ok := s.f.scope[name]; ok {
			part += fmt.Sprintf("; %d when offered alone", n)
		}
		parts = append(parts, part+")")
	}
	if len(parts) > 1 {
		l.Evidence = append(l.Evidence, "tools: "+strings.Join(parts, ", "))
	}
}

// overload: the ok rate under the hold, and how fast refusals were.
func (s *Search) overload(l *report.Limits) {
	if len(s.f.hold) == 0 {
		return
	}
	rate, _ := s.steady()
	l.Overload.OKRate = ptr(round(rate, 1))
	s.refusalCost(l)
	holds := l.Rate != nil && rate >= 0.8**l.Rate
	l.Overload.Holds = &holds
	word := "collapses"
	if holds {
		word = "holds"
	}
	refusal := ""
	if l.Overload.RefusalMs != nil {
		refusal = fmt.Sprintf("; refusals took %sms (median)", num(*l.Overload.RefusalMs))
	}
	if l.Overload.OKMs != nil {
		refusal += fmt.Sprintf(", accepted calls %sms: refusals are %s", num(*l.Overload.OKMs), l.Overload.RefusalCost)
	}
	l.Evidence = append(l.Evidence, fmt.Sprintf("overload %s: %s ok/s while %s/s were offered%s", word, num(*l.Overload.OKRate), num(s.f.holdRate), refusal))
}

func ptr[T any](v T) *T { return &v }

// round rounds x to n decimals.
func round(x float64, n int) float64 {
	p := math.Pow(10, float64(n))
	return math.Round(x*p) / p
}

// num formats a number with no more decimals than it has.
func num(x float64) string {
	if x != 0 && math.Abs(x) < 0.01 {
		return fmt.Sprintf("%.2g", x) // a rate of 1/1h: 0.00028, not 0.0002777777777777778
	}
	return fmt.Sprintf("%g", x)
}

// refusalCost is what a refusal cost the server, in time: the hold's
// refusals against its accepted calls of the limited tools, each the
// median from sending to the answer. A refusal of 5 ms or more that takes
// as long as serving a call is costly: the server works before refusing.
func (s *Search) refusalCost(l *report.Limits) {
	var refusals, oks []float64
	for _, o := range s.limitedOf(s.f.hold) {
		ms := float64(o.answered-o.sent) / float64(time.Millisecond)
		switch {
		case o.throttled:
			refusals = append(refusals, ms)
		case o.ok:
			oks = append(oks, ms)
		}
	}
	if len(refusals) == 0 {
		return
	}
	r := median(refusals)
	l.Overload.RefusalMs = ptr(round(r, 1))
	if len(oks) == 0 {
		return
	}
	ok := median(oks)
	l.Overload.OKMs = ptr(round(ok, 1))
	l.Overload.RefusalCost = "cheap"
	if r >= 5 && r >= ok {
		l.Overload.RefusalCost = "costly"
	}
}
