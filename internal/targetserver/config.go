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
// The server offers four tools, echo, slow_task, cpu_task and inflight, and a
// fifth, deploy, with the confirm knob (see tools.go and confirm.go); with
// the tasks knob it serves slow_task as tasks of the tasks extension
// (tasks.go, tasksrpc.go, taskwork.go). It serves Streamable HTTP on /mcp and metrics on /metrics
// ([Server.Handler]), or stdio ([Server.ServeStdio]).
package targetserver

import "github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"

// Protocol eras the HTTP endpoint can serve (see the era knob).
const (
	EraDual = knobs.EraDual
	Era2026 = knobs.Era2026
	Era2025 = knobs.Era2025
)

// DefaultRateLimitCode is the JSON-RPC error code of a throttled call when
// Config.RateLimitCode is zero (see knobs.DefaultRateLimitCode).
const DefaultRateLimitCode = knobs.DefaultRateLimitCode

// Config selects the target's behaviour: one field per knob of
// knobs.Table, where each is documented. The zero value is a correct
// server; Config.Validate checks the ranges of the table.
type Config = knobs.Config

// Rate is N calls per period, the type of the rate_limit knob.
type Rate = knobs.Rate
