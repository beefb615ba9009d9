package report

import (
	"io"

	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/report/summary"
	"github.com/mcpchaos/mcpchaos/results"
)

// The Summary's types, keys, checks and words are package summary's (the
// renderings and the verdicts read them there); report keeps its names
// for them, so that a program written against report builds on.

// The run's description and its Summary.
type (
	Meta               = summary.Meta
	Summary            = summary.Summary
	Calls              = summary.Calls
	Rates              = summary.Rates
	Errors             = summary.Errors
	ErrorCount         = summary.ErrorCount
	ToolStats          = summary.ToolStats
	ToolLatency        = summary.ToolLatency
	Latencies          = summary.Latencies
	Latency            = summary.Latency
	ProgressSummary    = summary.ProgressSummary
	ProgressViolations = summary.ProgressViolations
	ProtocolSummary    = summary.ProtocolSummary
	ProtocolViolations = summary.ProtocolViolations
	Cancellation       = summary.Cancellation
	CutPings           = summary.CutPings
	WorkFences         = summary.WorkFences
	Contention         = summary.Contention
	CPUBound           = summary.CPUBound
	LogOrphans         = summary.LogOrphans
	ProcessCPU         = summary.ProcessCPU
	ToolCPU            = summary.ToolCPU
	Windows            = summary.Windows
	Window             = summary.Window
	ClientStall        = summary.ClientStall
	ServerProcesses    = summary.ServerProcesses
	Throttling         = summary.Throttling
	RetryAfter         = summary.RetryAfter
	Timeouts           = summary.Timeouts
	PolicyCounts       = summary.PolicyCounts
	MRTR               = summary.MRTR
	Tasks              = summary.Tasks
	FaultStats         = summary.FaultStats
	TimingError        = summary.TimingError
	ClientLimits       = summary.ClientLimits
	CheckResult        = summary.CheckResult
	Verdict            = summary.Verdict
)

// The gateway section and the limit card.
type (
	GatewaySummary      = summary.GatewaySummary
	GatewayCounts       = summary.GatewayCounts
	GatewayLag          = summary.GatewayLag
	GatewayStops        = summary.GatewayStops
	StopCounts          = summary.StopCounts
	GatewayMisbehaviour = summary.GatewayMisbehaviour
	Limits              = summary.Limits
	RetryAfterCheck     = summary.RetryAfterCheck
	LimitHeaders        = summary.LimitHeaders
	Overload            = summary.Overload
	LimitCounts         = summary.LimitCounts
	Lockout             = summary.Lockout
)

// Checks.
type (
	Check      = summary.Check
	CheckError = summary.CheckError
	Names      = summary.Names
)

// Verdict statuses.
const (
	StatusPass          = summary.StatusPass
	StatusWarning       = summary.StatusWarning
	StatusViolation     = summary.StatusViolation
	StatusNotExercised  = summary.StatusNotExercised
	StatusNotObservable = summary.StatusNotObservable
	StatusLegacy        = summary.StatusLegacy
	StatusThrottled     = summary.StatusThrottled
)

// Verdict areas, in report order.
const (
	AreaCancellation = summary.AreaCancellation
	AreaProgress     = summary.AreaProgress
	AreaThrottling   = summary.AreaThrottling
	AreaTimeouts     = summary.AreaTimeouts
	AreaProtocol     = summary.AreaProtocol
	AreaGateway      = summary.AreaGateway
)

// ContentionHorizonGraces is how far a projected cut is followed, in
// graces (summary.ContentionHorizonGraces).
const ContentionHorizonGraces = summary.ContentionHorizonGraces

// GoesOnShare is the least share of what the windows' cuts had left that
// a server must do for its cuts to be projected (summary.GoesOnShare).
const GoesOnShare = summary.GoesOnShare

// KnownKeys returns every dotted numeric key a check may use
// (summary.KnownKeys).
func KnownKeys() []string { return summary.KnownKeys() }

// ScenarioChecks resolves a scenario's checks (summary.ScenarioChecks).
func ScenarioChecks(sc *scenarios.Scenario, names Names) ([]Check, []error) {
	return summary.ScenarioChecks(sc, names)
}

// ValidateCheck reports whether c can be evaluated (summary.ValidateCheck).
func ValidateCheck(c Check) error { return summary.ValidateCheck(c) }

// ParseCheck parses one check as written (summary.ParseCheck).
func ParseCheck(raw string) (Check, error) { return summary.ParseCheck(raw) }

// ParseChecks parses the checks a results header recorded
// (summary.ParseChecks).
func ParseChecks(specs []results.CheckSpec) ([]Check, error) { return summary.ParseChecks(specs) }

// ThrottleKinds returns the kinds of throttling a call can meet
// (summary.ThrottleKinds).
func ThrottleKinds() []string { return summary.ThrottleKinds() }

// ReadSummary reads a summary written as JSON (summary.ReadSummary).
func ReadSummary(r io.Reader) (*Summary, error) { return summary.ReadSummary(r) }

// FormatMs formats a duration in milliseconds as the text summary does
// (summary.FormatMs).
func FormatMs(ms float64) string { return summary.FormatMs(ms) }

// FormatCheckValue formats a check's value in its key's unit
// (summary.FormatCheckValue).
func FormatCheckValue(c CheckResult) string { return summary.FormatCheckValue(c) }

// FormatRate formats calls per second (summary.FormatRate).
func FormatRate(x float64) string { return summary.FormatRate(x) }
