package targetserver

import (
	"math"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr string // substring; "" = valid
	}{
		{"zero value", Config{}, ""},
		{"every knob in range", Config{
			LeakOnCancel: 1, NonMonotonic: 0.5, ProgressFloodHz: 50, StallAfter: 3,
			StopDelay: time.Second, ExitDelay: time.Second, RateLimit: Rate{Freq: 10, Per: time.Second},
			Era: Era2025,
		}, ""},
		{"leak above 1", Config{LeakOnCancel: 1.5}, `leak_on_cancel "1.5"`},
		{"leak negative", Config{LeakOnCancel: -0.1}, `leak_on_cancel "-0.1"`},
		{"leak NaN", Config{LeakOnCancel: math.NaN()}, `leak_on_cancel "NaN"`},
		{"non-monotonic above 1", Config{NonMonotonic: 2}, `non_monotonic "2"`},
		{"flood negative", Config{ProgressFloodHz: -1}, `progress_flood_hz "-1"`},
		{"flood absurd", Config{ProgressFloodHz: 1e6}, `progress_flood_hz "1e+06"`},
		{"stop delay negative", Config{StopDelay: -time.Second}, `stop_delay "-1s"`},
		{"exit delay absurd", Config{ExitDelay: 100 * time.Hour}, `exit_delay "100h"`},
		{"stall negative", Config{StallAfter: -2}, `stall_after "-2"`},
		{"rate without duration", Config{RateLimit: Rate{Freq: 5}}, `rate_limit "5/0s"`},
		{"unknown era", Config{Era: "2024"}, `era "2024"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate() = %v, want an error containing %s", err, tt.wantErr)
			}
			if _, err := New(tt.cfg); err == nil {
				t.Fatalf("New accepted an invalid config")
			}
		})
	}
}

// TestBucket checks the limit — at most N calls in any period, each slot
// coming back one period after its call — and the Retry-After rounding,
// on a fake clock.
func TestBucket(t *testing.T) {
	tests := []struct {
		name      string
		rate      Rate
		retryWant int // Retry-After right after N calls at once
	}{
		{"100 per second", Rate{Freq: 100, Per: time.Second}, 1},
		{"10 per 100ms", Rate{Freq: 10, Per: 100 * time.Millisecond}, 1},
		{"1 per 10s", Rate{Freq: 1, Per: 10 * time.Second}, 10},
		{"3 per 2s", Rate{Freq: 3, Per: 2 * time.Second}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := newBucket(tt.rate)
				for i := range tt.rate.Freq {
					if ok, _ := b.take(); !ok {
						t.Fatalf("take %d of %d refused", i+1, tt.rate.Freq)
					}
				}
				ok, wait := b.take()
				if ok {
					t.Fatalf("take %d in one period allowed", tt.rate.Freq+1)
				}
				if wait != tt.rate.Per {
					t.Errorf("wait %v, want the whole period %v (the first slot comes back then)", wait, tt.rate.Per)
				}
				if got := retryAfterSeconds(wait); got != tt.retryWant {
					t.Errorf("Retry-After = %d (wait %v), want %d", got, wait, tt.retryWant)
				}
				time.Sleep(wait)
				for i := range tt.rate.Freq {
					if ok, _ := b.take(); !ok {
						t.Fatalf("after a period, take %d of %d refused", i+1, tt.rate.Freq)
					}
				}
			})
		})
	}
	// Calls spread evenly below the limit are never refused, however
	// unevenly they bunch within a period.
	synctest.Test(t, func(t *testing.T) {
		b := newBucket(Rate{Freq: 100, Per: time.Second})
		for round := range 5 {
			for i := range 90 {
				if ok, _ := b.take(); !ok {
					t.Fatalf("round %d: call %d of 90 in a second refused", round, i+1)
				}
			}
			time.Sleep(time.Second)
		}
	})
	if newBucket(Rate{}) != nil {
		t.Errorf("zero rate made a bucket")
	}
}
