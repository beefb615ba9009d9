package summary

// Verdict statuses.
const (
	StatusPass         = "pass"
	StatusWarning      = "warning"
	StatusViolation    = "violation"
	StatusNotExercised = "not exercised"
	// StatusNotObservable: calls were cancelled, but no probe could see
	// the kind of work the tools do, so "no work seen" would prove
	// nothing. It does not fail a run.
	StatusNotObservable = "not_observable"
	// StatusLegacy: work left running after a plain disconnect from a
	// server of a 2025 era, where a disconnect is not a cancel.
	StatusLegacy = "expected legacy behaviour"
	// StatusThrottled is informational: the server pushed back.
	StatusThrottled = "throttled"
)

// Verdict areas, in report order.
const (
	AreaCancellation = "cancellation"
	AreaProgress     = "progress"
	AreaThrottling   = "throttling"
	AreaTimeouts     = "timeouts"
	AreaProtocol     = "protocol"
)

// AreaGateway is the verdict area of a run with a gateway section: what
// the gateway between us and the built-in targets did to the calls.
const AreaGateway = "gateway"
