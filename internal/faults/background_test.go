package faults_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// backgroundScenario runs notify_flood at 50/s and cancel_unknown at 40/s
// beside 20 calls a second for 2 s.
const backgroundScenario = `
name: background
seed: 37
target: {builtin: {transport: %s}}
load: {rate: 20/1s, duration: 2s}
timeouts: {idle: 5s, max: 10s}
calls:
  - {tool: slow_task, arguments: {steps: 3, step_ms: 30}, progress: true}
  - {tool: echo, arguments: {text: hi}}
faults:
  - {kind: notify_flood, rate: 50/1s}
  - {kind: cancel_unknown, rate: 40/1s}
orphans: {grace: 300ms}
`

// runBackground runs backgroundScenario against the built-in target over
// transport.
func runBackground(t *testing.T, transport string) *outcome {
	t.Helper()
	return runYAML(t, fmt.Sprintf(backgroundScenario, transport), opts{})
}

// TestBackground: notify_flood and cancel_unknown send at their rate for
// the whole load (injected at most rate × duration); a correct server ignores the
// stray notifications, stays up and keeps answering the real calls, with
// no protocol violation.
func TestBackground(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			o := runBackground(t, transport)
			s := o.Sum
			for _, bg := range []struct {
				kind string
				want int // rate × duration
			}{{"notify_flood", 100}, {"cancel_unknown", 80}} {
				fs := s.Faults[bg.kind]
				// At most rate × duration (and a tick): how close to it a
				// busy machine gets is the timing tier's
				// (TestTimingBackgroundRate).
				if fs.Injected == 0 || fs.Injected > bg.want*11/10 {
					t.Errorf("faults.%s.injected = %d, want some and at most about %d (rate × duration)", bg.kind, fs.Injected, bg.want)
				}
				t.Logf("faults.%s: injected %d, refused %d", bg.kind, fs.Injected, fs.Refused)
				if transport == "stdio" && fs.Refused != 0 {
					// On stdio a notification is a line written: it can only
					// fail when the server is gone.
					t.Errorf("faults.%s.refused = %d, want 0 on stdio", bg.kind, fs.Refused)
				}
			}
			if s.Calls.OK != s.Calls.Total || s.Calls.Total != 40 {
				t.Errorf("%d ok of %d calls, want all 40 ok beside the flood", s.Calls.OK, s.Calls.Total)
			}
			if v := s.Protocol.Violations; v.Total != 0 {
				t.Errorf("protocol.violations = %+v, want none", v)
			}
			if v := s.Progress.Violations; v.Total != 0 {
				t.Errorf("progress.violations = %+v, want none", v)
			}
			if c := s.Protocol.Connection; c.UnknownResponses != 0 {
				t.Errorf("%d responses to no request: the server answered a notification", c.UnknownResponses)
			}
			// The stray cancels named no live call: nothing was cancelled.
			if v := o.verdict(report.AreaCancellation); v.Status != report.StatusNotExercised {
				t.Errorf("cancellation verdict %q (%s), want not exercised", v.Status, v.Evidence)
			}
			for _, r := range o.Recs {
				if r.Outcome != results.OK {
					t.Errorf("seq %d: outcome %q (%s)", r.Seq, r.Outcome, r.Error)
				}
			}
			if t.Failed() {
				o.dump(t)
			}
		})
	}
}

// fakeNotifier records the notifications a background fault sends.
type fakeNotifier struct {
	mu     sync.Mutex
	sent   []string
	failOn string // a method that fails
}

func (n *fakeNotifier) Notify(_ context.Context, method string, params []byte) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.sent = append(n.sent, method+" "+string(params))
	if method == n.failOn {
		return errors.New("refused")
	}
	return nil
}

type fixedIDs int64

func (f fixedIDs) Finished(*rand.Rand) int64 { return int64(f) }

// TestBackgroundSend: what a background fault sends, message by message
// (the engine paces it at its rate, like the load, and counts; TestBackground
// checks the counts), and which messages failed.
func TestBackgroundSend(t *testing.T) {
	t.Parallel()
	send := func(yaml string, n *fakeNotifier, ids faults.IDs) (sent, failed int) {
		f := newFault(t, yaml)
		b, ok := f.(faults.Background)
		if !ok {
			t.Fatalf("%s is a %T, not a Background", yaml, f)
		}
		if r := b.Rate(); r.Freq != 100 || r.Per != time.Second {
			t.Errorf("%s: rate %v", yaml, r)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for i := uint64(0); i < 50; i++ {
			sent++
			if b.Send(context.Background(), i, n, ids, rng) != nil {
				failed++
			}
		}
		return sent, failed
	}

	t.Run("notify_flood", func(t *testing.T) {
		t.Parallel()
		n := &fakeNotifier{failOn: "notifications/cancelled"}
		sent, failed := send("{kind: notify_flood, rate: 100/s}", n, fixedIDs(0))
		if sent != len(n.sent) {
			t.Errorf("sent %d, the notifier saw %d", sent, len(n.sent))
		}
		// Progress for tokens never issued and cancels for ids never sent,
		// alternately; the cancels failed.
		for i, s := range n.sent {
			want := "notifications/progress {\"progressToken\":\"mcpchaos-flood-"
			if i%2 == 1 {
				want = "notifications/cancelled {\"requestId\":"
			}
			if !strings.HasPrefix(s, want) {
				t.Errorf("notification %d is %q, want %q…", i, s, want)
			}
		}
		if failed != sent/2 {
			t.Errorf("failed %d of %d, want the %d cancels", failed, sent, sent/2)
		}
	})
	t.Run("cancel_unknown", func(t *testing.T) {
		t.Parallel()
		n := &fakeNotifier{}
		sent, failed := send("{kind: cancel_unknown, rate: 100/s}", n, fixedIDs(7))
		if failed != 0 {
			t.Errorf("sent %d, failed %d; want none failed", sent, failed)
		}
		finished := 0
		for _, s := range n.sent {
			if !strings.HasPrefix(s, "notifications/cancelled {\"requestId\":") {
				t.Errorf("sent %q", s)
			}
			if strings.Contains(s, "\"requestId\":7,") {
				finished++
			}
		}
		// Odd ones name a finished call (here always 7), even ones an id
		// never handed out.
		if finished != sent/2 {
			t.Errorf("%d of %d cancels named the finished call, want %d", finished, sent, sent/2)
		}
	})
}
