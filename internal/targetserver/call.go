package targetserver

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// burnSlice is how long cpu_task computes between checks for a cancel.
const burnSlice = time.Millisecond

var errShutdown = errors.New("target shutting down")

// notifier sends one progress notification: ServerSession.NotifyProgress.
type notifier func(context.Context, *mcp.ProgressNotificationParams) error

// call is one running slow_task or cpu_task: a loop of steps that reacts to
// cancels, disconnects and the flood ticker according to the knobs. It is
// owned by the handler goroutine.
type call struct {
	s       *Server
	cfg     *Config
	ctx     context.Context
	sendCtx context.Context // ctx without its cancel: a call that ignores a cancel still reports
	send    notifier
	token   any // progress token, or nil
	rng     *rand.Rand
	leak    bool // this call ignores its cancel
	args    stepArgs
	burn    bool
	truth   *truthRec // nil when the call carries no marker

	answer      answerKey // the request, for progress_after_response
	answerKnown bool

	step   int // the step being worked on, from 1
	floodN int // flood notifications sent during this step
	sent   bool
	last   float64 // last progress value sent
	high   float64 // highest progress value sent
	sink   uint64  // keeps the CPU burn from being optimised away

	// Event channels; nil disables one.
	ctxDone  <-chan struct{}
	httpDone <-chan struct{}
	stopAt   <-chan time.Time
	floodC   <-chan time.Time
	shutdown <-chan struct{} // a stdio session's shutdown; nil on HTTP
	now      chan time.Time  // closed: makes wait return at once after pending events

	orphaned bool
	// cutAt is when the call first went on past a cancel or a closed
	// stream (leaked, waiting out stop_delay, or not told of the
	// disconnect); zero while it has not. What it does from then on is
	// leftover work, counted in the leftover metrics.
	cutAt time.Time
}

// newCall prepares a step tool call. token is the request's progress token
// (nil for none); send delivers progress for it.
func (s *Server) newCall(ctx context.Context, token any, send notifier, args stepArgs, burn bool) *call {
	seq := s.callSeq.Add(1)
	c := &call{
		s:       s,
		cfg:     &s.cfg,
		ctx:     ctx,
		sendCtx: context.WithoutCancel(ctx),
		send:    send,
		token:   token,
		rng:     rand.New(rand.NewPCG(uint64(s.cfg.Seed), seq)),
		args:    args,
		burn:    burn,
		ctxDone: ctx.Done(),
		now:     make(chan time.Time),
	}
	close(c.now)
	c.leak = c.rng.Float64() < s.cfg.LeakOnCancel
	if ch, ok := ctx.Value(shutdownKey{}).(<-chan struct{}); ok {
		c.shutdown = ch
	}
	if d, ok := ctx.Value(disconnectKey{}).(disconnect); ok && !d.propagated {
		c.httpDone = d.done
	}
	return c
}

// run works through the steps and returns the tool result, or the error
// that stopped the call (which the SDK reports as a tool error).
func (c *call) run() (*mcp.CallToolResult, error) {
	m := c.s.metrics
	m.started.Add(1)
	m.inflight.Add(1)
	defer m.inflight.Add(-1)
	defer c.endLeftover()

	if c.token != nil && c.cfg.ProgressFloodHz > 0 {
		t := time.NewTicker(time.Duration(float64(time.Second) / c.cfg.ProgressFloodHz))
		defer t.Stop()
		c.floodC = t.C
	}
	stepLen := time.Duration(c.args.StepMs) * time.Millisecond
	for c.step = 1; c.cfg.Endless || c.step <= c.args.Steps; c.step++ {
		c.floodN = 0
		if c.stalled(c.step - 1) {
			c.floodC = nil
		}
		var err error
		if c.burn {
			err = c.burnFor(stepLen)
		} else {
			err = c.wait(time.After(stepLen))
		}
		if err != nil {
			m.cancelled.Add(1)
			return nil, fmt.Errorf("stopped at %s: %w", c.stepMessage("step"), err)
		}
		if c.cfg.StallAfter == 0 || c.step <= c.cfg.StallAfter {
			c.progress(float64(c.step), c.stepMessage("step"))
		}
	}
	m.completed.Add(1)
	if c.cfg.ProgressAfterResponse && c.token != nil {
		value := c.high + 1
		send := func() { c.afterResponse(value) }
		if c.answerKnown {
			c.s.answers.after(c.answer, send) // once the answer is written (answered.go)
		} else {
			go send()
		}
	}
	text := fmt.Sprintf("done: %d steps of %dms", c.args.Steps, c.args.StepMs)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
}

// stalled reports whether progress has stopped once done steps are complete.
func (c *call) stalled(done int) bool {
	return c.cfg.StallAfter > 0 && done >= c.cfg.StallAfter
}

func (c *call) stepMessage(verb string) string {
	if c.cfg.Endless {
		return fmt.Sprintf("%s %d", verb, c.step)
	}
	return fmt.Sprintf("%s %d of %d", verb, c.step, c.args.Steps)
}

