package engine

import (
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
)

// TestConnectTimeout: Plan.Timeouts.Connect (timeouts.connect) becomes the client's probe and
// dial bounds; zero leaves the client's defaults, and a dial bound of the
// target's own is kept.
func TestConnectTimeout(t *testing.T) {
	for _, tc := range []struct {
		name              string
		connect, ownDial  time.Duration
		wantProbe, wantDl time.Duration
	}{
		{"unset: the client's defaults", 0, 0, 0, 0},
		{"set: probe and dial", 30 * time.Second, 0, 30 * time.Second, 30 * time.Second},
		{"the target's own dial bound is kept", 30 * time.Second, 2 * time.Second, 30 * time.Second, 2 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &runner{plan: Plan{Timeouts: Timeouts{Connect: tc.connect},
				Target: Target{HTTP: &client.HTTPConfig{URL: "http://127.0.0.1:1/mcp", DialTimeout: tc.ownDial}}}}
			if _, err := r.startTarget(); err != nil {
				t.Fatal(err)
			}
			cfg := r.clients.cfg
			if cfg.ProbeTimeout != tc.wantProbe || cfg.HTTP.DialTimeout != tc.wantDl {
				t.Errorf("probe %v, dial %v; want %v, %v", cfg.ProbeTimeout, cfg.HTTP.DialTimeout, tc.wantProbe, tc.wantDl)
			}
		})
	}
}
