package main

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/engine"
	"github.com/mcpchaos/mcpchaos/internal/termsafe"
	"github.com/mcpchaos/mcpchaos/report"
)

func TestStatusText(t *testing.T) {
	for _, tt := range []struct {
		name string
		live engine.Live
		snap report.Live
		want string
	}{
		{"start", engine.Live{Total: 30 * time.Second, Offered: 40}, report.Live{},
			"0s/30s  offered 40/s  achieved 0/s  in flight 0"},
		{"running", engine.Live{Elapsed: 12700 * time.Millisecond, Total: 30 * time.Second, Offered: 40.4, InFlight: 7, Scheduled: 500},
			report.Live{Calls: 105, Rate: 39.6, P99: 123456 * time.Microsecond,
				Outcomes: map[string]int{"ok": 100, "cancelled": 3, "timeout_idle": 2, "dropped": 0}},
			"12s/30s  offered 40/s  achieved 40/s  in flight 7  ok 100  timeout_idle 2  cancelled 3  p99 123ms"},
		{"outcomes in report order", engine.Live{Elapsed: time.Minute, Total: 2 * time.Minute, Offered: 1000},
			report.Live{Rate: 998.2, P99: 2 * time.Second,
				Outcomes: map[string]int{"dropped": 9, "throttled": 4, "ok": 1, "protocol_error": 2, "rpc_error": 3}},
			"1m0s/2m0s  offered 1000/s  achieved 998/s  in flight 0  ok 1  rpc_error 3  throttled 4  protocol_error 2  dropped 9  p99 2s"},
		{"closed model: no offered rate; no p99 yet", engine.Live{Elapsed: 1500 * time.Millisecond, Total: 10 * time.Second, InFlight: 20},
			report.Live{Rate: 150, Outcomes: map[string]int{"cancelled": 225}},
			"1s/10s  achieved 150/s  in flight 20  cancelled 225"},
		{"load phase: no word", engine.Live{Elapsed: time.Second, Total: 10 * time.Second, Offered: 5, Phase: engine.PhaseLoad},
			report.Live{Rate: 5}, "1s/10s  offered 5/s  achieved 5/s  in flight 0"},
		{"drain says what it waits for", engine.Live{Elapsed: 11 * time.Second, Total: 10 * time.Second, InFlight: 3, Phase: engine.PhaseDrain},
			report.Live{Rate: 5}, "drain: waiting for calls in flight  11s/10s  achieved 5/s  in flight 3"},
		{"probes", engine.Live{Elapsed: 13 * time.Second, Total: 10 * time.Second, Phase: engine.PhaseProbes},
			report.Live{Rate: 5}, "probes: grace, quiet window, probes back to baseline  13s/10s  achieved 5/s  in flight 0"},
		{"only the outcomes mcpchaos knows: a record's own text is never drawn", engine.Live{Elapsed: time.Second, Total: 10 * time.Second},
			report.Live{Rate: 1, Outcomes: map[string]int{"ok": 1, "ok\x1b]0;owned\a\r\nResult PASS": 5}},
			"1s/10s  achieved 1/s  in flight 0  ok 1"},
		{"p99 to three significant digits", engine.Live{Elapsed: 3 * time.Second, Total: 10 * time.Second, Offered: 5},
			report.Live{Rate: 5, P99: 1260 * time.Microsecond, Outcomes: map[string]int{"ok": 15}},
			"3s/10s  offered 5/s  achieved 5/s  in flight 0  ok 15  p99 1.26ms"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := statusText(tt.live, tt.snap); got != tt.want {
				t.Errorf("statusText:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestStatusLineDrawing(t *testing.T) {
	agg := report.NewAggregator(report.Rules{})
	live := engine.Live{Elapsed: 2 * time.Second, Total: 4 * time.Second, Offered: 10}

	// Not a terminal (or -q): nothing is drawn, nothing is cleared.
	var buf bytes.Buffer
	for _, quiet := range []bool{false, true} {
		s := newStatusLine(&buf, quiet, agg)
		s.tick(live)
		s.clear()
	}
	if buf.Len() != 0 {
		t.Errorf("drew %q on a buffer that is not a terminal", buf.String())
	}

	// On a terminal: each tick redraws the line; clear erases it.
	s := &statusLine{w: &buf, on: true, agg: agg}
	s.tick(live)
	s.tick(live)
	s.clear()
	line := "\r\033[K" + statusText(live, agg.Snapshot())
	if want := line + line + "\r\033[K"; buf.String() != want {
		t.Errorf("drew %q, want %q", buf.String(), want)
	}
}

// TestStatusLineBeneathTermsafe: stderr escapes control characters
// (termsafe.Writer); the status line draws its own beneath it.
func TestStatusLineBeneathTermsafe(t *testing.T) {
	var buf bytes.Buffer
	s := newStatusLine(termsafe.NewWriter(&buf), false, report.NewAggregator(report.Rules{}))
	if s.w != io.Writer(&buf) {
		t.Errorf("the status line writes to %T, want the writer beneath the terminal-safe one", s.w)
	}
}
