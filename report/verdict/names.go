package verdict

import "github.com/mcpchaos/mcpchaos/report/summary"

// The verdicts speak of the Summary's types, statuses and areas by the
// names package report gave them before they moved here, so that the
// verdicts read as they did.
type (
	Summary            = summary.Summary
	Verdict            = summary.Verdict
	Cancellation       = summary.Cancellation
	CutPings           = summary.CutPings
	CPUBound           = summary.CPUBound
	LogOrphans         = summary.LogOrphans
	ProcessCPU         = summary.ProcessCPU
	Windows            = summary.Windows
	Window             = summary.Window
	ServerProcesses    = summary.ServerProcesses
	Throttling         = summary.Throttling
	ProgressViolations = summary.ProgressViolations
	GatewaySummary     = summary.GatewaySummary
)

const (
	StatusPass          = summary.StatusPass
	StatusWarning       = summary.StatusWarning
	StatusViolation     = summary.StatusViolation
	StatusNotExercised  = summary.StatusNotExercised
	StatusNotObservable = summary.StatusNotObservable
	StatusLegacy        = summary.StatusLegacy
	StatusThrottled     = summary.StatusThrottled

	AreaCancellation = summary.AreaCancellation
	AreaProgress     = summary.AreaProgress
	AreaThrottling   = summary.AreaThrottling
	AreaTimeouts     = summary.AreaTimeouts
	AreaProtocol     = summary.AreaProtocol
	AreaGateway      = summary.AreaGateway
)

// The words of the evidence, as the summary writes them.
var (
	fmtMs      = summary.FormatMs
	fmtNum     = summary.FormatNum
	fmtRate    = summary.FormatRate
	plural     = summary.Plural
	nonzero    = summary.NonZero
	kindCounts = summary.KindCounts
)
