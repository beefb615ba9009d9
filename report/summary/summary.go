package summary

import (
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/results"
)

// Meta describes the run as a whole.
type Meta struct {
	Scenario  string
	Era       string
	Transport string
	Target    string
	Server    string
	Seed      int64
	Started   time.Time
	// Duration is the length of the load; 0 means "from the first
	// scheduled call to the end of the last call".
	Duration    time.Duration
	Interrupted bool

	// HTTPVersion is "HTTP/2" or "HTTP/1.1" on HTTP targets.
	HTTPVersion string
}

// Summary is a run's result: plain values, ready for JSON. Its JSON keys
// are the dotted keys checks use; docs/summary.md documents every one.
type Summary struct {
	// SchemaVersion is results.SchemaVersion: the layout of this JSON.
	SchemaVersion int `json:"schema_version"`

	Scenario     string                `json:"scenario"`
	Seed         int64                 `json:"seed"`
	Era          string                `json:"era"`
	Transport    string                `json:"transport"`
	HTTPVersion  string                `json:"http_version,omitempty"`
	Target       string                `json:"target"`
	Server       string                `json:"server"`
	Started      time.Time             `json:"started"`
	DurationS    float64               `json:"duration_s"`
	Interrupted  bool                  `json:"interrupted"`
	Calls        Calls                 `json:"calls"`
	Rate         Rates                 `json:"rate"`
	Errors       Errors                `json:"errors"`
	Latency      Latencies             `json:"latency_ms"`
	Tools        map[string]ToolStats  `json:"tools"`
	Progress     ProgressSummary       `json:"progress"`
	Protocol     ProtocolSummary       `json:"protocol"`
	Cancellation Cancellation          `json:"cancellation"`
	Throttling   Throttling            `json:"throttling"`
	Timeouts     Timeouts              `json:"timeouts"`
	MRTR         MRTR                  `json:"mrtr"`
	Tasks        Tasks                 `json:"tasks"`
	Faults       map[string]FaultStats `json:"faults"`
	// ClientLimits is what our own process ran out of (clientlimits.go).
	ClientLimits ClientLimits `json:"client_limits"`
	// Gateway is present when the scenario has a gateway section.
	Gateway *GatewaySummary `json:"gateway,omitempty"`
	// Limits is present in the summary of `mcpchaos limits`.
	Limits *Limits       `json:"limits,omitempty"`
	Checks []CheckResult `json:"checks"`
	// Pass: every check passed and, with FailOnViolation, no verdict is a
	// violation (mcpchaos run exits 0).
	Pass            bool      `json:"pass"`
	FailOnViolation bool      `json:"fail_on_violation"`
	Verdicts        []Verdict `json:"verdicts"`

	// Histograms are the run's latency histograms, for pNN() checks at any
	// percentile; nil in a Summary read from JSON.
	Histograms Quantiles `json:"-"`
}

// Quantiles answers the value at percentile p (0..100] of one of the
// latency histograms (HistogramNames), in microseconds.
type Quantiles interface {
	Quantile(name string, p float64) (us int64)
}

// Calls counts calls by outcome; Total counts every record.
type Calls struct {
	Total          int `json:"total"`
	OK             int `json:"ok"`
	ToolError      int `json:"tool_error"`
	RPCError       int `json:"rpc_error"`
	Throttled      int `json:"throttled"`
	HTTPError      int `json:"http_error"`
	TimeoutIdle    int `json:"timeout_idle"`
	TimeoutCap     int `json:"timeout_cap"`
	Cancelled      int `json:"cancelled"`
	Disconnected   int `json:"disconnected"`
	TransportError int `json:"transport_error"`
	ProtocolError  int `json:"protocol_error"`
	Dropped        int `json:"dropped"`
	// ClientLimit counts calls our own process could not make (see
	// ClientLimits): never the server's doing.
	ClientLimit int `json:"client_limit"`
	// Reissued and Retried count records that re-issue an earlier call
	// (Retry "reissue") or retry a throttled one (Retry "throttled").
	Reissued int `json:"reissued"`
	Retried  int `json:"retried"`
}

