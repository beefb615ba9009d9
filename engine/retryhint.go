package engine

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"

	"github.com/mcpchaos/mcpchaos/mcp"
)

// Retry hints in every form a server or a gateway may pass one on, so
// that a gateway test calls a target's hint lost only when none reached
// us: the Retry-After header, the rate-limit headers
// (mcp.Event.RateLimitReset), a JSON-RPC error's data (retryAfter,
// retryAfterSeconds, retryAfterMs, waitTimeSeconds: a number or a numeric
// string), and words in an error's message or an isError result's text
// ("retry after 3s", "retry in 2 seconds").

// maxHintData bounds the error data read for a hint.
const maxHintData = 64 << 10

// hintKeys are the error data keys that carry a wait.
var hintKeys = []string{"retryAfter", "retryAfterSeconds", "retryAfterMs", "waitTimeSeconds"}

// hintText finds a wait in words.
var hintText = regexp.MustCompile(`(?i)\b(?:retry|try again)[ _-]*(?:after|in)\W{0,3}\d`)

// hintIn reports whether an event carried a retry hint in any form.
func hintIn(ev mcp.Event) bool {
	switch ev.Kind {
	case mcp.EvHeaders:
		return ev.RetryAfter > 0 || ev.RateLimitReset > 0
	case mcp.EvRPCError:
		return dataHint(ev.Raw) || hintText.Match(ev.Message)
	case mcp.EvResult:
		return ev.Result.IsError && hintText.Match(ev.Result.Text)
	}
	return false
}

// dataHint reports whether a JSON-RPC error's data holds a positive wait
// under one of hintKeys.
func dataHint(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' || len(raw) > maxHintData {
		return false
	}
	var data map[string]json.RawMessage
	if json.Unmarshal(raw, &data) != nil {
		return false
	}
	for _, k := range hintKeys {
		v := bytes.Trim(data[k], `"`)
		if n, err := strconv.ParseFloat(string(v), 64); err == nil && n > 0 {
			return true
		}
	}
	return false
}
