package summary

import (
	"fmt"
	"io"
	"strconv"
)

// Limits is what `mcpchaos limits` found about a server's rate limit: the
// "limits" member of its summary (docs/limits-benchmark.md says how each
// answer is found and when it cannot be). A nil pointer is an answer the
// search could not give (null in JSON).
type Limits struct {
	// Signal is the throttling kind seen most (http_429, http_503,
	// rpc_code, rpc_message, tool_message, load_shed); "none" when nothing
	// was throttled.
	Signal string `json:"signal"`
	// Hints are where the throttled answers gave a retry time:
	// "Retry-After", "data.retryAfter", "text", ...
	Hints []string `json:"hints"`
	// Rate is the calls per second accepted while more were offered.
	Rate *float64 `json:"rate"`
	// Burst is how many calls were accepted at once after idle.
	Burst *int `json:"burst"`
	// Window is token_bucket, fixed_window, sliding_window, concurrency
	// or none; WindowS the window's length (the two windows only).
	Window  string   `json:"window"`
	WindowS *float64 `json:"window_s"`
	// Concurrency is the cap on calls in flight (window concurrency).
	Concurrency *int `json:"concurrency"`
	// Confidence is how sure the window kind is: high, medium or low.
	Confidence string          `json:"confidence"`
	RetryAfter RetryAfterCheck `json:"retry_after"`
	// Tools says, for each tool of the mix, limited or unlimited.
	Tools map[string]string `json:"tools"`
	// Budget says whether two or more limited tools share one budget
	// ("shared") or each has its own ("per_tool"); empty otherwise.
	Budget   string   `json:"budget,omitempty"`
	Overload Overload `json:"overload"`
	// Lockout says whether a client that ignores the hints is kept out
	// longer than one that waits as told.
	Lockout Lockout `json:"lockout"`
	// Counts says whether requests other than tool calls, and refused
	// calls, take from the limit.
	Counts LimitCounts `json:"counts"`
	// Identities says, with two or more identities in the scenario,
	// whether each has a limit of its own (per_identity), all share one
	// (shared), or it could not be told (unknown); empty otherwise.
	Identities string `json:"identities,omitempty"`
	// Headers is what the rate-limit headers claimed against what was
	// measured.
	Headers LimitHeaders `json:"headers"`
	// Capacity is the highest offered rate at which the scenario's checks
	// held (null without checks); CapacityBound says what bound it:
	// "limiter" (throttling) or "server" (the checks failed first).
	Capacity      *float64 `json:"capacity"`
	CapacityBound string   `json:"capacity_bound,omitempty"`
	// SearchedUpTo is the highest rate offered, per second.
	SearchedUpTo float64 `json:"searched_up_to"`
	// SearchS is how long the search took; Ended why it stopped: done,
	// budget, interrupted or errors.
	SearchS float64 `json:"search_s"`
	Ended   string  `json:"ended"`
	// Evidence has one line per answer: the limit card.
	Evidence []string `json:"evidence"`
}

// RetryAfterCheck compares the retry time the server advertised with when
// it really accepted a call again.
type RetryAfterCheck struct {
	// Verdict is honest, too_long, too_short, absent, or unknown (nothing
	// was throttled, or no call was accepted again in time).
	Verdict        string   `json:"verdict"`
	AdvertisedS    *float64 `json:"advertised_s"`
	AcceptedAfterS *float64 `json:"accepted_after_s"`
}

// LimitHeaders is the limit the rate-limit headers (RateLimit-Limit,
// X-RateLimit-Limit, RateLimit-Policy, ...) claimed, seen most among the
// answers, against the rate measured.
type LimitHeaders struct {
	// Verdict is honest (the claimed rate within 15 % of the one
	// measured), too_high, too_low, no_window (a limit with no window
	// length to make a rate of), absent (no answer claimed a limit), or
	// unknown (no rate was measured).
	Verdict string `json:"verdict"`
	// Limit is the quota claimed per WindowS; ClaimedRate is their
	// quotient, per second; From names the header.
	Limit       *int     `json:"limit"`
	WindowS     *float64 `json:"window_s"`
	ClaimedRate *float64 `json:"claimed_rate"`
	From        string   `json:"from,omitempty"`
}

