package engine

import (
	"encoding/json"
	"regexp"
	"slices"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Plan is everything a run needs, as plain data. Scenario files become
// Plans (see FromScenario); tests build them directly.
type Plan struct {
	Name     string
	File     string
	Seed     int64
	Protocol client.Era // "" = detect
	Target   Target
	Load     Load
	Timeouts Timeouts
	Calls    []CallSpec
	Progress ProgressRules
	Throttle ThrottleRules
	// Identities are the clients a Script may speak as (Caller.CallAs).
	Identities []Identity
	Orphans    Orphans
	// Faults act on calls, in order, or run beside the load (those that
	// are faults.Background).
	Faults []faults.Fault
	// LateWindow is how long a finished or cancelled call is still watched
	// for late messages before its record is written; default 1 s.
	LateWindow time.Duration
	// MaxMessageBytes bounds every message read; default 16 MiB.
	MaxMessageBytes int
	// Config is the scenario as used, recorded in the results header.
	Config json.RawMessage
	// Shard is this process's part of a run split over several (see
	// ForShard); the zero value is the whole run.
	Shard Shard
	// StartAt, if set, is when the load starts (every shard of a run given
	// the same instant starts together); a run that reaches it late counts
	// the ticks it missed as dropped.
	StartAt time.Time
	// Gateway, when set, reads the truth of the built-in targets behind a
	// gateway and joins it with the calls (gateway.go).
	Gateway *GatewayPlan
	// Client holds the answers to servers that ask for input and the
	// bound on rounds (rounds.go); nil: none is answered, and a 2026
	// input_required result ends the call.
	Client *scenarios.Client
}

// Target is exactly one of Builtin, Stdio and HTTP.
type Target struct {
	Builtin *Builtin
	Stdio   *StdioTarget
	HTTP    *client.HTTPConfig
	// PID names an HTTP server's process for process probes.
	PID int
}

// Builtin is the built-in target server, started by the run.
type Builtin struct {
	// Transport is "http" (in-process, on a free loopback port) or "stdio"
	// (a subprocess running `mcpchaos serve --stdio`).
	Transport string
	// Command starts a stdio target (`mcpchaos serve --stdio` and the
	// knobs' flags).
	Command []string
	// Start starts an in-process HTTP target and returns its URL, its
	// metrics URL and a stop function.
	Start func() (url, metricsURL string, stop func(), err error)
}

// StdioTarget is a server we start as N subprocesses.
type StdioTarget struct {
	client.StdioConfig
	Processes int
}

// Stage ramps the rate linearly to To over Over.
type Stage struct {
	To   vegeta.Rate
	Over time.Duration
}

// Load is the traffic model: exactly one of Rate, Stages, Concurrency and
// Script.
type Load struct {
	// IDs is how request ids are numbered (scenarios.IDs: "" sequential,
	// colliding or shuffled) and IDConnections how many HTTP clients share
	// the load (0 or 1: one).
	IDs           string
	IDConnections int
	Rate          vegeta.Rate
	Stages        []Stage
	Concurrency   int
	// Script, when set, drives the load call by call (script.go): the
	// search of `mcpchaos limits`. Duration bounds it.
	Script Script
	// Duration is how long the load runs (after the stages, for a staged
	// load).
	Duration     time.Duration
	MaxInFlight  int
	GracefulStop time.Duration
}

// Total returns how long the load runs.
func (l Load) Total() time.Duration {
	d := l.Duration
	for _, s := range l.Stages {
		d += s.Over
	}
	return d
}

// Timeouts are the client's: Idle is reset by progress, Max never is.
// Policies are other clients' timeout policies, replayed over every call.
type Timeouts struct {
	Idle     time.Duration
	Max      time.Duration
	Policies []Policy
	// Connect bounds connecting to the target: each connection's era
	// probe and handshake (client.Config.ProbeTimeout) and each dial of an
	// HTTP connection (HTTPConfig.DialTimeout, unless the target sets its
	// own); 0: the client's defaults, 5 s each. The tests set it long: a
	// server under -race on a busy machine takes longer to start.
	Connect time.Duration
}

// Policy is a client timeout policy: a fixed Timeout, or an Idle timeout
// (reset by progress when ResetOnProgress) with an optional Max cap.
type Policy struct {
	Name            string
	Timeout         time.Duration
	Idle            time.Duration
	ResetOnProgress bool
	Max             time.Duration
}

// CallSpec is one entry of the call mix.
type CallSpec struct {
	Tool      string
	Weight    int
	Arguments json.RawMessage
	Progress  bool
	Task      bool // declare the tasks extension (tasks.go)
}

// ProgressRules are the thresholds for progress verdicts.
type ProgressRules struct {
	Grace   time.Duration // after a cancel, progress later than this is a violation
	FloodHz float64
	Stall   time.Duration
}

// ThrottleRules say what counts as throttling besides HTTP 429 and 503,
// and whether throttled calls are retried.
type ThrottleRules struct {
	RPCCodes    []int64
	Message     *regexp.Regexp
	ToolMessage *regexp.Regexp
	// Retries is how many times a throttled call is retried (0: never);
	// with HonorRetryAfter the retry waits as long as Retry-After says.
	Retries         int
	HonorRetryAfter bool
}

// toolNames lists the tools the calls name, each once, in order.
func (p Plan) toolNames() []string {
	var names []string
	for _, c := range p.Calls {
		if !slices.Contains(names, c.Tool) {
			names = append(names, c.Tool)
		}
	}
	return names
}
