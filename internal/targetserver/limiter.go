package targetserver

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"
)

// limiter decides whether a tools/call may run now: the shapes of the
// rate_limit_kind knob. take reports, for a refused call, how long until
// one would be accepted.
type limiter interface {
	take() (ok bool, wait time.Duration)
}

// newLimiter returns the limiter of cfg's rate_limit and rate_limit_kind,
// nil when there is no rate limit.
func newLimiter(cfg Config) limiter {
	r := cfg.RateLimit
	if r.IsZero() {
		return nil
	}
	switch cfg.Enum("rate_limit_kind") {
	case knobs.LimitTokenBucket:
		size := cfg.RateLimitBurst
		if size <= 0 {
			size = r.Freq
		}
		return &tokenBucket{every: r.Per / time.Duration(r.Freq), size: float64(size), tokens: float64(size)}
	case knobs.LimitFixedWindow:
		return &fixedWindow{per: r.Per, n: r.Freq, start: time.Now()}
	}
	return newBucket(r)
}

// tokenBucket is the classic token bucket: it holds at most size tokens,
// starts full, and gains one every `every`, continuously. A call takes a
// token or is refused. After idle it accepts size calls at once, then one
// per `every`.
type tokenBucket struct {
	every  time.Duration
	size   float64
	mu     sync.Mutex
	tokens float64
	last   time.Time // when tokens was last brought up to date
}

func (b *tokenBucket) take() (bool, time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	if !b.last.IsZero() {
		b.tokens = math.Min(b.size, b.tokens+float64(now.Sub(b.last))/float64(b.every))
	}
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) * float64(b.every))
}

// fixedWindow accepts at most n calls in each window of per, the windows
// counted from start (the server's start): a window's n calls may all come
// at its end and the next window's n right after, so up to 2n pass in a
// short time around a boundary.
type fixedWindow struct {
	per   time.Duration
	n     int
	start time.Time
	mu    sync.Mutex
	index int64 // the window the count is of
	count int
}

func (w *fixedWindow) take() (bool, time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	since := time.Since(w.start)
	i := int64(since / w.per)
	if i != w.index {
		w.index, w.count = i, 0
	}
	if w.count < w.n {
		w.count++
		return true, 0
	}
	return false, time.Duration(i+1)*w.per - since
}

// slots caps the calls in flight (concurrency_limit): acquire never
// waits, it refuses.
type slots struct {
	mu   sync.Mutex
	cap  int
	used int
}

func (s *slots) acquire() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used >= s.cap {
		return false
	}
	s.used++
	return true
}

func (s *slots) release() {
	s.mu.Lock()
	s.used--
	s.mu.Unlock()
}

// admission is what the limits decided about one tools/call.
type admission struct {
	refused bool
	wait    time.Duration // refused: until a call would be accepted (0: unknown)
	release func()        // accepted: call when the call ends
}

// limited reports whether the rate and concurrency limits apply to tool.
func (s *Server) limited(tool string) bool {
	if tool == ToolInflight {
		return false
	}
	only := s.cfg.Enum("rate_limit_tool")
	return only == "all" || only == tool
}

// admit applies the limits to a tools/call of tool: the concurrency cap
// and the rate limit refuse, the workers make it wait its turn (until
// ctx ends, which refuses it with no wait). The inflight probe passes.
func (s *Server) admit(ctx context.Context, tool string) admission {
	var undo []func()
	release := func() {
		for _, f := range undo {
			f()
		}
	}
	if s.limited(tool) {
		if s.slots != nil {
			if !s.slots.acquire() {
				return admission{refused: true}
			}
			undo = append(undo, s.slots.release)
		}
		if lim := s.limiterOf(tool); lim != nil {
			if ok, wait := lim.take(); !ok {
				release()
				return admission{refused: true, wait: wait}
			}
		}
	}
	if s.workers != nil && tool != ToolInflight {
		select {
		case s.workers <- struct{}{}:
			undo = append(undo, func() { <-s.workers })
		case <-ctx.Done():
			release()
			return admission{refused: true}
		}
	}
	return admission{release: release}
}

// limiterOf is the rate limiter a call of tool takes from: the one shared
// by every limited tool, or with rate_limit_per_tool one of the tool's
// own, made when it is first called.
func (s *Server) limiterOf(tool string) limiter {
	if s.limiter == nil || !s.cfg.RateLimitPerTool {
		return s.limiter
	}
	s.perToolMu.Lock()
	defer s.perToolMu.Unlock()
	if s.perTool == nil {
		s.perTool = map[string]limiter{}
	}
	lim := s.perTool[tool]
	if lim == nil {
		lim = newLimiter(s.cfg)
		s.perTool[tool] = lim
	}
	return lim
}

// retryHint is the Retry-After a refused call is given (the retry_after
// knob) for a real wait; ok is false when the hint is absent.
func (s *Server) retryHint(wait time.Duration) (seconds int, ok bool) {
	honest := retryAfterSeconds(wait)
	switch s.cfg.Enum("retry_after") {
	case knobs.HintAbsent:
		return 0, false
	case knobs.HintTooLong:
		return 3*honest + 2, true
	case knobs.HintTooShort:
		return honest / 3, true
	}
	return honest, true
}