// Overload is the ok rate while about twice the limit was offered.
type Overload struct {
	OKRate *float64 `json:"ok_rate"`
	// Holds: the ok rate stayed at 80 % of the rate or more.
	Holds *bool `json:"holds"`
	// RefusalMs is the median time a refusal took, in ms; OKMs the
	// median time an accepted call of the same tools took beside them.
	RefusalMs *float64 `json:"refusal_ms"`
	OKMs      *float64 `json:"ok_ms"`
	// RefusalCost is cheap (a refusal took under 5 ms, or less than an
	// accepted call) or costly (5 ms or more, and at least as long as an
	// accepted call: the server works before it refuses).
	RefusalCost string `json:"refusal_cost,omitempty"`
	// RefusalWork says, from the process probe, whether refused calls
	// cost the server work: costly (2 CPU-ms or more each beyond an
	// accepted call, and over twice one), none, or
	// unknown (no process probe, a reading failed, too few refusals, or
	// no budget for the idle span).
	// RefusalCPUMs is the CPU-ms per refused call (nil when unknown).
	RefusalWork  string   `json:"refusal_work,omitempty"`
	RefusalCPUMs *float64 `json:"refusal_cpu_ms"`
}

// LimitCounts says, for tools/list, the set-up request (initialize, or
// server/discover in 2026) and refused calls, whether they take from the
// limit of tool calls: counts (tool calls right after them were refused;
// for refused calls, calling on through refusals kept a client out
// longer), own_limit (they were throttled, the calls after them were
// not), free, or unknown (not asked).
type LimitCounts struct {
	ToolsList  string `json:"tools_list"`
	Initialize string `json:"initialize"`
	Refused    string `json:"refused"`
}

// Lockout compares a client that waits a refusal's hint with one that
// calls again at once and keeps calling.
type Lockout struct {
	// Verdict is locked_out (the eager client was accepted again more
	// than 1 s later than its hint said, or not in the time probed), none,
	// or unknown (no hint to wait for, the waiting client was refused
	// too, or the phase did not run).
	Verdict string `json:"verdict"`
	// HintS is the hint the waiting client waited; EagerAfterS when the
	// eager client was first accepted after its refusal; ExtraS how much
	// longer than its hint that was (at least, when it was not accepted).
	HintS       *float64 `json:"hint_s"`
	EagerAfterS *float64 `json:"eager_after_s"`
	ExtraS      *float64 `json:"extra_s"`
}

// limitsTemplate is a Limits with every pointer set, so that KnownKeys
// lists its numeric keys.
func limitsTemplate() *Limits {
	f, n, b := 0.0, 0, false
	return &Limits{Rate: &f, Burst: &n, WindowS: &f, Concurrency: &n, Capacity: &f,
		RetryAfter: RetryAfterCheck{AdvertisedS: &f, AcceptedAfterS: &f},
		Overload:   Overload{OKRate: &f, Holds: &b, RefusalMs: &f, OKMs: &f, RefusalCPUMs: &f},
		Lockout:    Lockout{HintS: &f, EagerAfterS: &f, ExtraS: &f},
		Headers:    LimitHeaders{Limit: &n, WindowS: &f, ClaimedRate: &f}}
}

// LimitCard writes the limit card: a title and one line per answer with
// its evidence.
func (l *Limits) LimitCard(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("Limit card (search %.1fs, %s; offered up to %s/s)\n", l.SearchS, l.Ended, num(l.SearchedUpTo))
	for _, e := range l.Evidence {
		ew.printf("  %s\n", e)
	}
	return ew.err
}

// num formats a rate or count with at most one decimal.
func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
