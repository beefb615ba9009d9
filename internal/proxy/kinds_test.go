package proxy

import (
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// TestRegistry: the proxy builds exactly the kinds the registry gives to
// faultkinds.Proxy: a kind added to the registry for the proxy and not
// built here, or built here and not registered, fails.
func TestRegistry(t *testing.T) {
	var built []string
	for _, k := range kinds {
		built = append(built, k.name)
	}
	if err := faultkinds.Differ(built, faultkinds.Proxy); err != nil {
		t.Error(err)
	}
}

func TestFaultKeys(t *testing.T) {
	tests := []struct {
		name, fault string
		want        string // an error's text, "" for none
	}{
		{"progress_endless", "{kind: progress_endless, every: 100ms}", ""},
		{"throttle", "{kind: throttle, status: 503, retry_after: 2s, rpc_code: -32001}", ""},
		{"delay_response", "{kind: delay_response, for: 3s}", ""},
		{"drop_response", "{kind: drop_response, tools: [slow_*]}", ""},
		{"server_cancel", "{kind: server_cancel, after: 200ms}", ""},
		{"progress_flood", "{kind: progress_flood, hz: 50}", ""},
		{"progress_flood without hz", "{kind: progress_flood}", `missing required key "hz"`},
		{"progress_flood too fast", "{kind: progress_flood, hz: 20000}", `must be at most 10000`},
		{"progress_stall", "{kind: progress_stall, after: 1s}", ""},
		{"progress_regress", "{kind: progress_regress, after: 1s, tools: [slow_task]}", ""},
		{"progress_after_response", "{kind: progress_after_response, probability: 0.1}", ""},
		{"after_progress is not the proxy's", "{kind: progress_stall, after_progress: 2}", `unknown key "after_progress"`},
		{"disconnect", "{kind: disconnect, mode: rst, after: 1s}", ""},
		{"disconnect mode", "{kind: disconnect, mode: kill}", `invalid value "kill" (want one of: fin, rst)`},
		{"unknown kind", "{kind: progres_endless}", `p.yaml:5:12: faults[0].kind: unknown proxy fault kind "progres_endless" (did you mean "progress_endless"?`},
		{"a scenario's kind", "{kind: malformed, mode: json}", `unknown proxy fault kind "malformed" (malformed is a fault of a scenario (mcpchaos run), not of the proxy; known: progress_endless, throttle, delay_response, drop_response, server_cancel, progress_flood, progress_stall, progress_regress, progress_after_response, disconnect)`},
		{"key of another kind", "{kind: drop_response, for: 1s}", `p.yaml:5:27: faults[0]: unknown key "for" for proxy fault drop_response`},
		{"after on an untimed kind", "{kind: throttle, after: 1s}", `unknown key "after" for proxy fault throttle`},
		{"throttle status", "{kind: throttle, status: 404}", `invalid value "404" (want one of: 429, 503)`},
		{"delay_response without for", "{kind: delay_response}", `missing required key "for"`},
		{"every zero", "{kind: progress_endless, every: 0s}", `must be positive`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := "listen: 127.0.0.1:1\nupstream: {http: {url: \"http://127.0.0.1:2/mcp\"}}\nhold: 1s\nfaults:\n  - " + tc.fault + "\n"
			pf, err := scenarios.ParseProxy("p.yaml", []byte(file))
			if err == nil {
				_, err = New(pf)
			}
			if tc.want == "" {
				if err != nil {
					t.Fatalf("got %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
