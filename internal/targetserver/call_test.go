package targetserver

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recorder stands in for a session: it records each progress notification
// with the (fake) time it was sent.
type recorder struct {
	mu    sync.Mutex
	start time.Time
	at    []time.Duration
	sent  []*mcp.ProgressNotificationParams
}

func newRecorder() *recorder { return &recorder{start: time.Now()} }

func (r *recorder) notify(_ context.Context, p *mcp.ProgressNotificationParams) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.at = append(r.at, time.Since(r.start))
	r.sent = append(r.sent, p)
	return nil
}

func (r *recorder) values() []float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var v []float64
	for _, p := range r.sent {
		v = append(v, p.Progress)
	}
	return v
}

// runCall runs one step call directly (no transport) and returns its error.
func runCall(t *testing.T, s *Server, ctx context.Context, rec *recorder, args stepArgs) error {
	t.Helper()
	var send notifier
	var token any
	if rec != nil {
		send, token = rec.notify, "tk"
	}
	_, err := s.newCall(ctx, token, send, args, false).run()
	return err
}

func newServer(t *testing.T, cfg Config) *Server {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// callTimingCase is one call of TestCallTiming: the knobs, the call, when
// it is cancelled, and what must happen.
type callTimingCase struct {
	name     string
	cfg      Config
	args     stepArgs
	cancelAt time.Duration // 0: never cancel
	wantEnd  time.Duration // when run returns
	wantSent int
	wantErr  bool
	want     Stats
}

// callTimingCases are the cases of TestCallTiming.
var callTimingCases = []callTimingCase{
	{
		name: "plain run", args: stepArgs{Steps: 5, StepMs: 100},
		wantEnd: 500 * time.Millisecond, wantSent: 5,
		want: Stats{Started: 1, Completed: 1, ProgressSent: 5},
	},
	{
		name: "cancel stops at once", args: stepArgs{Steps: 10, StepMs: 100},
		cancelAt: 250 * time.Millisecond, wantEnd: 250 * time.Millisecond, wantSent: 2, wantErr: true,
		want: Stats{Started: 1, Cancelled: 1, ProgressSent: 2},
	},
	{
		name: "stop delay", cfg: Config{StopDelay: 2 * time.Second}, args: stepArgs{Steps: 100, StepMs: 100},
		cancelAt: 250 * time.Millisecond, wantEnd: 2250 * time.Millisecond, wantSent: 22, wantErr: true,
		want: Stats{Started: 1, Cancelled: 1, ProgressSent: 22},
	},
	{
		name: "leak runs to the end", cfg: Config{LeakOnCancel: 1}, args: stepArgs{Steps: 10, StepMs: 100},
		cancelAt: 250 * time.Millisecond, wantEnd: time.Second, wantSent: 10,
		want: Stats{Started: 1, Completed: 1, Orphaned: 1, ProgressSent: 10},
	},
	{
		name: "leak wins over stop delay", cfg: Config{LeakOnCancel: 1, StopDelay: time.Hour},
		args: stepArgs{Steps: 4, StepMs: 100}, cancelAt: 50 * time.Millisecond, wantEnd: 400 * time.Millisecond,
		wantSent: 4, want: Stats{Started: 1, Completed: 1, Orphaned: 1, ProgressSent: 4},
	},
	{
		name: "flood 50 Hz on 100ms steps", cfg: Config{ProgressFloodHz: 50}, args: stepArgs{Steps: 10, StepMs: 100},
		// Ticks at 20ms, 40ms, ... 980ms; ticks at a step boundary race
		// with the step's own timer, so count from the total below.
		wantEnd: time.Second, wantSent: -1,
		want: Stats{Started: 1, Completed: 1, ProgressSent: -1},
	},
	{
		name: "stall after 3", cfg: Config{StallAfter: 3, ProgressFloodHz: 20}, args: stepArgs{Steps: 8, StepMs: 100},
		wantEnd: 800 * time.Millisecond, wantSent: -1,
		want: Stats{Started: 1, Completed: 1, ProgressSent: -1},
	},
	{
		name: "endless until cancelled", cfg: Config{Endless: true}, args: stepArgs{Steps: 3, StepMs: 100},
		cancelAt: 1050 * time.Millisecond, wantEnd: 1050 * time.Millisecond, wantSent: 10, wantErr: true,
		want: Stats{Started: 1, Cancelled: 1, ProgressSent: 10},
	},
}

// TestCallTiming checks, on a fake clock, when a call stops and how many
// notifications it sends, for the knobs that are about time.
func TestCallTiming(t *testing.T) {
	for _, tt := range callTimingCases {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newServer(t, tt.cfg)
				rec := newRecorder()
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if tt.cancelAt > 0 {
					time.AfterFunc(tt.cancelAt, cancel)
				}
				start := time.Now()
				err := runCall(t, s, ctx, rec, tt.args)
				if got := time.Since(start); got != tt.wantEnd {
					t.Errorf("run took %v, want %v", got, tt.wantEnd)
				}
				if (err != nil) != tt.wantErr {
					t.Errorf("run error = %v, want error %v", err, tt.wantErr)
				}
				v := rec.values()
				if violations(v) != 0 {
					t.Errorf("progress not strictly increasing: %v", v)
				}
				checkSent(t, tt, rec, v)
				got := s.Stats()
				if tt.want.ProgressSent < 0 {
					tt.want.ProgressSent = int64(len(v))
				}
				wantStats(t, got, tt.want)
			})
		})
	}
}