// ByOutcome returns the count of one outcome (see results.Outcomes), or
// nil for an unknown outcome.
func (c *Calls) ByOutcome(outcome string) *int {
	switch outcome {
	case results.OK:
		return &c.OK
	case results.ToolError:
		return &c.ToolError
	case results.RPCError:
		return &c.RPCError
	case results.Throttled:
		return &c.Throttled
	case results.HTTPError:
		return &c.HTTPError
	case results.TimeoutIdle:
		return &c.TimeoutIdle
	case results.TimeoutCap:
		return &c.TimeoutCap
	case results.Cancelled:
		return &c.Cancelled
	case results.Disconnected:
		return &c.Disconnected
	case results.TransportError:
		return &c.TransportError
	case results.ProtocolError:
		return &c.ProtocolError
	case results.Dropped:
		return &c.Dropped
	case results.ClientLimit:
		return &c.ClientLimit
	}
	return nil
}

// Rates are per second over the run's duration.
type Rates struct {
	Offered  float64 `json:"offered"`  // calls scheduled, dropped ones included
	Achieved float64 `json:"achieved"` // calls completed (not dropped)
	OK       float64 `json:"ok"`       // ok calls
}

// Errors is the error set: failed calls (every outcome but ok, cancelled
// and disconnected) by normalised message, the most frequent first.
type Errors struct {
	Total int          `json:"total"`
	Top   []ErrorCount `json:"top"`
	// Other counts the failed calls whose message is not in Top.
	Other int `json:"other"`
}

// ErrorCount is one normalised message: "outcome: message".
type ErrorCount struct {
	Message string `json:"message"`
	Count   int    `json:"count"`
}

// ToolStats is one tool's calls.
type ToolStats struct {
	Calls     int            `json:"calls"`
	ByOutcome map[string]int `json:"by_outcome"`
	LatencyMs ToolLatency    `json:"latency_ms"`
}

// ToolLatency is a tool's call latency (response − scheduled), in ms.
type ToolLatency struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
}

// Latencies are the histograms, in milliseconds.
type Latencies struct {
	Call          Latency `json:"call"`
	Service       Latency `json:"service"`
	FirstProgress Latency `json:"first_progress"`
	ProgressGap   Latency `json:"progress_gap"`
	TimeoutError  Latency `json:"timeout_error"`
}

// ByName returns the histogram summary of one of HistogramNames, or nil.
func (l *Latencies) ByName(name string) *Latency {
	switch name {
	case "call":
		return &l.Call
	case "service":
		return &l.Service
	case "first_progress":
		return &l.FirstProgress
	case "progress_gap":
		return &l.ProgressGap
	case "timeout_error":
		return &l.TimeoutError
	}
	return nil
}

// Latency is one histogram in milliseconds.
type Latency struct {
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p999"`
	Max   float64 `json:"max"`
	Mean  float64 `json:"mean"`
	Count int64   `json:"count"`
}

// histNames is the immutable table of histogram names, in report order.
var histNames = [...]string{"call", "service", "first_progress", "progress_gap", "timeout_error"}

// HistogramNames returns the histograms a pNN() check may name, in report
// order.
func HistogramNames() []string { return append([]string(nil), histNames[:]...) }

// histIndex returns the index of a histogram name, or -1.
func histIndex(name string) int {
	for i, n := range histNames {
		if n == name {
			return i
		}
	}
	return -1
}

// ProgressSummary is what progress notifications looked like.
type ProgressSummary struct {
	Notifications int                `json:"notifications"`
	Calls         int                `json:"calls"`
	MaxRateHz     int                `json:"max_rate_hz"`
	Floods        int                `json:"floods"`
	Stalls        int                `json:"stalls"`
	Incomplete    int                `json:"incomplete"`
	GraceMs       float64            `json:"grace_ms"`
	FloodHz       float64            `json:"flood_hz"`
	StallMs       float64            `json:"stall_ms"`
	Violations    ProgressViolations `json:"violations"`
}

