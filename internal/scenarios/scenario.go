// Package scenarios reads mcpchaos scenario files: YAML documents that say
// which MCP server to test, how much load to offer, which faults to inject,
// how to look for orphaned work and which checks decide pass or fail.
//
// Decoding is strict and positional: an unknown key, a wrong type, a bad
// value or a missing key is an *Error that names FILE:LINE:COLUMN and quotes
// the value. Parse walks the YAML syntax tree itself (goccy/go-yaml's
// parser), so every value, including durations, rates, distributions and
// checks, is checked where it stands. After Parse or Load every default is
// filled in, environment references are expanded and the whole scenario has
// been validated, so later stages can use the values as they are — except
// each fault kind's own keys, which package faults decodes and checks
// (with the same positions) when it builds the fault; see Fault.
//
// The types are plain data. Durations, rates, distributions and sizes are
// strings in files and flags ("250ms", "50/1s", "uniform(200ms, 1.5s)",
// "2MiB") and are parsed here, in one place.
package scenarios

import (
	"strings"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/redact"
	"github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"
)

// Scenario is one decoded, defaulted and validated scenario file.
type Scenario struct {
	File       string // the path it was read from, for error messages
	Name       string // default: the file's base name without extension
	Seed       int64  // default 1; every random choice derives from it
	Protocol   string // ProtocolAuto (default) or a revision
	Target     Target
	Load       Workload
	Timeouts   Timeouts
	Calls      []Call
	Faults     []Fault
	Orphans    Orphans
	Progress   Progress
	Throttling Throttling
	// Client holds the answers to servers that ask for input; nil when
	// the file has no client section (client.go).
	Client *Client
	// Gateway is set when the target is a gateway in front of built-in
	// targets whose truth records are read (docs/gateways.md).
	Gateway *Gateway
	Checks  []Check
	// FailOnViolation makes a violation verdict fail the run like a failed
	// check (exit status 1); default true. mcpchaos run
	// --no-fail-on-violation turns it off; a warning never fails.
	FailOnViolation bool
	// Secrets are the values no output may show: header and stdio env
	// values, values from ${VAR}, URL credentials (see secrets.go); nil
	// (an empty set) when there is none.
	Secrets *redact.Set `json:"-"`
}

// Protocol revisions a scenario may pin (their strings come from
// client/vocab, the protocol's vocabulary).
const (
	ProtocolAuto     = "auto"
	Protocol20260728 = vocab.Rev20260728
	Protocol20251125 = vocab.Rev20251125
	Protocol20250618 = vocab.Rev20250618
	// Protocol20241105 is the revision of the deprecated HTTP+SSE
	// transport: it makes an HTTP target speak it (transport: sse).
	Protocol20241105 = vocab.Rev20241105
)

// Target is the server under test: exactly one of its fields is set.
type Target struct {
	Builtin *BuiltinTarget
	Stdio   *StdioTarget
	HTTP    *HTTPTarget
	Pos     Pos
}

// Kind returns "builtin", "stdio" or "http" ("" when none is set).
func (t Target) Kind() string {
	switch {
	case t.Builtin != nil:
		return "builtin"
	case t.Stdio != nil:
		return "stdio"
	case t.HTTP != nil:
		return "http"
	}
	return ""
}

// Transport returns the transport mcpchaos speaks to the target: "http" or
// "stdio" ("" when no target is set).
func (t Target) Transport() string {
	switch {
	case t.Builtin != nil:
		return t.Builtin.Transport
	case t.Stdio != nil:
		return TransportStdio
	case t.HTTP != nil:
		return TransportHTTP
	}
	return ""
}

// String describes the target in a few words: "builtin (http)",
// "stdio (node server.js)", "http (http://127.0.0.1:8080/mcp)".
func (t Target) String() string {
	switch {
	case t.Builtin != nil:
		return "builtin (" + t.Builtin.Transport + ")"
	case t.Stdio != nil:
		return "stdio (" + strings.Join(t.Stdio.Command, " ") + ")"
	case t.HTTP != nil:
		return "http (" + redact.URL(t.HTTP.URL) + ")"
	}
	return "none"
}

// Transports.
const (
	TransportHTTP  = "http"
	TransportStdio = "stdio"
)

// Eras of the built-in target (see knobs.Table).
const (
	EraDual = knobs.EraDual
	Era2026 = knobs.Era2026
	Era2025 = knobs.Era2025
)

// BuiltinTarget configures the built-in target server: the transport
// mcpchaos speaks to it, and its misbehaviour knobs, one key each (see
// knobs.Table). The zero knobs.Config is a well-behaved server; Seed is the
// scenario's seed and Era is filled in (EraDual by default).
type BuiltinTarget struct {
	Transport string // TransportHTTP (default) or TransportStdio
	knobs.Config
}

// StdioTarget is a server mcpchaos starts as child processes and talks to
// over stdin and stdout.
type StdioTarget struct {
	Command   []string          // program and arguments; env references expanded
	Env       map[string]string // added to the environment; env references expanded
	Dir       string            // working directory; "" = the current one
	Processes int               // how many processes to start; default 1
}

