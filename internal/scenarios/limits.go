package scenarios

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// The bounds on what a scenario file may hold and ask for. A value beyond
// one is an error of the file (so validate and run refuse it alike), and
// the message states the bound. docs/limits.md lists them all; a test
// compares it with Limits.
const (
	// MaxFileSize bounds a scenario file; real ones are a few kilobytes.
	// Load reads no more than one byte past it, whatever the file is.
	MaxFileSize = 1 << 20
	// MaxTokens bounds the YAML tokens of a file, counted from its bytes
	// before parsing (see countTokens): the YAML library keeps about 250
	// bytes per token while lexing and as much again per node.
	MaxTokens = 100_000
	// MaxNesting bounds how deep collections nest, anywhere in the file,
	// checked between lexing and parsing. Free-form values (arguments)
	// have their own, lower bound, maxDepth.
	MaxNesting = 100
	// maxPathBytes bounds the key paths the YAML parser keeps (each node
	// holds the keys above it): see checkTokens.
	maxPathBytes = 16 << 20
	// MaxRate bounds every rate of a scenario, in calls (or faults) per
	// second: the most the engine's pacer keeps up with on two cores (at
	// 1,000,000/s it fell five times behind, and a 2 s load took 10 s).
	MaxRate = 100_000
	// MaxConcurrency bounds load.concurrency (closed-model workers).
	MaxConcurrency = 100_000
	// MaxInFlight bounds load.max_in_flight.
	MaxInFlight = 100_000
	// MaxDuration bounds every duration of a scenario, and the load's
	// length (its stages and duration together).
	MaxDuration = 7 * 24 * time.Hour
	// MaxWeight bounds a call's weight, so that the weights' sum stays
	// finite and exact enough to draw from.
	MaxWeight = 1_000_000
	// MaxCount bounds the counts of a scenario that have no tighter bound
	// of their own (a fault's after_progress, a process id): they must
	// fit in 32 bits.
	MaxCount = math.MaxInt32
	// MaxRetries bounds throttling.retry.max.
	MaxRetries = 100
)

// Limit is one bound, for the documentation.
type Limit struct {
	Name  string // what is bounded, as docs/limits.md names it
	Value string // the bound, as the error message writes it
}

// Limits lists the bounds this package enforces.
var Limits = []Limit{
	{"file size", strconv.Itoa(MaxFileSize) + " bytes"},
	{"YAML tokens", strconv.Itoa(MaxTokens)},
	{"nesting", strconv.Itoa(MaxNesting) + " levels"},
	{"key paths", ByteSize(maxPathBytes).String()},
	{"free-form nesting", strconv.Itoa(maxDepth) + " levels"},
	{"free-form nodes", strconv.Itoa(maxNodes) + " nodes"},
	{"rate", FormatRate(MaxRate)},
	{"concurrency", strconv.Itoa(MaxConcurrency)},
	{"max_in_flight", strconv.Itoa(MaxInFlight)},
	{"duration", Duration(MaxDuration).String()},
	{"load length", Duration(MaxDuration).String()},
	{"weight", strconv.Itoa(MaxWeight)},
	{"processes", strconv.Itoa(maxProcesses)},
	{"retries", strconv.Itoa(MaxRetries)},
	{"counts", strconv.Itoa(MaxCount)},
}

// FormatRate writes calls per second as a rate: "100000/1s".
func FormatRate(perSecond float64) string {
	return strconv.FormatFloat(perSecond, 'f', -1, 64) + "/1s"
}

// CheckRate reports a rate above MaxRate.
func CheckRate(r Rate) error {
	if r.IsZero() {
		return nil
	}
	if ps := r.PerSecond(); ps > MaxRate || math.IsInf(ps, 0) || math.IsNaN(ps) {
		return fmt.Errorf("rate %q is %s/s, above the most mcpchaos can pace: %s", r.String(), strconv.FormatFloat(ps, 'g', 4, 64), FormatRate(MaxRate))
	}
	return nil
}

// CheckDuration reports a duration above MaxDuration.
func CheckDuration(d time.Duration) error {
	if d > MaxDuration {
		return fmt.Errorf("duration %s is longer than the most a scenario may ask for: %s", Duration(d), Duration(MaxDuration))
	}
	return nil
}

// checkLength reports a load whose stages and duration together are
// longer than MaxDuration (each is at most MaxDuration, so their sum
// cannot overflow before it is compared).
func (l Workload) checkLength() error {
	total := l.Duration.Std()
	for _, s := range l.Stages {
		total += s.Over.Std()
		if total > MaxDuration || total < 0 {
			break
		}
	}
	if total > MaxDuration || total < 0 {
		return fmt.Errorf("the load lasts longer than %s (its stages and duration together)", Duration(MaxDuration))
	}
	return nil
}
