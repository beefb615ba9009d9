package engine

import "github.com/mcpchaos/mcpchaos/client"

// Retry hints in every form a server or a gateway may pass one on, so
// that a gateway test calls a target's hint lost only when none reached
// us: the Retry-After header, the rate-limit headers
// (client.Event.RateLimitReset), a JSON-RPC error's data (retryAfter,
// retryAfterSeconds, retryAfterMs, waitTimeSeconds: a number or a numeric
// string), and words in an error's message or an isError result's text
// ("retry after 3s", "retry in 2 seconds"); the readers are hints.go's.

// hintIn reports whether an event carried a retry hint in any form.
func hintIn(ev client.Event) bool {
	switch ev.Kind {
	case client.EvHeaders:
		return ev.RetryAfter > 0 || ev.RateLimitReset > 0
	case client.EvRPCError:
		_, _, inData := hintFromData(ev.Raw)
		_, inText := hintFromText(string(ev.Message))
		return inData || inText
	case client.EvResult:
		if !ev.Result.IsError {
			return false
		}
		_, inText := hintFromText(string(ev.Result.Text))
		return inText
	}
	return false
}
