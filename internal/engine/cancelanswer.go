package engine

import (
	"regexp"

	"github.com/mcpchaos/mcpchaos/client"
)

// cancelWords is what an answer caused by a cancel says: "context
// canceled" (Go), "stopped at step 6", "AbortError", "operation was
// aborted" (Node), "interrupted", "CancelledError" (Python).
var cancelWords = regexp.MustCompile(`(?i)cancel|stopped|abort|interrupt|terminated`)

// requestCancelled is the JSON-RPC error code some servers answer a
// cancelled request with (LSP's RequestCancelled).
const requestCancelled = -32800

// cancelAnswer reports whether an answer that came after our cancel says
// it was cancelled: a JSON-RPC error with code -32800 or whose message
// says so, or a result (an error or not) whose text says so. It is the
// server's answer to the cancel, not the result of finished work (counted
// apart: cancel_answers).
func cancelAnswer(ev client.Event) bool {
	switch ev.Kind {
	case client.EvRPCError:
		return ev.Code == requestCancelled || cancelWords.Match(ev.Message)
	case client.EvResult:
		return cancelWords.Match(ev.Result.Text)
	}
	return false
}
