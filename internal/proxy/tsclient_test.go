package proxy_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// tsOptions are testdata/tsclient.mjs's options: its one slow_task call
// and how it waits.
type tsOptions struct {
	Steps      int  `json:"steps"`
	StepMs     int  `json:"step_ms"`
	TimeoutMs  int  `json:"timeout_ms,omitempty"`
	Progress   bool `json:"progress,omitempty"`
	MaxTotalMs int  `json:"max_total_ms,omitempty"`
	WaitMs     int  `json:"wait_ms,omitempty"`
}

// tsOutcome is what testdata/tsclient.mjs says of its call.
type tsOutcome struct {
	Outcome, Error string
	Code           int
	AfterMs        float64 `json:"after_ms"`
}

// runTSClient runs the TypeScript SDK's client (testdata/tsclient.mjs,
// the SDK from modules) against url with o and returns what it said of
// its call.
func runTSClient(t *testing.T, modules, url string, o tsOptions) tsOutcome {
	t.Helper()
	opts, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), testutil.WaitLong)
	defer cancel()
	out, err := exec.CommandContext(ctx, "node", "testdata/tsclient.mjs", modules, url, string(opts)).CombinedOutput()
	if err != nil {
		t.Fatalf("the TypeScript client: %v\n%s", err, out)
	}
	var got tsOutcome
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("the TypeScript client said %s: %v", out, err)
	}
	return got
}
