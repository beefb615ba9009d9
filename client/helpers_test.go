package client

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// recorder is an Observer that keeps copies of every event.
type recorder struct {
	mu     sync.Mutex
	evs    []Event
	notify chan struct{}
	// active counts OnEvent calls in progress; overlap records whether two
	// ever ran at once (the Observer contract is one goroutine at a time).
	active  atomic.Int32
	overlap atomic.Bool
}

func newRecorder() *recorder { return &recorder{notify: make(chan struct{}, 1)} }

func (r *recorder) OnEvent(ev Event) {
	if r.active.Add(1) > 1 {
		r.overlap.Store(true)
	}
	defer r.active.Add(-1)
	ev.Message = clone(ev.Message)
	ev.Raw = clone(ev.Raw)
	ev.Result.Text = clone(ev.Result.Text)
	r.mu.Lock()
	r.evs = append(r.evs, ev)
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

func (r *recorder) events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.evs)
}

// waitFor waits until pred holds for the events so far and returns them;
// it fails the test after testutil.WaitLong.
func (r *recorder) waitFor(t testing.TB, what string, pred func([]Event) bool) []Event {
	t.Helper()
	deadline := time.NewTimer(testutil.WaitLong)
	defer deadline.Stop()
	for {
		evs := r.events()
		if pred(evs) {
			return evs
		}
		select {
		case <-r.notify:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s; events: %s", what, describe(evs))
			return nil
		}
	}
}

// waitEnd waits for EvEnd and returns all events.
func (r *recorder) waitEnd(t testing.TB) []Event {
	t.Helper()
	return r.waitFor(t, "EvEnd", func(evs []Event) bool { return count(evs, EvEnd) > 0 })
}

func count(evs []Event, k EventKind) int {
	n := 0
	for _, ev := range evs {
		if ev.Kind == k {
			n++
		}
	}
	return n
}

func ofKind(evs []Event, k EventKind) []Event {
	var out []Event
	for _, ev := range evs {
		if ev.Kind == k {
			out = append(out, ev)
		}
	}
	return out
}

func violations(evs []Event) []Violation {
	var out []Violation
	for _, ev := range evs {
		if ev.Kind == EvViolation {
			out = append(out, ev.Violation)
		}
	}
	return out
}

func lastEnd(t testing.TB, evs []Event) Event {
	t.Helper()
	ends := ofKind(evs, EvEnd)
	if len(ends) == 0 {
		t.Fatalf("no EvEnd in %s", describe(evs))
	}
	return ends[len(ends)-1]
}

func describe(evs []Event) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, ev := range evs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(ev.Kind.String())
		switch ev.Kind {
		case EvHeaders:
			b.WriteString("(" + itoa(int64(ev.Status)) + " " + ev.ContentType + ")")
		case EvProgress:
			b.WriteString("(" + itoa(int64(ev.Progress)) + ")")
		case EvRPCError:
			b.WriteString("(" + itoa(ev.Code) + " " + string(ev.Message) + ")")
		case EvViolation:
			b.WriteString("(" + ev.Violation.String() + ": " + ev.Detail + ")")
		case EvEnd:
			if ev.Err != nil {
				b.WriteString("(" + ev.Err.Error() + ")")
			}
		}
		if ev.Late {
			b.WriteString("[late]")
		}
		if ev.AfterFinal {
			b.WriteString("[after-final]")
		}
	}
	b.WriteByte(']')
	return b.String()
}

func itoa(n int64) string {
	return string(appendInt(nil, n))
}

func appendInt(b []byte, n int64) []byte {
	if n < 0 {
		b = append(b, '-')
		n = -n
	}
	var d [20]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return append(b, d[i:]...)
}

// checkProgressRun checks the shape of a completed call with progress: at
// least min EvProgress, strictly increasing, then EvResult, then EvEnd with
// no error; every event stamped with a monotonic time, in order.
func checkProgressRun(t *testing.T, evs []Event, min int) {
	t.Helper()
	var prog []float64
	seenResult := false
	for i, ev := range evs {
		if !strings.Contains(ev.At.String(), "m=") {
			t.Errorf("event %d (%s) has no monotonic clock reading: %v", i, ev.Kind, ev.At)
		}
		if i > 0 && ev.At.Before(evs[i-1].At) {
			t.Errorf("event %d (%s) at %v is before event %d at %v", i, ev.Kind, ev.At, i-1, evs[i-1].At)
		}
		if ev.Late || ev.AfterFinal && ev.Kind != EvEnd {
			t.Errorf("event %d (%s) marked late=%v afterFinal=%v on a clean call", i, ev.Kind, ev.Late, ev.AfterFinal)
		}
		switch ev.Kind {
		case EvProgress:
			if seenResult {
				t.Errorf("progress %v after the result", ev.Progress)
			}
			prog = append(prog, ev.Progress)
		case EvResult:
			seenResult = true
		case EvViolation, EvRPCError:
			t.Errorf("unexpected %s: %s", ev.Kind, describe([]Event{ev}))
		}
	}
	if len(prog) < min {
		t.Errorf("got %d progress events, want at least %d: %s", len(prog), min, describe(evs))
	}
	for i := 1; i < len(prog); i++ {
		if prog[i] <= prog[i-1] {
			t.Errorf("progress not strictly increasing: %v", prog)
			break
		}
	}
	n := len(evs)
	if n < 2 || evs[n-2].Kind != EvResult || evs[n-1].Kind != EvEnd {
		t.Fatalf("want ... EvResult, EvEnd at the end, got %s", describe(evs))
	}
	if err := evs[n-1].Err; err != nil {
		t.Errorf("EvEnd error = %v, want nil", err)
	}
}

// holds checks that cond stays true over d, sampled every few milliseconds.
func holds(t testing.TB, d time.Duration, cond func() bool) bool {
	t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if !cond() {
			return false
		}
		select {
		case <-timer.C:
			return cond()
		case <-tick.C:
		}
	}
}

// waitCall runs call.Wait, failing the test instead of hanging when the
// call never ends.
func waitCall(t testing.TB, call *Call) {
	t.Helper()
	done := make(chan struct{})
	go func() { call.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(testutil.WaitLong):
		t.Fatalf("call %d did not end", call.ID())
	}
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testutil.WaitLong)
	t.Cleanup(cancel)
	return ctx
}

func closeClient(t testing.TB, c *Client) {
	t.Helper()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testutil.WaitLong)
		defer cancel()
		if err := c.Close(ctx); err != nil && !errors.Is(err, context.Canceled) {
			t.Logf("close: %v", err)
		}
	})
}
