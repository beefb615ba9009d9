// Package targetserver is the built-in target server behind `mcpchaos serve`: a
// real MCP server on the official Go SDK whose behaviour is controlled by
// misbehaviour knobs and whose ground truth is exported as Prometheus
// metrics.
//
// The zero Config is a correct server. Each knob turns on one kind of
// misbehaviour that real servers show (work that survives a cancel, progress
// floods, stalls, rate limiting, slow exits), so that every verdict mcpchaos
// gives can be checked against the server's own count of what happened.
//
// The server offers four tools: echo, slow_task, cpu_task and inflight (see
// tools.go). It serves Streamable HTTP on /mcp and metrics on /metrics
// ([Server.Handler]), or stdio ([Server.ServeStdio]).
package targetserver

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// Protocol eras the HTTP endpoint can serve (see [Config.Era]).
const (
	// EraDual routes each HTTP request by its MCP-Protocol-Version header:
	// 2026-07-28 and later to a stateless handler, everything else to a
	// stateful (session) handler. It is the default.
	EraDual = "dual"
	// Era2026 serves only the stateless handler.
	Era2026 = "2026"
	// Era2025 serves only the stateful (session) handler.
	Era2025 = "2025"
)

// DefaultRateLimitCode is the JSON-RPC error code a throttled stdio call
// receives when Config.RateLimitCode is zero. It lies in the range the MCP
// specification reserves (-32020 to -32099); it was chosen on request.
const DefaultRateLimitCode = -32029

// Limits on knob values; anything beyond is a configuration mistake.
const (
	maxFloodHz  = 1000
	maxDuration = 24 * time.Hour
)

// Config selects the target's behaviour. The zero value is a correct server.
type Config struct {
	// Seed drives every random draw (leak draws, non-monotonic draws). Each
	// call draws from its own generator seeded from Seed and the call's
	// sequence number.
	Seed int64

	// LeakOnCancel is the probability (0..1) that a call ignores its
	// cancellation and runs to the end. Each such call increments
	// mcpchaos_target_orphaned_total when the cancel arrives.
	LeakOnCancel float64

	// StopDelay makes a cancelled call notice its cancellation only after
	// this long; it then stops and counts as cancelled.
	StopDelay time.Duration

	// NoPropagateCancel, on 2026-07-28 HTTP, keeps a tool running when the
	// client closes the request's stream (the SDK's own default). The zero
	// value propagates the disconnect into the handler, as the spec asks.
	NoPropagateCancel bool

	// ProgressFloodHz adds progress notifications at this rate per call, on
	// top of the one per step, still strictly increasing.
	ProgressFloodHz float64

	// StallAfter stops progress after this many steps while the call keeps
	// working to the end. Zero never stalls.
	StallAfter int

	// Endless makes step tools never finish: they send one progress per step
	// until cancelled.
	Endless bool

	// NonMonotonic is the probability (0..1) that a progress notification
	// repeats or lowers the previous value.
	NonMonotonic float64

	// ProgressAfterResponse sends one more progress notification about 10ms
	// after a step tool's result (meaningful on stdio).
	ProgressAfterResponse bool

	// RateLimit throttles tools/call with one token bucket. The zero Rate
	// means no limit.
	RateLimit Rate

	// RateLimitCode is the JSON-RPC error code of a throttled stdio call;
	// zero means DefaultRateLimitCode.
	RateLimitCode int

	// ExitDelay makes ServeStdio return only this long after stdin closes.
	ExitDelay time.Duration

	// Era selects which protocol eras the HTTP endpoint serves: "" or
	// EraDual, Era2026 or Era2025. stdio always serves both.
	Era string
}

// FieldError is a knob value that Validate rejects. Field is the knob's
// scenario key (leak_on_cancel); the flag is the same with dashes.
type FieldError struct {
	Field string // scenario key, e.g. "leak_on_cancel"
	Value string // the value as written
	Want  string // what is accepted
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("invalid %s %q: want %s", e.Field, e.Value, e.Want)
}

