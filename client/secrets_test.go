package client

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// Errors about the target's URL mask its credentials (the password, query
// parameters with secret names), whether or not the URL parses.
func TestDialErrorsHideURLCredentials(t *testing.T) {
	closed := testutil.ClosedAddr(t)
	tests := []struct {
		name string
		url  string
	}{
		{"does not parse", "http://me:pw-secret@127.0.0.1:bad/mcp?token=tok-secret"},
		{"bad scheme", "ftp://me:pw-secret@127.0.0.1/mcp?token=tok-secret"},
		{"refused", "http://me:pw-secret@" + closed + "/mcp?access_token=tok-secret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Dial(context.Background(), Config{HTTP: &HTTPConfig{URL: tt.url}, Protocol: Era20260728})
			if err == nil {
				t.Fatal("Dial succeeded")
			}
			if msg := err.Error(); strings.Contains(msg, "pw-secret") || strings.Contains(msg, "tok-secret") {
				t.Errorf("error shows a credential: %s", msg)
			}
		})
	}
}
