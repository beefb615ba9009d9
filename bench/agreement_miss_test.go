package bench

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/stepserver"
	"github.com/mcpchaos/mcpchaos/results"
)

// Why a run disagreed. The server's own log tells apart the misses that
// are the machine's (the server under test did not get the CPU to act on
// the cancel, or ran on by less than a process probe can measure) from
// those of mcpchaos's inference.
const (
	// missStarved: a server that stops inside a step of 25 ms once it
	// sees a cancel still finished a step past cut + grace: it had not
	// read the cancel by then.
	missStarved = "starved"
	// missMarginal: every call that ran on did so by less than
	// marginalRunOn past cut + grace: less work than two clock ticks of
	// CPU, under what /proc's CPU accounting resolves.
	missMarginal = "marginal"
	// missInference: a miss of the verdict itself.
	missInference = "inference"
)

// marginalRunOn is the run-on past cut + grace under which a miss is
// marginal: two clock ticks (a reading is off by up to one at each end).
const marginalRunOn = 20 * time.Millisecond

// missKind says why a run disagreed, from the server's log.
func missKind(c stepserver.Config, j stepserver.Judgement, grace time.Duration) string {
	switch {
	case j.Violation() && j.MaxAfter < grace+marginalRunOn:
		return missMarginal
	case j.Violation() && !c.Leak:
		return missStarved
	default:
		return missInference
	}
}

// slowestStep returns, over the calls of ids, the longest wall time
// between two lines of one call in the truth file that ended after its
// cut: how long a step took while it ran on (a step's own length on an
// idle machine; ten times that is a server given a tenth of a CPU).
func slowestStep(file string, recs []results.Record, ids []int64) time.Duration {
	cuts := map[string]time.Time{}
	for _, r := range recs {
		for _, id := range ids {
			if r.ID == id {
				cuts["p"+strconv.FormatInt(id, 10)] = r.Scheduled.Add(time.Duration(max(r.CancelUs, r.CancelSentUs)) * time.Microsecond)
			}
		}
	}
	f, err := os.Open(file)
	if err != nil {
		return 0
	}
	defer f.Close()
	prev := map[string]time.Time{}
	slowest := time.Duration(0)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 4 {
			continue
		}
		ns, err := strconv.ParseInt(fields[0], 10, 64)
		cut, ok := cuts[fields[1]]
		if err != nil || !ok {
			continue
		}
		at := time.Unix(0, ns)
		if p := prev[fields[1]]; !p.IsZero() && at.After(cut) {
			slowest = max(slowest, at.Sub(p))
		}
		prev[fields[1]] = at
	}
	return slowest
}

// missLine describes a disagreement for stderr.
func missLine(c stepserver.Config, stepMs, seed int, j stepserver.Judgement, o agreementOutcome, slowest time.Duration) string {
	return fmt.Sprintf("disagreement (%s): %s, %d ms steps, seed %d: truth %d of %d cut calls ran on (up to %v after the cut, slowest step after a cut %v); verdict %s (%s)",
		o.miss, c, stepMs, seed, len(j.Leaked), j.Cut, j.MaxAfter.Round(time.Millisecond), slowest.Round(time.Millisecond), o.verdict, o.evidence)
}
