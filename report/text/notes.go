package text

import (
	"fmt"
	"strings"

	"github.com/mcpchaos/mcpchaos/results"
)

// A count that looks alarming next to a pass carries its meaning as a
// numbered footnote, printed under its block:
//
//	Calls         total 480   ok 391   cancelled 68 [1]
//	              [1] cancelled: we cancelled the call (a cancel fault or the end of the run)

// outcomeMeanings says what each outcome other than ok means.
var outcomeMeanings = map[string]string{
	results.ToolError:      "the tool answered with isError: true",
	results.RPCError:       "the server answered with a JSON-RPC error",
	results.Throttled:      "the server pushed back (HTTP 429/503, a throttling code or message, load shedding)",
	results.HTTPError:      "another HTTP status outside 2xx",
	results.TimeoutIdle:    "nothing arrived for the idle timeout; we cancelled",
	results.TimeoutCap:     "the maximum timeout was reached; we cancelled",
	results.Cancelled:      "we cancelled the call: a cancel fault, or the end of the run",
	results.Disconnected:   "a disconnect fault cut the call's connection",
	results.TransportError: "the connection failed without an answer (on stdio: the server process exited; a new one is started)",
	results.ProtocolError:  "the answer broke the protocol (see Errors)",
	results.Dropped:        "never sent: max_in_flight calls were already running (without a Client limit below, most often waiting for the server: it did not keep up with the rate)",
	results.ClientLimit:    "never sent: our own process ran out of file descriptors, ports or memory (see Client limit); not the server's doing",
}

// Meanings of the other counts that get a footnote when they are not 0.
const (
	noteLateResponses = "late responses: answers that arrived after our cancel; the spec allows the race, so they are allowed when within the grace"
	noteLateProgress  = "late progress: progress that arrived after our cancel; allowed when within the grace"
	noteLeftoverCalls = "leftover calls: calls the server was seen working on (on the wire) after cancel + grace"
	noteLateQueued    = "late but queued: messages later than cancel + grace read before the answer to a ping sent then (stdio): the server may have written them before it read that ping, no evidence of work"
	noteCancelAnswers = "answers to the cancel: answers after our cancel that say the call was cancelled or stopped; not results of finished work"
	noteSkipped       = "skipped: drawn for a call that ended before the fault's moment; nothing was done"
	noteProbeErrors   = "probe errors: those probes could not be read; what they would have measured is missing, not 0"
	noteConnection    = "connection: messages that belonged to no call in flight (stale: for calls that had already ended); only those listed under violations are violations"
	noteCapProgress   = "cap with progress: the cap fired while progress still arrived; a client that resets its timeout on progress would have waited for ever"
)

// note queues a footnote for the current block and returns its marker,
// " [n]". The same text in one block gets one number.
func (t *textOut) note(text string) string {
	for i, n := range t.notes {
		if n == text {
			return fmt.Sprintf(" [%d]", t.noteBase+i+1)
		}
	}
	t.notes = append(t.notes, text)
	return fmt.Sprintf(" [%d]", t.noteBase+len(t.notes))
}

// flushNotes writes the current block's footnotes under it, wrapped and
// indented to the label column.
func (t *textOut) flushNotes() {
	for i, n := range t.notes {
		marker := fmt.Sprintf("[%d] ", t.noteBase+i+1)
		for j, l := range wrap(n, lineWidth-labelWidth-len(marker)) {
			if j == 0 {
				t.line("", marker+l)
			} else {
				t.line("", strings.Repeat(" ", len(marker))+l)
			}
		}
	}
	t.noteBase += len(t.notes)
	t.notes = t.notes[:0]
}
