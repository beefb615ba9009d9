package engine

import (
	"testing"

	"github.com/mcpchaos/mcpchaos/client"
)

func TestCancelAnswer(t *testing.T) {
	result := func(text string, isError bool) client.Event {
		return client.Event{Kind: client.EvResult, Result: client.Result{Text: []byte(text), IsError: isError}}
	}
	for _, tc := range []struct {
		name string
		ev   client.Event
		want bool
	}{
		{"go context error", result("stopped: context canceled", true), true},
		{"stopped at a step", result("stopped at step 6", false), true},
		{"node abort", result("AbortError: This operation was aborted", true), true},
		{"python", result("CancelledError()", true), true},
		{"finished work", result("worked 1.2 s (1)", false), false},
		{"other tool error", result("file not found", true), false},
		{"rpc request cancelled", client.Event{Kind: client.EvRPCError, Code: -32800, Message: []byte("x")}, true},
		{"rpc error saying so", client.Event{Kind: client.EvRPCError, Code: -32603, Message: []byte("request cancelled")}, true},
		{"other rpc error", client.Event{Kind: client.EvRPCError, Code: -32603, Message: []byte("internal error")}, false},
		{"progress", client.Event{Kind: client.EvProgress}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cancelAnswer(tc.ev); got != tc.want {
				t.Errorf("cancelAnswer = %v, want %v", got, tc.want)
			}
		})
	}
}