// ProgressViolations counts broken progress rules (mcp-notes §10 D).
type ProgressViolations struct {
	Total         int `json:"total"`
	NonMonotonic  int `json:"non_monotonic"`
	AfterResponse int `json:"after_response"`
	AfterCancel   int `json:"after_cancel"`
	UnknownToken  int `json:"unknown_token"`
	WrongStream   int `json:"wrong_stream"`
}

// ProtocolSummary is the protocol violations and the connection counts.
type ProtocolSummary struct {
	Violations ProtocolViolations `json:"violations"`
	Connection client.Stats       `json:"connection"`
}

// ProtocolViolations counts broken wire rules (mcp-notes §10 A–C, E).
type ProtocolViolations struct {
	Total             int `json:"total"`
	ServerRequest     int `json:"server_request"`
	NotJSONRPC        int `json:"not_jsonrpc"`
	ContentType       int `json:"content_type"`
	Oversize          int `json:"oversize"`
	StreamNotClosed   int `json:"stream_not_closed"`
	BadProgress       int `json:"bad_progress"`
	ServerCancel      int `json:"server_cancel"`
	MissingResultType int `json:"missing_result_type"`
	UnknownResultType int `json:"unknown_result_type"`
	ReservedCode      int `json:"reserved_code"`
	DuplicateResponse int `json:"duplicate_response"`
	// The input_required rules (docs/long-running.md).
	InputWithContent   int `json:"input_with_content"`
	InputRequiredEmpty int `json:"input_required_empty"`
	BadInputRequest    int `json:"bad_input_request"`
	UndeclaredInput    int `json:"undeclared_input"`
	InputMethod        int `json:"input_required_method"`
	// The tasks extension's rules: a tasks/get answer that is no task; a
	// listen stream whose first message is not its acknowledgement, or
	// that carries what was not asked for.
	BadTask           int `json:"bad_task"`
	ListenNoAck       int `json:"listen_no_ack"`
	ListenUnrequested int `json:"listen_unrequested"`
}

// Cancellation is the evidence of work left running after a cancel.
type Cancellation struct {
	Cancels       int `json:"cancels"`
	LateResponses int `json:"late_responses"`
	LateProgress  int `json:"late_progress"`
	LeftoverCalls int `json:"leftover_calls"`
	// LeftoverIDs are the ids of the first leftover calls (a list, not a
	// check key); LeftoverMaxMs the longest time from a cancel to the work
	// seen after it on the wire.
	LeftoverIDs   []int64 `json:"leftover_ids,omitempty"`
	LeftoverMaxMs float64 `json:"leftover_max_ms"`
	// LateQueued: late messages that prove no work (fence.go in engine);
	// LateDrained: late progress read after its call's answer, which came
	// within cancel + grace, a write queue draining (engine/latedrain.go);
	// CancelAnswers: answers to the cancel itself.
	LateQueued        int                `json:"late_queued"`
	LateDrained       int                `json:"late_drained"`
	CancelAnswers     int                `json:"cancel_answers"`
	Orphaned          float64            `json:"orphaned"`
	LeftoverCPUS      float64            `json:"leftover_cpu_s"`
	DrainMs           float64            `json:"drain_ms"`
	Drained           bool               `json:"drained"`
	LeakedCallSeconds float64            `json:"leaked_call_seconds"`
	QuietWindowMs     float64            `json:"quiet_window_ms"`
	ByProbe           map[string]float64 `json:"by_probe"`
	ProbeErrors       []string           `json:"probe_errors,omitempty"`
	// ProcessCPU, Windows, Counting, NotObservable: see windows.go.
	ProcessCPU *ProcessCPU `json:"process_cpu,omitempty"`
	Windows    Windows     `json:"windows"`
	Counting   int         `json:"counting_probes"`
	// Client is how long mcpchaos itself stalled during the load
	// (starved.go); absent in files written before it existed.
	Client *ClientStall `json:"client,omitempty"`
	// CutPings: pings sent after cuts over HTTP (cutpings.go).
	CutPings *CutPings `json:"cut_pings,omitempty"`
	// Log is what the log probe that found the most orphans saw; absent
	// without a log probe.
	Log *LogOrphans `json:"log,omitempty"`
	// ServerProcesses: stdio servers that had to be signalled, and
	// processes they left running (processes.go).
	ServerProcesses *ServerProcesses `json:"server_processes,omitempty"`
}

