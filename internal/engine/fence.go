package engine

import (
	"context"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/results"
)

// Fences weigh late messages on stdio (issue 25). A message read later
// than our cancel plus the grace may still have been written before the
// server saw the cancel: it waited in the server's write queue, or in the
// pipe while our reader was starved of CPU. Arriving late is not working
// late. So once a cancel has gone out on a stdio connection, the run
// sends a ping there when the grace has passed (a fence, client.Fence). The
// server reads the ping after the cancel, and one pipe carries its
// messages in the order it wrote them, so a message read after the ping's
// answer was written after cancel + grace: proof of work after the cancel.
// A message read before that answer proves nothing and is counted as
// queued (late_queued). Over HTTP a fence orders nothing (each request
// has its own stream): there the time rule alone decides.
//
// A cancel gets a fence at the progress grace, which settles the progress
// rule (after_cancel), and, when the work grace is longer (Plan.workGrace:
// orphans.grace), a second at the work grace, which settles leftover work:
// a message read after the second's answer was written after cut + work
// grace, while the server had every right to still be stopping before.

// workGrace is how long after a cut a message from the server may still
// come from work done before the cut reached it: the orphan grace, or the
// progress grace when that is longer. A message later than that (on
// stdio: read after the answer to a ping sent then, fence.go) is work
// after the cut, the call's leftover; one between the progress grace and
// this breaks the progress rule (after_cancel) and is no leftover. With
// one grace for both, a server given orphans.grace 2 s to stop was held to
// the progress rule's 100 ms by the cancellation verdict (issue 25).
func (p Plan) workGrace() time.Duration { return max(p.Progress.Grace, p.Orphans.Grace) }

// workProof is how long after a cut a message must come to prove work:
// the work grace and a tenth of it (results.GiveOrTake), the give or
// take a prompt fence is allowed. mcp-go's stdio server sends its
// notifications from a queue of their own, behind which its answer to a
// ping overtakes them: under the ramp one call's result came 5 ms
// past the grace, after the work fence's answer, from work that its log
// says ended 20 ms inside it (docs/decisions.md).
func (p Plan) workProof() time.Duration {
	wg := p.workGrace()
	return wg + results.GiveOrTake(wg)
}

// fenceTimeout bounds the wait for a fence's answer.
const fenceTimeout = 5 * time.Second

// fence is one ping; at is when its answer was read (zero until then, or
// for ever when none came).
type fence struct {
	sendAt time.Time
	grace  time.Duration // the grace it was sent after the cancel
	mu     sync.Mutex
	at     time.Time
	// lost: the ping failed before its timeout (the pipe closed: a
	// disconnect ended the server), which says nothing of its promptness.
	lost bool
}

// answered returns when the fence's answer was read, zero if not (yet).
func (f *fence) answered() time.Time {
	at, _ := f.answer()
	return at
}

// answer returns when the fence's answer was read (zero if not, yet) and
// whether the ping was lost with the pipe.
func (f *fence) answer() (at time.Time, lost bool) {
	if f == nil {
		return time.Time{}, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.at, f.lost
}

// fencer sends the fences of one stdio connection. Cancels that ask for a
// fence of one grace while one is pending share it, when it goes out late
// enough for them: every cancel's fence goes out at least the grace after
// it, and a new one goes out as soon as it may (one ping per cancel and
// grace at most): the later a fence goes out, the more of the work after
// cancel + grace is read before its answer and proves nothing.
type fencer struct {
	client *client.Client

	mu      sync.Mutex
	pending map[time.Duration]*fence // by grace
}

// fences holds a fencer per stdio client.
type fences struct {
	mu sync.Mutex
	by map[*client.Client]*fencer
}

// after returns a fence that the client sends no sooner than t, or nil
// when c is not a stdio client.
func (fs *fences) after(c *client.Client, t time.Time, grace time.Duration) *fence {
	if c == nil || c.Transport() != "stdio" {
		return nil
	}
	fs.mu.Lock()
	if fs.by == nil {
		fs.by = map[*client.Client]*fencer{}
	}
	f := fs.by[c]
	if f == nil {
		f = &fencer{client: c}
		fs.by[c] = f
	}
	fs.mu.Unlock()
	return f.after(t, grace)
}

func (f *fencer) after(t time.Time, grace time.Duration) *fence {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p := f.pending[grace]; p != nil && !p.sendAt.Before(t) {
		return p
	}
	p := &fence{sendAt: t, grace: grace}
	if f.pending == nil {
		f.pending = map[time.Duration]*fence{}
	}
	f.pending[grace] = p
	time.AfterFunc(time.Until(p.sendAt), func() { f.send(p) })
	return p
}

// send sends fence p and notes when its answer was read.
func (f *fencer) send(p *fence) {
	f.mu.Lock()
	if f.pending[p.grace] == p {
		delete(f.pending, p.grace)
	}
	f.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), fenceTimeout)
	defer cancel()
	at, err := f.client.Fence(ctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case err == nil:
		p.at = at
	case ctx.Err() == nil:
		p.lost = true
	}
}

