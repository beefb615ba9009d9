package stepserver

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// LastSteps reads a truth file: for each progress token, when the server
// finished its last step. A line torn by a write in progress is skipped.
func LastSteps(file string) (map[string]time.Time, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("read truth: %w", err)
	}
	defer f.Close()
	out := map[string]time.Time{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 4 || fields[2] != "step" {
			continue
		}
		ns, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			continue
		}
		if at := time.Unix(0, ns); at.After(out[fields[1]]) {
			out[fields[1]] = at
		}
	}
	return out, sc.Err()
}

// Judgement is what the server's own log says of the calls mcpchaos cut.
type Judgement struct {
	Cut    int     // calls cut (cancelled or disconnected) before their answer
	Leaked []int64 // of those, the ids whose server finished a step later than cut + grace
	// MaxAfter is the longest time from a cut to a step the server
	// finished after it, over the leaked calls.
	MaxAfter time.Duration
	// Legacy are the ids of calls of a 2025 era that ran on past cut +
	// grace after a disconnect (their connection's, or the stdin's close
	// that a cancel found): in the 2025 revisions a disconnect is not a
	// cancel, so they are not Leaked. A correct tool says "expected
	// legacy behaviour" of them, or "pass" when it saw no work.
	Legacy []int64
}

// Violation reports whether the server ran on after a cut: the verdict a
// correct tool gives.
func (j Judgement) Violation() bool { return len(j.Leaked) > 0 }

// Marginal reports whether every call that ran on did so by less than
// margin past cut + grace: less work than a process probe can tell from
// its noise, and, on stdio, read before a fence sent at cut + grace could
// be answered. Tests take either verdict then.
func (j Judgement) Marginal(grace, margin time.Duration) bool {
	return j.Violation() && j.MaxAfter < grace+margin
}

// Judge holds the calls of a results file against the server's log: a
// call whose progress token is "p" + its id was cut when its cancel was
// out (cancel_sent_us; the decision, cancel_us, in older files); it leaked
// when the server finished a step later than the cut plus grace. With
// legacy (a 2025 era), a disconnected call that did so is Legacy instead.
func Judge(recs []results.Record, last map[string]time.Time, grace time.Duration, legacy bool) Judgement {
	var j Judgement
	for _, r := range recs {
		if r.CancelUs <= 0 || r.ResponseUs > 0 && r.ResponseUs < r.CancelUs {
			continue // not cut, or answered before the cut
		}
		j.Cut++
		cutUs := r.CancelUs
		if r.CancelSentUs > cutUs {
			cutUs = r.CancelSentUs // the cancel was out then: the server could not stop sooner
		}
		cut := r.Scheduled.Add(time.Duration(cutUs) * time.Microsecond)
		end, ok := last["p"+strconv.FormatInt(r.ID, 10)]
		if !ok || !end.After(cut.Add(grace)) {
			continue
		}
		if legacy && r.Outcome == results.Disconnected {
			j.Legacy = append(j.Legacy, r.ID)
			continue
		}
		j.Leaked = append(j.Leaked, r.ID)
		j.MaxAfter = max(j.MaxAfter, end.Sub(cut))
	}
	return j
}