// Validate reports the first knob whose value is out of range, as a
// *FieldError.
func (c Config) Validate() error {
	for _, p := range []struct {
		name string
		v    float64
	}{
		{"leak_on_cancel", c.LeakOnCancel},
		{"non_monotonic", c.NonMonotonic},
	} {
		if math.IsNaN(p.v) || p.v < 0 || p.v > 1 {
			return &FieldError{p.name, formatFloat(p.v), "a probability between 0 and 1"}
		}
	}
	if math.IsNaN(c.ProgressFloodHz) || c.ProgressFloodHz < 0 || c.ProgressFloodHz > maxFloodHz {
		return &FieldError{"progress_flood_hz", formatFloat(c.ProgressFloodHz), fmt.Sprintf("0 to %d per second", maxFloodHz)}
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"stop_delay", c.StopDelay},
		{"exit_delay", c.ExitDelay},
	} {
		if d.v < 0 || d.v > maxDuration {
			return &FieldError{d.name, d.v.String(), "a duration from 0 to " + maxDuration.String()}
		}
	}
	if c.StallAfter < 0 {
		return &FieldError{"stall_after", fmt.Sprint(c.StallAfter), "0 (never) or more steps"}
	}
	if err := c.RateLimit.validate(); err != nil {
		return &FieldError{"rate_limit", c.RateLimit.String(), "N/duration with N and duration above zero"}
	}
	switch c.Era {
	case "", EraDual, Era2026, Era2025:
	default:
		return &FieldError{"era", c.Era, fmt.Sprintf("%s, %s or %s", EraDual, Era2026, Era2025)}
	}
	return nil
}

// rateLimitCode returns the configured throttling code or its default.
func (c Config) rateLimitCode() int64 {
	if c.RateLimitCode == 0 {
		return DefaultRateLimitCode
	}
	return int64(c.RateLimitCode)
}

// era returns the configured era with the default filled in.
func (c Config) era() string {
	if c.Era == "" {
		return EraDual
	}
	return c.Era
}

func formatFloat(f float64) string { return fmt.Sprint(f) }

// Args returns the `mcpchaos serve` flags that give c, for starting the
// target as a subprocess (a builtin stdio target).
func (c Config) Args() []string {
	var args []string
	add := func(name, value string) { args = append(args, "--"+name+"="+value) }
	if c.Era != "" {
		add("era", c.Era)
	}
	if c.Seed != 0 {
		add("seed", strconv.FormatInt(c.Seed, 10))
	}
	if c.LeakOnCancel != 0 {
		add("leak-on-cancel", strconv.FormatFloat(c.LeakOnCancel, 'g', -1, 64))
	}
	if c.StopDelay != 0 {
		add("stop-delay", c.StopDelay.String())
	}
	if c.NoPropagateCancel {
		add("propagate-cancel", "false")
	}
	if c.ProgressFloodHz != 0 {
		add("progress-flood-hz", strconv.FormatFloat(c.ProgressFloodHz, 'g', -1, 64))
	}
	if c.StallAfter != 0 {
		add("stall-after", strconv.Itoa(c.StallAfter))
	}
	if c.Endless {
		add("endless", "true")
	}
	if c.NonMonotonic != 0 {
		add("non-monotonic", strconv.FormatFloat(c.NonMonotonic, 'g', -1, 64))
	}
	if c.ProgressAfterResponse {
		add("progress-after-response", "true")
	}
	if !c.RateLimit.IsZero() {
		add("rate-limit", c.RateLimit.String())
	}
	if c.RateLimitCode != 0 {
		add("rate-limit-code", strconv.Itoa(c.RateLimitCode))
	}
	if c.ExitDelay != 0 {
		add("exit-delay", c.ExitDelay.String())
	}
	return args
}
