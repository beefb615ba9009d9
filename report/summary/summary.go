package summary

import (
	"time"

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
