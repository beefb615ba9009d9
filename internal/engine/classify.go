package engine

import (
	"strconv"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/results"
)

// reservedCode reports a code in the range the 2026 spec reserves for
// itself but does not define.
func reservedCode(code int64) bool {
	return code >= -32099 && code <= -32020 && code != client.CodeHeaderMismatch &&
		code != client.CodeMissingCapability && code != client.CodeUnsupportedVersion
}

// verdict is a call's outcome and the rule breaks its answer showed.
type verdict struct {
	outcome    string
	throttle   string // the kind, when throttled
	limit      string // what our process ran out of, when client_limit
	violations []string
}

// classify settles a call's one outcome from what was seen (cs.mu held).
// Whoever stopped the call (a fault, a timeout, the end of the run) wins
// when it acted before the final response. It changes nothing, so it can
// run as soon as the call ends and again when the record is written.
func (cs *callState) classify() verdict {
	var v verdict
	modern := cs.client != nil && cs.client.Era().Modern()
	if cs.hasCode && modern && reservedCode(cs.code) {
		v.violations = append(v.violations, "reserved_code")
	}
	rules := cs.r.plan.Throttle
	stoppedFirst := cs.stopOutcome != "" && (cs.responseAt.IsZero() || !cs.responseAt.Before(cs.cancelAt))
	switch {
	case stoppedFirst:
		v.outcome = cs.stopOutcome
	case cs.status != 0 && cs.status/100 != 2:
		switch {
		case cs.status == 429 || cs.status == 503:
			v.outcome, v.throttle = results.Throttled, "http_"+strconv.Itoa(cs.status)
		case cs.hasCode:
			v.outcome, v.throttle = cs.rpcOutcome(rules)
		default:
			v.outcome = results.HTTPError
		}
	case cs.final == finalError:
		v.outcome, v.throttle = cs.rpcOutcome(rules)
	case cs.final == finalResult:
		cs.resultOutcome(rules, modern, &v)
	case cs.final == finalNone && clientLimit(cs.endErr) != "":
		v.outcome, v.limit = results.ClientLimit, clientLimit(cs.endErr)
	case cs.endErr != nil && client.IsProtocolError(cs.endErr):
		v.outcome = results.ProtocolError
	case cs.rec.Violations["content_type"] > 0:
		v.outcome = results.ProtocolError
	default:
		v.outcome = results.TransportError
	}
	return v
}

func (cs *callState) rpcOutcome(rules ThrottleRules) (string, string) {
	for _, c := range rules.RPCCodes {
		if c == cs.code {
			return results.Throttled, "rpc_code"
		}
	}
	if rules.Message != nil && rules.Message.MatchString(cs.message) {
		return results.Throttled, "rpc_message"
	}
	return results.RPCError, ""
}

func (cs *callState) resultOutcome(rules ThrottleRules, modern bool, v *verdict) {
	r := cs.result
	switch r.Type {
	case client.ResultUnknown, client.ResultTask:
		// A task the call did not declare the extension for is invalid
		// (one it did is followed, tasks.go, and ends with the task's
		// outcome instead).
		v.violations = append(v.violations, "unknown_result_type")
		v.outcome = results.ProtocolError
		return
	case client.ResultMissing:
		if modern {
			v.violations = append(v.violations, "missing_result_type")
		}
	}
	switch {
	case cs.inputBroken:
		v.outcome = results.ProtocolError
	case r.StateOnly:
		v.outcome, v.throttle = results.Throttled, "load_shed"
	case r.Type == client.ResultInputRequired:
		v.outcome = results.ToolError
	case r.IsError && rules.ToolMessage != nil && rules.ToolMessage.MatchString(cs.message):
		v.outcome, v.throttle = results.Throttled, "tool_message"
	case r.IsError:
		v.outcome = results.ToolError
	default:
		v.outcome = results.OK
	}
}

// apply writes a verdict into the record.
func (cs *callState) apply(v verdict) {
	rec := &cs.rec
	rec.Outcome, rec.ThrottleKind, rec.Limit = v.outcome, v.throttle, v.limit
	for _, name := range v.violations {
		rec.Violations.Add(name, 1)
	}
	switch {
	case rec.Outcome == results.OK:
	case cs.endErr != nil:
		rec.Error = truncate(cs.endErr.Error(), 300)
	case rec.Outcome == results.TransportError && rec.Error == "":
		rec.Error = "no response"
	}
}

// outcomeNow classifies a call that just ended, for decisions (retries).
func (cs *callState) outcomeNow() verdict {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.classify()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