// checkSent checks the number of progress notifications v that rec
// recorded for tt: exactly, or by the flood and stall rules.
func checkSent(t *testing.T, tt callTimingCase, rec *recorder, v []float64) {
	switch {
	case tt.wantSent >= 0 && len(v) != tt.wantSent:
		t.Errorf("sent %d notifications, want %d: %v", len(v), tt.wantSent, v)
	case tt.cfg.ProgressFloodHz > 0 && tt.cfg.StallAfter == 0:
		// 10 steps plus one flood every 20ms except at step boundaries.
		if len(v) < 10+40 || len(v) > 10+50 {
			t.Errorf("flood sent %d notifications in 1s, want 50..60", len(v))
		}
	case tt.cfg.StallAfter > 0:
		// Nothing after the third step's notification at 300ms.
		for i, at := range rec.at {
			if at > 300*time.Millisecond {
				t.Errorf("notification %d (%v) at %v, after the stall", i, v[i], at)
			}
		}
		if len(v) == 0 || v[len(v)-1] != 3 {
			t.Errorf("last progress before the stall = %v, want 3", v)
		}
	}
}

// TestCallShutdown checks that Close stops even a call that ignores its
// cancel.
func TestCallShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, Config{LeakOnCancel: 1, Endless: true})
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		time.AfterFunc(time.Minute, func() { s.Close() })
		err := runCall(t, s, ctx, nil, stepArgs{Steps: 1, StepMs: 100})
		if !errors.Is(err, errShutdown) {
			t.Errorf("run error = %v, want %v", err, errShutdown)
		}
		wantStats(t, s.Stats(), Stats{Started: 1, Cancelled: 1, Orphaned: 1})
	})
}

// TestNonMonotonicSeeded checks that bad values are counted exactly and that
// the same seed gives the same draws.
func TestNonMonotonicSeeded(t *testing.T) {
	run := func(seed int64) ([]float64, Stats) {
		var v []float64
		var st Stats
		synctest.Test(t, func(t *testing.T) {
			s := newServer(t, Config{Seed: seed, NonMonotonic: 0.3})
			rec := newRecorder()
			if err := runCall(t, s, t.Context(), rec, stepArgs{Steps: 200, StepMs: 1}); err != nil {
				t.Fatal(err)
			}
			v, st = rec.values(), s.Stats()
		})
		return v, st
	}
	v1, st1 := run(42)
	v2, _ := run(42)
	if got := violations(v1); int64(got) != st1.NonMonotonic || got == 0 {
		t.Errorf("client counts %d violations, metric %d (want equal, above zero)", got, st1.NonMonotonic)
	}
	if st1.NonMonotonic < 30 || st1.NonMonotonic > 90 {
		t.Errorf("%d of 200 notifications bad at p=0.3: draws look wrong", st1.NonMonotonic)
	}
	if len(v1) != len(v2) {
		t.Fatalf("same seed, different lengths %d and %d", len(v1), len(v2))
	}
	for i := range v1 {
		if v1[i] != v2[i] {
			t.Fatalf("same seed, progress %d differs: %v vs %v", i, v1[i], v2[i])
		}
	}
}

func TestStepArgsValidate(t *testing.T) {
	tests := []struct {
		name    string
		args    stepArgs
		endless bool
		ok      bool
	}{
		{"defaults", stepArgs{DefaultSteps, DefaultStepMs}, false, true},
		{"zero steps", stepArgs{0, 10}, false, true},
		{"negative steps", stepArgs{-1, 10}, false, false},
		{"absurd steps", stepArgs{MaxSteps + 1, 10}, false, false},
		{"negative step_ms", stepArgs{1, -5}, false, false},
		{"absurd step_ms", stepArgs{1, MaxStepMs + 1}, false, false},
		{"endless needs a step length", stepArgs{1, 0}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.args.validate(tt.endless); (err == nil) != tt.ok {
				t.Errorf("validate() = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

// TestCancelWinsOverStepEnd checks that a cancel ready at the moment a step
// ends stops the call: no further progress goes out after it. select picks
// at random among ready cases, so each of many tries has both ready.
func TestCancelWinsOverStepEnd(t *testing.T) {
	s := newServer(t, Config{})
	ready := make(chan time.Time)
	close(ready)
	for i := range 200 {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		rec := newRecorder()
		c := s.newCall(ctx, "tk", rec.notify, stepArgs{Steps: 2, StepMs: 100}, false)
		if err := c.wait(ready); !errors.Is(err, context.Canceled) {
			t.Fatalf("try %d: wait with both the step end and the cancel ready = %v, want the cancel", i, err)
		}
		c.floodC = ready
		if err := c.wait(make(chan time.Time)); !errors.Is(err, context.Canceled) {
			t.Fatalf("try %d: wait with both a flood tick and the cancel ready = %v, want the cancel", i, err)
		}
		if v := rec.values(); len(v) != 0 {
			t.Fatalf("try %d: progress after the cancel: %v", i, v)
		}
	}
}
