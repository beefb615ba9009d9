package results

import "time"

// MaxGiveOrTake bounds GiveOrTake.
const MaxGiveOrTake = 50 * time.Millisecond

// GiveOrTake is how far past the work grace a message may come, by the
// clock, and still prove no work (issue 25): a tenth of the grace, at most
// MaxGiveOrTake. It is also what counts as a prompt answer to the ping sent
// at cancel + grace on stdio. A message read after that answer but within
// the give or take is a record's FencedUs, and the summary says what the
// give or take left unseen (cancellation.work_fences). The engine weighs
// messages by it, the verdict says it: one rule for both.
func GiveOrTake(workGrace time.Duration) time.Duration {
	return min(workGrace/10, MaxGiveOrTake)
}