// wait handles events until until fires. An error means the call must stop.
// A cancel, a late stop or a shutdown that is ready when until fires (or a
// flood tick comes) wins over it: select picks at random among ready cases,
// and a step done beside its cancel would otherwise send one more progress
// after the cancel.
func (c *call) wait(until <-chan time.Time) error {
	for {
		select {
		case <-until:
			return c.stopFirst()
		case <-c.ctxDone:
			if err := c.onCancel(); err != nil {
				return err
			}
		case <-c.httpDone:
			// The client closed the request's stream and the SDK does not
			// pass that on: the call keeps running for nobody.
			c.httpDone = nil
			c.truth.streamClosed()
			c.markCut()
			c.orphan()
		case <-c.stopAt:
			return c.lateStop()
		case <-c.floodC:
			if err := c.stopFirst(); err != nil {
				return err
			}
			c.floodN++
			j := float64(c.floodN)
			c.progress(float64(c.step-1)+j/(j+1), c.stepMessage("working on step"))
		case <-c.s.closing:
			return errShutdown
		case <-c.shutdown:
			return errShutdown
		}
	}
}

// stopFirst handles, without waiting, an event that stops or cuts the call
// and is ready now. An error means the call must stop.
func (c *call) stopFirst() error {
	select {
	case <-c.ctxDone:
		return c.onCancel()
	case <-c.stopAt:
		return c.lateStop()
	case <-c.s.closing:
		return errShutdown
	case <-c.shutdown:
		return errShutdown
	default:
		return nil
	}
}

// lateStop is the error of a call that waited out stop_delay after its cancel.
func (c *call) lateStop() error {
	return fmt.Errorf("noticed the cancel %s late: %w", c.cfg.StopDelay, context.Cause(c.ctx))
}

// burnFor computes for d, looking for events between slices.
func (c *call) burnFor(d time.Duration) error {
	end := time.Now().Add(d)
	for {
		left := time.Until(end)
		if left <= 0 {
			return nil
		}
		c.sink += c.spin(min(left, burnSlice))
		if err := c.wait(c.now); err != nil {
			return err
		}
	}
}

// onCancel reacts to the handler's context being done.
func (c *call) onCancel() error {
	c.truth.cancelled()
	switch {
	case c.leak:
		c.ctxDone = nil
		c.markCut()
		c.orphan()
		return nil
	case c.cfg.StopDelay > 0:
		c.ctxDone = nil
		c.markCut()
		c.stopAt = time.After(c.cfg.StopDelay)
		return nil
	default:
		return context.Cause(c.ctx)
	}
}

// orphan counts, once per call, a cancel or disconnect the call outlives.
func (c *call) orphan() {
	if !c.orphaned {
		c.orphaned = true
		c.s.metrics.orphaned.Add(1)
	}
}

// markCut notes the moment the call first went on past a cancel or a
// closed stream.
func (c *call) markCut() {
	if c.cutAt.IsZero() {
		c.cutAt = time.Now()
	}
}

// spin burns CPU for d. Once the call is cut, the CPU the slice used is
// leftover work: it is read from the OS thread's own CPU clock (wall time
// where there is none), so time the thread spent preempted on a busy
// machine is not counted. Slices start only between checks for a cancel,
// so a call that stops at its cancel adds nothing.
func (c *call) spin(d time.Duration) uint64 {
	if c.cutAt.IsZero() {
		return Spin(d)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	cpu0, ok0 := threadCPU()
	x := Spin(d)
	cpu1, ok1 := threadCPU()
	used := time.Since(start)
	if ok0 && ok1 {
		used = cpu1 - cpu0
	}
	c.s.metrics.leftoverCPU.Add(int64(used))
	return x
}

// endLeftover adds, when the call ends, the time it ran after it was cut.
func (c *call) endLeftover() {
	if !c.cutAt.IsZero() {
		c.s.metrics.leftoverBusy.Add(int64(time.Since(c.cutAt)))
	}
}

// progress sends one notification when the call has a token. With
// probability NonMonotonic it sends the previous value again, or half of it,
// instead of value.
func (c *call) progress(value float64, msg string) {
	if c.token == nil {
		return
	}
	bad := false
	if c.sent && c.cfg.NonMonotonic > 0 && c.rng.Float64() < c.cfg.NonMonotonic {
		bad = true
		value = c.last
		if c.rng.IntN(2) == 1 {
			value = c.last / 2
		}
	}
	if !c.notify(c.sendCtx, value, msg) {
		return
	}
	c.sent, c.last, c.high = true, value, max(c.high, value)
	if bad {
		c.s.metrics.nonMonotonic.Add(1)
	}
}

// notify sends a progress notification and counts it when it went out.
func (c *call) notify(ctx context.Context, value float64, msg string) bool {
	total := float64(c.args.Steps)
	if c.cfg.Endless {
		total = 0 // unknown
	}
	at := time.Now()
	err := c.send(ctx, &mcp.ProgressNotificationParams{
		ProgressToken: c.token,
		Progress:      value,
		Total:         total,
		Message:       msg,
	})
	if err != nil {
		return false
	}
	c.truth.progress(value, at)
	c.s.metrics.progressSent.Add(1)
	return true
}

// afterResponse sends the notification of Config.ProgressAfterResponse. It
// runs after the handler returned, on a context unrelated to the request, so
// it goes out on the session (stdout on stdio).
func (c *call) afterResponse(value float64) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.notify(ctx, value, "after the response")
}

// Spin burns CPU for about d and returns a value derived from the work (so
// that the compiler keeps the work). It is the built-in target's burn, and
// serves tests that need a server to cost CPU the same way.
func Spin(d time.Duration) uint64 {
	end := time.Now().Add(d)
	x := uint64(1)
	for time.Now().Before(end) {
		for range 1024 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	return x
}
