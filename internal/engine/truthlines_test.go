package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// TestTruthLines: targets never read are one line, targets that failed
// after answering (their process ended) another, whatever the number of
// targets and reads; a single failure keeps its own words.
func TestTruthLines(t *testing.T) {
	page := func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(results.TruthPage{Now: time.Now(), Calls: []results.TruthCall{}})
	}
	var live []*httptest.Server
	for range 3 {
		s := httptest.NewServer(http.HandlerFunc(page))
		t.Cleanup(s.Close)
		live = append(live, s)
	}
	// Ports 1 to 4 of loopback: privileged, nothing listens there.
	var truth []string
	for p := 1; p <= 4; p++ {
		truth = append(truth, fmt.Sprintf("http://127.0.0.1:%d", p))
	}
	for _, s := range live {
		truth = append(truth, s.URL)
	}
	g := newGatewayRun(&GatewayPlan{Truth: truth}, "r")
	ctx := context.Background()
	g.read(ctx, false)
	live[0].Close()
	live[1].Close()
	for range 3 {
		g.read(ctx, true)
	}
	lines, unread := g.truthLines()
	if unread != 4 || len(lines) != 2 {
		t.Fatalf("unread %d, lines %q: want 4 unread and two lines", unread, lines)
	}
	if !strings.Contains(lines[0], "4 of 7 targets was never read") || !strings.Contains(lines[0], "127.0.0.1:1") ||
		!strings.Contains(lines[1], "2 of 7 targets failed after they had answered") || !strings.Contains(lines[1], live[0].URL) {
		t.Errorf("lines %q", lines)
	}
	live[2].Close()
	g.read(ctx, true)
	g2 := newGatewayRun(&GatewayPlan{Truth: []string{live[2].URL}}, "r")
	g2.failed = map[int]string{0: "read truth: boom"}
	g2.truths[0] = g.truths[6]
	if lines, unread := g2.truthLines(); unread != 0 || len(lines) != 1 || lines[0] != "read truth: boom" {
		t.Errorf("one target that failed after answering: lines %q, unread %d; want its own error", lines, unread)
	}
}
