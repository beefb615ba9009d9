package scenarios

import (
	"fmt"
	"strings"
	"time"
)

// Workload is the load section: the offered load. It is an open model (a
// constant Rate, or Stages that ramp from it) or a closed model
// (Concurrency workers calling back to back). (The type is not named Load:
// that is the function that reads files.)
//
// With stages, the rate starts at Rate (or at 0 when Rate is unset), each
// stage ramps linearly to its To over its Over, and after the last stage
// the last To is held for Duration. Without stages, Rate or Concurrency is
// held for Duration.
type Workload struct {
	Rate         Rate
	Stages       []Stage
	Concurrency  int      // closed model: this many workers; excludes Rate and Stages
	Duration     Duration // required unless Stages are given
	MaxInFlight  int      // default 10000; ticks that find no room are dropped
	GracefulStop Duration // in-flight calls get this long after the load ends; default 30s
	IDs          IDs      // how request ids are numbered (ids.go)
}

// Stage is one linear ramp of the open model.
type Stage struct {
	To   Rate
	Over Duration // > 0
	Pos  Pos
}

// Closed reports whether l is a closed model (Concurrency workers).
func (l Workload) Closed() bool { return l.Concurrency > 0 }

// TotalDuration is how long load is offered: the sum of the stages plus
// Duration. It excludes GracefulStop.
func (l Workload) TotalDuration() time.Duration {
	total := l.Duration.Std()
	for _, s := range l.Stages {
		total += s.Over.Std()
	}
	return total
}

// RateAt returns the offered rate in calls per second at offset t from the
// start of the load, for the open model: the ramp value inside a stage,
// the last stage's rate after the stages, and 0 outside [0,
// TotalDuration). It returns 0 for the closed model.
func (l Workload) RateAt(t time.Duration) float64 {
	if l.Closed() || t < 0 || t >= l.TotalDuration() {
		return 0
	}
	from := l.Rate.PerSecond()
	for _, s := range l.Stages {
		over := s.Over.Std()
		to := s.To.PerSecond()
		if t < over {
			return from + (to-from)*float64(t)/float64(over)
		}
		t -= over
		from = to
	}
	return from
}

// String describes the load in a few words: "50/1s for 30s",
// "20 workers for 30s", "10/1s, to 300/1s over 1m, to 50/1s over 30s, then 30s".
func (l Workload) String() string {
	if l.Closed() {
		return fmt.Sprintf("%d workers for %s", l.Concurrency, l.Duration)
	}
	if len(l.Stages) == 0 {
		return fmt.Sprintf("%s for %s", l.Rate, l.Duration)
	}
	var b strings.Builder
	if l.Rate.IsZero() {
		b.WriteString("0/1s")
	} else {
		b.WriteString(l.Rate.String())
	}
	for _, s := range l.Stages {
		fmt.Fprintf(&b, ", to %s over %s", s.To, s.Over)
	}
	if l.Duration > 0 {
		fmt.Fprintf(&b, ", then %s", l.Duration)
	}
	return b.String()
}