// HTTPTarget is a server reachable over Streamable HTTP (or the
// deprecated 2024-11-05 HTTP+SSE transport).
type HTTPTarget struct {
	URL     string            // http or https; env references expanded
	Headers map[string]string // sent with every request; env references expanded
	PID     int               // optional: the server's pid, for process probes
	// Transport is HTTPAuto (default: Streamable HTTP, or HTTP+SSE when
	// the URL answers that way), HTTPStreamable or HTTPSSE.
	Transport string
	TLS       *TLS // nil: the defaults (system roots, the URL's host)
	// HTTP2 is HTTP2Auto (default: HTTP/2 when an https:// server picks
	// it on ALPN) or HTTP2Off (HTTP/1.1 only).
	HTTP2 string
}

// The transports of an HTTP target.
const (
	HTTPAuto       = "auto"
	HTTPStreamable = "streamable"
	HTTPSSE        = "sse"
)

// The values of target.http.http2.
const (
	HTTP2Auto = "auto"
	HTTP2Off  = "off"
)

// TLS configures the connections to an https:// target. File names have
// their environment references expanded.
type TLS struct {
	CAFile             string // PEM CA certificates trusted instead of the system roots
	CertFile, KeyFile  string // a client certificate and its key (both or neither)
	ServerName         string // the name the certificate must hold; "" = the URL's host
	InsecureSkipVerify bool   // do not verify the server's certificate
}

// Call is one kind of tools/call the load picks from, by weight.
type Call struct {
	Tool      string
	Weight    float64        // default 1; > 0
	Arguments map[string]any // JSON-compatible values
	Progress  bool           // ask for progress (send a progress token); default true
	Task      bool           // declare the tasks extension for this call (docs/long-running.md)
	Pos       Pos
}

// Timeouts are the client's own timeouts for every call.
type Timeouts struct {
	Idle     Duration // reset by each progress notification; default 30s
	Max      Duration // never reset; default 60s; >= Idle
	Policies []Policy // client policies replayed over the measured calls
	// Connect bounds each connection's set-up: the era probe and a 2025
	// initialize; default 5s.
	Connect Duration
}

// Policy is a client timeout policy to replay over the recorded calls: a
// fixed Timeout, or an Idle timeout optionally reset by progress and capped
// by Max.
type Policy struct {
	Name            string
	Timeout         Duration // fixed total timeout; excludes the other fields
	Idle            Duration
	ResetOnProgress bool
	Max             Duration // 0 = no cap
	Pos             Pos
}

// Orphans says how orphaned work is looked for after the load ends.
type Orphans struct {
	Grace       Duration // wait this long after the load before judging; default 2s
	DrainMax    Duration // wait at most this long for probes to return to baseline; default 30s
	SampleEvery Duration // probe sampling period during the run; default 100ms
	Probes      []Probe
	// Windows, if set, are quiet windows during the load (see
	// docs/decisions.md): every Every of load the pacer pauses, every call
	// in flight is cancelled, and after Grace the probes measure for For.
	Windows *Windows
}

// Windows are the quiet windows of orphans.windows.
type Windows struct {
	Every Duration `json:"every"`
	For   Duration `json:"for"`
	Pos   Pos      `json:"-"`
}

// Probe is one way to see server-side work: exactly one of Metric,
// Process and Tool is set.
type Probe struct {
	// Name is how checks address the probe (cancellation.by_probe.NAME):
	// lower-case letters, digits and _; default DefaultProbeName.
	Name    string
	Metric  *MetricProbe
	Process *ProcessProbe
	Tool    *ToolProbe
	Log     *LogProbe
	Pos     Pos
}

// Kind returns "metric", "process", "tool" or "log".
func (p Probe) Kind() string {
	switch {
	case p.Metric != nil:
		return "metric"
	case p.Process != nil:
		return "process"
	case p.Tool != nil:
		return "tool"
	case p.Log != nil:
		return "log"
	}
	return ""
}

// MetricProbe scrapes a Prometheus gauge.
type MetricProbe struct {
	URL    string
	Name   string
	Labels map[string]string // only series with these label values
}

// ProcessProbe watches a process tree's CPU time and children.
type ProcessProbe struct {
	PID int // 0 = the stdio target's own processes
}

// ToolProbe calls a tool on the server and reads a number from its result.
type ToolProbe struct {
	Name      string
	Arguments map[string]any
	Pointer   string // JSON pointer into the structured result; "" = the whole result
}

// LogProbe reads the server's log and matches a line per finished call:
// exactly one of File and Stderr.
type LogProbe struct {
	File   string // a log file to tail; env references expanded
	Stderr bool   // the stderr of the stdio servers mcpchaos starts
	Done   string // regexp (Go syntax) with a group (?P<id>...) or (?P<token>...)

	stderrAt Pos // where stderr is written, for validate
}

// Progress holds the thresholds for progress checks.
type Progress struct {
	Grace   Duration // progress this long after a cancel still counts as in time; default 100ms
	FloodHz float64  // more notifications per second for one token is a flood; default 50
	Stall   Duration // no progress for this long while a call runs is a stall; default 2s
}

// Gateway says where the truth of a gateway test is read.
type Gateway struct {
	// Truth are the base URLs of the built-in targets behind the gateway
	// (http://HOST:PORT, no path): each serves its records on /calls.
	Truth []string
}

// Throttling says what counts as "throttled" besides HTTP 429 and 503.
type Throttling struct {
	RPCCodes    []int  // JSON-RPC error codes
	Message     string // regexp over JSON-RPC error messages
	ToolMessage string // regexp over the text of tool results with isError
	Retry       *Retry // nil = never retry throttled calls
}

// Retry makes the client retry throttled calls.
type Retry struct {
	HonorRetryAfter bool // wait as long as Retry-After says; default true
	Max             int  // retries per call; default 3
}