// lateMsg is a message read later than cancel + grace, to be weighed
// against the call's fence when its record is written.
type lateMsg struct {
	at       time.Time
	progress bool
	// lagged: late by the clock, not once our own stalls are taken off
	// (latedrain.go): after the work fence's answer it is work all the
	// same, before it nothing, not even queued.
	lagged bool
	// work: later than cancel + the work grace too (Plan.workGrace), so
	// it may be leftover work; one within the work grace is for the
	// progress rule alone.
	work bool
}

// maxLate bounds the late messages a call keeps for weighing; past it,
// the last one is replaced, so the latest is always kept.
const maxLate = 256

// noteLate keeps a message read later than cancel + grace: on stdio it is
// weighed against the fences in settleLate; elsewhere it counts at once,
// as leftover work when it is beyond the work grace too (cs.mu held).
func (cs *callState) noteLate(at time.Time, progress bool) {
	proof := cs.r.plan.workProof()
	if cs.fence == nil {
		if cs.beyond(at, proof) {
			cs.lastSeen = at
		}
		if progress {
			cs.rec.Violations.Add("after_cancel", 1)
		}
		return
	}
	m := lateMsg{at: at, progress: progress, work: cs.beyond(at, proof)}
	if !m.work && at.Sub(cs.cancelSent) > proof {
		m.work, m.lagged = true, true // past the work grace by the clock only (noteLagged)
	}
	cs.keepLate(m)
}

// keepLate keeps m for settleLate, at most maxLate of them (cs.mu held).
func (cs *callState) keepLate(m lateMsg) {
	if len(cs.late) < maxLate {
		cs.late = append(cs.late, m)
		return
	}
	cs.late[len(cs.late)-1] = m
}

// settleLate weighs the late messages kept on stdio. Progress read after
// the fence's answer breaks the progress rule (after_cancel). A message
// later than the work grace (work) read after the work fence's answer is
// work after the cancel (the call's leftover time); read before it, or
// with no answer, it is only queued, and those before a prompt answer are
// counted apart (promptFence; cs.mu held). With one grace for both the
// two fences are one.
func (cs *callState) settleLate() {
	fenceAt := cs.fence.answered()
	workAt, grace := fenceAt, time.Duration(0)
	if cs.workFence != nil {
		workAt, grace = cs.workFence.answered(), cs.workFence.grace
	}
	prompt := cs.promptFence(workAt, grace)
	for _, m := range cs.late {
		if m.progress && !fenceAt.IsZero() && m.at.After(fenceAt) {
			cs.rec.Violations.Add("after_cancel", 1)
		}
		switch {
		case !m.work:
			// Past the grace, within its give or take by the clock, but
			// read after the work fence's answer: from a server that
			// writes in order, written after it read that ping (the
			// summary decides, report/fenced.go).
			if !workAt.IsZero() && m.at.After(workAt) && m.at.After(cs.fencedSeen) {
				cs.fencedSeen = m.at
			}
		case workAt.IsZero() || !m.at.After(workAt):
			if !m.lagged {
				cs.rec.LateQueued++
				if prompt {
					cs.rec.LateQueuedPrompt++
				}
			}
		case m.at.After(cs.lastSeen):
			cs.lastSeen = m.at
		}
	}
	cs.late = nil
}

// fenceLag is how long after our cancel + the work grace (when the work
// fence went out, at the soonest) its answer was read
// (results.Record.FenceLagUs): the wire's resolution for this call. Until
// the server has read that ping, what it writes may have been written
// before cancel + grace, so a run-on that ends within the lag shows
// nothing. 0: no fence (not stdio, no cancel sent), a disconnect (it ends
// the server's pipe) or a ping lost with the pipe; -1: no answer yet when
// the record is taken (cs.mu held).
func (cs *callState) fenceLag() int64 {
	f := cs.workFence
	if f == nil || cs.cancelSent.IsZero() || cs.stopOutcome == results.Disconnected {
		return 0
	}
	at, lost := f.answer()
	switch {
	case lost:
		return 0
	case at.IsZero():
		return -1
	}
	return max(1, results.Us(at.Sub(cs.cancelSent.Add(f.grace))))
}

// promptFence reports whether the fence's answer, read at fenceAt, came
// within a tenth of the grace (results.GiveOrTake) after this call's
// cancel plus the grace (the fence's; 0: the progress grace). The server then read its input, the cancel and
// the ping after it, in time: a message read before that answer was
// written by then, within the grace give or take that tenth, by a server
// that was not starved of CPU. mcp-go's stdio server, for one, reads its
// input on a goroutine of its own and answers a ping at once while every
// worker computes. A slow answer, or none, leaves open whether the server
// had read the cancel by cancel + grace (report/verdict/starved.go).
func (cs *callState) promptFence(fenceAt time.Time, grace time.Duration) bool {
	if fenceAt.IsZero() || cs.cancelSent.IsZero() || cs.r == nil {
		return false
	}
	if grace <= 0 {
		grace = cs.r.plan.Progress.Grace
	}
	return fenceAt.Sub(cs.cancelSent.Add(grace)) <= results.GiveOrTake(grace)
}