// LogOrphans is what a log probe found: cancelled calls matched, by
// request id, with the line that says they ended.
type LogOrphans struct {
	Probe string `json:"probe"`
	// Lines is how many lines of the log were read during the run.
	Lines int `json:"lines"`
	// Matched: cancelled (or cut) calls whose completion line was seen.
	Matched int `json:"matched"`
	// Orphaned: of those, the calls whose line came later than their
	// cancel plus orphans.grace.
	Orphaned int `json:"orphaned"`
	// OrphanedIDs are the request ids of the first 100 orphans, ascending.
	OrphanedIDs []int64 `json:"orphaned_ids,omitempty"`
	// MaxAfterCancelMs is the longest time from a cancel to its call's
	// completion line, over the orphans.
	MaxAfterCancelMs float64 `json:"max_after_cancel_ms"`
	// Unseen: cancelled calls with no completion line by the end of the
	// probes (still running, or ended without a line the regexp matches).
	Unseen int `json:"unseen"`
}

// Throttling is how and when the server pushed back.
type Throttling struct {
	Total       int            `json:"total"`
	ByKind      map[string]int `json:"by_kind"`
	RetryAfterS RetryAfter     `json:"retry_after_s"`
	OnsetRate   float64        `json:"onset_rate"`
	BestOKRate  float64        `json:"best_ok_rate"`
	Retries     int            `json:"retries"`
	// RetriesNotMade counts throttled calls whose retry was not made
	// because the load ended first (set by the engine).
	RetriesNotMade int `json:"retries_not_made"`
}

// RetryAfter summarises the Retry-After values, in seconds.
type RetryAfter struct {
	P50 float64 `json:"p50"`
	Max float64 `json:"max"`
}

// Timeouts counts the client's timeouts and what each timeout policy would
// have done.
type Timeouts struct {
	Idle            int                     `json:"idle"`
	Cap             int                     `json:"cap"`
	CapWithProgress int                     `json:"cap_with_progress"`
	Policies        map[string]PolicyCounts `json:"policies"`
}

// PolicyCounts is what one client timeout policy would have done.
type PolicyCounts struct {
	Killed        int `json:"killed"`
	WaitedForever int `json:"waited_forever"`
}

// FaultStats is one kind of injected fault.
type FaultStats struct {
	Injected      int         `json:"injected"`
	TimingErrorMs TimingError `json:"timing_error_ms"`
	// Skipped counts draws whose call ended before the fault's moment.
	Skipped int `json:"skipped"`
	// Unexpected counts malformed requests whose answer was not what a
	// correct server gives.
	Unexpected int `json:"unexpected"`
	// Server counts how the server coped with stalled readers: buffered,
	// dropped, errored, blocked.
	Server map[string]int `json:"server,omitempty"`
	// Refused counts background notifications the server refused (an HTTP
	// status outside 2xx) or that could not be written.
	Refused int `json:"refused"`
}

// TimingError is how far from its scheduled time a fault acted, in ms.
type TimingError struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// CheckResult is one evaluated check.
type CheckResult struct {
	Check string `json:"check"`
	// Value is the left-hand side, in the key's own unit (milliseconds for
	// pNN()).
	Value float64 `json:"value"`
	Pass  bool    `json:"pass"`
	// Reason says why the value could not be found (the check failed).
	Reason string `json:"reason,omitempty"`
	Line   int    `json:"line,omitempty"`
}

// Verdict is one area scored against the era.
type Verdict struct {
	Area     string `json:"area"`
	Status   string `json:"status"`
	Evidence string `json:"evidence"`
}
