package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/engine"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// statusLine draws a one-line live status on a terminal, about once a
// second: elapsed/total, offered and achieved rate, in flight, outcomes
// and the p99 of call latency so far. It draws nothing when stderr is not
// a terminal or -q was given.
type statusLine struct {
	w     io.Writer
	on    bool
	agg   *report.Aggregator
	drawn bool
}

func newStatusLine(w io.Writer, quiet bool, agg *report.Aggregator) *statusLine {
	return &statusLine{w: w, on: !quiet && isTerminal(w), agg: agg}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// tick runs on the engine's collector goroutine, which owns agg.
func (s *statusLine) tick(l engine.Live) {
	if !s.on {
		return
	}
	fmt.Fprintf(s.w, "\r\033[K%s", statusText(l, s.agg.Snapshot()))
	s.drawn = true
}

// statusText formats one status line.
func statusText(l engine.Live, snap report.Live) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s", l.Elapsed.Truncate(time.Second), l.Total.Truncate(time.Second))
	if l.Offered > 0 {
		fmt.Fprintf(&b, "  offered %.0f/s", l.Offered)
	}
	fmt.Fprintf(&b, "  achieved %.0f/s  in flight %d", snap.Rate, l.InFlight)
	for _, o := range results.Outcomes {
		if n := snap.Outcomes[o]; n > 0 {
			fmt.Fprintf(&b, "  %s %d", o, n)
		}
	}
	if snap.P99 > 0 {
		fmt.Fprintf(&b, "  p99 %s", round3(snap.P99))
	}
	return b.String()
}

func (s *statusLine) clear() {
	if s.drawn {
		fmt.Fprint(s.w, "\r\033[K")
	}
}

// round3 rounds a duration to about three significant digits.
func round3(d time.Duration) time.Duration {
	unit := time.Nanosecond
	for limit := time.Duration(1000); d >= limit && unit < time.Second; limit *= 10 {
		unit *= 10
	}
	return d.Round(unit)
}
