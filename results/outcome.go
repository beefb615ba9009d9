package results

// Outcomes: exactly one per call. The names are the results file's
// Record.Outcome and the summary's calls.<name> keys.
const (
	OK             = "ok"
	ToolError      = "tool_error"
	RPCError       = "rpc_error"
	Throttled      = "throttled"
	HTTPError      = "http_error"
	TimeoutIdle    = "timeout_idle"
	TimeoutCap     = "timeout_cap"
	Cancelled      = "cancelled"
	Disconnected   = "disconnected"
	TransportError = "transport_error"
	ProtocolError  = "protocol_error"
	Dropped        = "dropped"
	// ClientLimit: the call could not be made because our own process ran
	// out of something (Record.Limit says what): file descriptors,
	// ephemeral ports, memory. It says nothing of the server.
	ClientLimit = "client_limit"
)

// Outcome is one row of the outcome table.
type Outcome struct {
	Name string
	// Failure: the error set counts it (every outcome but ok, the ones our
	// own faults caused and our own process's limits).
	Failure bool
	// Doc is its meaning, as docs/summary.md's calls.<name> row gives it
	// (a report test holds the two equal).
	Doc string
}

// OutcomeTable is the one table of outcomes, in report order. Everything
// else derives from it or is tested against it: Outcomes and IsFailure
// (the error set), the summary's calls counts (report.Calls,
// TestCallsCoverEveryOutcome), the rows of docs/summary.md
// (TestOutcomeDocs) and the HTML report's colours (TestOutcomeColors).
var OutcomeTable = [...]Outcome{
	{OK, false, "a result without `isError`"},
	{ToolError, true, "a tool result with `isError: true` (or an `input_required` result)"},
	{RPCError, true, "a JSON-RPC error response not configured as throttling"},
	{Throttled, true, "HTTP 429/503, a configured throttling code or message, or load shedding"},
	{HTTPError, true, "any other HTTP status outside 2xx"},
	{TimeoutIdle, true, "nothing arrived for the idle timeout; we cancelled"},
	{TimeoutCap, true, "the maximum timeout was reached (progress never resets it); we cancelled"},
	{Cancelled, false, "we cancelled the call (a cancel fault or the end of the run) before its response"},
	{Disconnected, false, "a disconnect fault cut the call's connection"},
	{TransportError, true, "the connection failed without an answer"},
	{ProtocolError, true, "the answer broke the protocol (bad content type, not JSON-RPC or not UTF-8, only responses for other ids, unknown result type, oversize)"},
	{Dropped, true, "the call could not start: `max_in_flight` was reached"},
	{ClientLimit, false, "the call could not be made because our own process ran out of file descriptors, local ports or memory (see [`client_limits`](#client-limits-client_limits)): never counted against the server, not in `errors`, in no verdict; the run fails"},
}

// Outcomes lists every outcome's name, in report order.
var Outcomes = outcomeNames()

func outcomeNames() []string {
	out := make([]string, len(OutcomeTable))
	for i, o := range OutcomeTable {
		out[i] = o.Name
	}
	return out
}

// IsFailure reports whether the error set counts a call of this outcome;
// an unknown outcome counts (it is not one we know to be harmless).
func IsFailure(outcome string) bool {
	for _, o := range OutcomeTable {
		if o.Name == outcome {
			return o.Failure
		}
	}
	return true
}
