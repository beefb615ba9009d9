package targetserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callWithProgress calls slow_task with token and waits until the client
// has received every notification the server counts as sent.
func callWithProgress(t *testing.T, s *Server, cs *mcp.ClientSession, log *progressLog, token string, args map[string]any) []float64 {
	t.Helper()
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: ToolSlowTask, Arguments: args, Meta: mcp.Meta{"progressToken": token}}); err != nil {
		t.Fatalf("call: %v", err)
	}
	testutil.Eventually(t, "every notification sent to arrive", func() bool {
		return int64(len(log.values(token))) == s.Stats().ProgressSent
	})
	return log.values(token)
}

// TestProgressFlood: extra notifications, all strictly increasing, never
// more than the configured rate allows. That they come at about that rate
// is the timing tier's (TestTimingProgressFlood).
func TestProgressFlood(t *testing.T) {
	for _, tr := range []transport{transports[0], transports[2]} {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			if v, _ := progressFlood(t, tr); len(v) <= 5 {
				t.Errorf("%d notifications, want the 5 steps' and some floods", len(v))
			}
		})
	}
}

// floodHz is progressFlood's flood rate.
const floodHz = 100

// progressFlood makes a 0.5 s call with floods at floodHz over tr, checks
// that the values increase and are at most what the rate allows, and
// returns them with the call's duration.
func progressFlood(t *testing.T, tr transport) ([]float64, time.Duration) {
	t.Helper()
	log := newProgressLog()
	s, cs, _ := tr.start(t, Config{ProgressFloodHz: floodHz}, log)
	start := time.Now()
	v := callWithProgress(t, s, cs, log, "flood", map[string]any{"steps": 5, "step_ms": 100})
	elapsed := time.Since(start)
	if n := violations(v); n != 0 {
		t.Errorf("%d non-increasing values in %v", n, v)
	}
	if max := 5 + int(math.Ceil(floodHz*elapsed.Seconds())) + 1; len(v) > max {
		t.Errorf("%d notifications in %v, want at most %d", len(v), elapsed, max)
	}
	return v, elapsed
}

// TestStall: progress stops after StallAfter steps; the call still finishes.
func TestStall(t *testing.T) {
	log := newProgressLog()
	s, cs := startStdio(t, Config{StallAfter: 2}, "", log)
	v := callWithProgress(t, s, cs, log, "stall", map[string]any{"steps": 6, "step_ms": 20})
	if len(v) != 2 || v[0] != 1 || v[1] != 2 {
		t.Errorf("progress = %v, want [1 2]", v)
	}
	wantStats(t, s.Stats(), Stats{Started: 1, Completed: 1, ProgressSent: 2})
}

// TestEndless: the call never finishes, sends strictly increasing progress
// with no total, and stops when cancelled.
func TestEndless(t *testing.T) {
	for _, tr := range []transport{transports[0], transports[3]} {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			log := newProgressLog()
			s, cs, _ := tr.start(t, Config{Endless: true}, log)
			cancel, done := startLongCall(t, s, cs, map[string]any{"steps": 2, "step_ms": 20}, "forever")
			testutil.Eventually(t, "more progress than steps", func() bool { return len(log.values("forever")) >= 5 })
			if st := s.Stats(); st.Completed != 0 || st.Inflight != 1 {
				t.Errorf("endless call finished: %+v", st)
			}
			cancel()
			<-done
			testutil.Eventually(t, "the call to stop", func() bool { return s.Stats().Inflight == 0 })
			if v := log.values("forever"); violations(v) != 0 {
				t.Errorf("progress not strictly increasing: %v", v)
			}
			log.mu.Lock()
			for _, p := range log.byTk["forever"] {
				if p.Total != 0 {
					t.Errorf("endless progress has total %v", p.Total)
				}
			}
			log.mu.Unlock()
			if st := s.Stats(); st.Cancelled != 1 || st.Completed != 0 {
				t.Errorf("stats %+v, want one cancelled call", st)
			}
		})
	}
}

// TestNonMonotonicWire: the violations a client counts equal the metric.
func TestNonMonotonicWire(t *testing.T) {
	for _, tr := range []transport{transports[0], transports[2]} {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			log := newProgressLog()
			s, cs, metricsURL := tr.start(t, Config{NonMonotonic: 0.3, Seed: 3}, log)
			v := callWithProgress(t, s, cs, log, "nm", map[string]any{"steps": 60, "step_ms": 2})
			got := violations(v)
			if got == 0 || int64(got) != s.Stats().NonMonotonic {
				t.Errorf("client counts %d violations, server %d", got, s.Stats().NonMonotonic)
			}
			if m := testutil.MustScrape(t, metricsURL)["mcpchaos_target_non_monotonic_total"]; m != float64(got) {
				t.Errorf("metric non_monotonic_total = %v, client counts %d", m, got)
			}
		})
	}
}

// TestProgressAfterResponse reads stdio raw: three progress lines, the
// response, then one more progress line.
func TestProgressAfterResponse(t *testing.T) {
	s := newServer(t, Config{ProgressAfterResponse: true})
	w, lines := rawStdio(t, s)
	w(modernCall(1, ToolSlowTask, map[string]any{"steps": 3, "step_ms": 10}, "after"))
	var order []string
	for len(order) < 5 {
		select {
		case l := <-lines:
			var m struct {
				ID     any    `json:"id"`
				Method string `json:"method"`
				Params struct {
					Progress float64 `json:"progress"`
				} `json:"params"`
			}
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("bad line %q: %v", l, err)
			}
			if m.Method == "notifications/progress" {
				order = append(order, "progress "+fmt.Sprint(m.Params.Progress))
			} else {
				order = append(order, "response")
			}
		case <-time.After(testutil.WaitLong):
			t.Fatalf("only %v arrived", order)
		}
	}
	want := "progress 1, progress 2, progress 3, response, progress 4"
	if got := strings.Join(order, ", "); got != want {
		t.Errorf("stdout order = %s, want %s", got, want)
	}
	// The count goes up once the write returned, maybe after the client read it.
	testutil.Eventually(t, "the fourth notification to be counted", func() bool { return s.Stats().ProgressSent == 4 })
	wantStats(t, s.Stats(), Stats{Started: 1, Completed: 1, ProgressSent: 4})
}

// rawStdio serves s over in-memory pipes and returns a line writer and the
// lines the server writes.
func rawStdio(t *testing.T, s *Server) (write func(string), lines <-chan string) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- s.ServeStdio(context.Background(), inR, outW)
		outW.Close()
	}()
	ch := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			ch <- sc.Text()
		}
		close(ch)
	}()
	t.Cleanup(func() {
		inW.Close()
		if err := <-done; err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	})
	return func(line string) {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Errorf("write stdin: %v", err)
		}
	}, ch
}
