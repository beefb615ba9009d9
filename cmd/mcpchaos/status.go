package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/engine"
	"github.com/mcpchaos/mcpchaos/internal/termsafe"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// statusLine draws a one-line live status on a terminal, about once a
// second: the phase, elapsed/total, offered and achieved rate, in flight,
// outcomes and the p99 of call latency so far. After the load the phase
// says what the run waits for, so it does not look stuck. It draws nothing when stderr is not
// a terminal or -q was given.
type statusLine struct {
	w     io.Writer
	on    bool
	agg   *report.Aggregator
	drawn bool
}

// The line's text is mcpchaos's own (counts, durations, outcome names),
// so it is drawn beneath the terminal-safe writer of stderr, which would
// escape its carriage return and erase sequence.
func newStatusLine(w io.Writer, quiet bool, agg *report.Aggregator) *statusLine {
	if t, ok := w.(*termsafe.Writer); ok {
		w = t.Unwrap()
	}
	return &statusLine{w: w, on: !quiet && isTerminal(w), agg: agg}
}

// isTerminal reports whether w, or a writer it wraps (a termsafe.Writer,
// a redact.Writer), is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	for {
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
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
	flushOutput(s.w) // no line end: a redacting writer would hold it
	s.drawn = true
}

// phaseText says what each phase after the load waits for.
var phaseText = map[string]string{
	engine.PhaseDrain:  "drain: waiting for calls in flight",
	engine.PhaseProbes: "probes: grace, quiet window, probes back to baseline",
	engine.PhaseLate:   "late: waiting for late answers",
	phaseWriting:       "writing: results and summary",
}

// phaseWriting is the CLI's own last phase, after the engine returned.
const phaseWriting = "writing"

// writing draws the last phase while the outputs are written.
func (s *statusLine) writing() {
	if !s.on {
		return
	}
	fmt.Fprintf(s.w, "\r\033[K%s", phaseText[phaseWriting])
	flushOutput(s.w)
	s.drawn = true
}

// statusText formats one status line.
func statusText(l engine.Live, snap report.Live) string {
	var b strings.Builder
	if t, ok := phaseText[l.Phase]; ok {
		fmt.Fprintf(&b, "%s  ", t)
	} else if l.Phase != "" && l.Phase != engine.PhaseLoad {
		fmt.Fprintf(&b, "%s  ", l.Phase) // a phase of the limits search
	}
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
		flushOutput(s.w)
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
