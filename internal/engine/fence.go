package engine

import (
	"context"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
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

// fenceTimeout bounds the wait for a fence's answer.
const fenceTimeout = 5 * time.Second

// fence is one ping; at is when its answer was read (zero until then, or
// for ever when none came).
type fence struct {
	sendAt time.Time
	mu     sync.Mutex
	at     time.Time
}

// answered returns when the fence's answer was read, zero if not (yet).
func (f *fence) answered() time.Time {
	if f == nil {
		return time.Time{}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.at
}

// fencer sends the fences of one stdio connection. Cancels that ask for a
// fence while one is pending share it, when it goes out late enough for
// them: every cancel's fence goes out at least the grace after it, and a
// new one goes out as soon as it may (one ping per cancel at most): the
// later a fence goes out, the more of the work after cancel + grace is
// read before its answer and proves nothing.
type fencer struct {
	client *client.Client

	mu      sync.Mutex
	pending *fence
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
	return f.after(t)
}

func (f *fencer) after(t time.Time) *fence {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p := f.pending; p != nil && !p.sendAt.Before(t) {
		return p
	}
	p := &fence{sendAt: t}
	f.pending = p
	time.AfterFunc(time.Until(p.sendAt), func() { f.send(p) })
	return p
}

// send sends fence p and notes when its answer was read.
func (f *fencer) send(p *fence) {
	f.mu.Lock()
	if f.pending == p {
		f.pending = nil
	}
	f.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), fenceTimeout)
	defer cancel()
	at, err := f.client.Fence(ctx)
	if err != nil {
		return
	}
	p.mu.Lock()
	p.at = at
	p.mu.Unlock()
}

// lateMsg is a message read later than cancel + grace, to be weighed
// against the call's fence when its record is written.
type lateMsg struct {
	at       time.Time
	progress bool
	// lagged: late by the clock, not once our own stalls are taken off
	// (latedrain.go): after the fence's answer it is work all the same,
	// before it nothing, not even queued.
	lagged bool
}

// maxLate bounds the late messages a call keeps for weighing; past it,
// the last one is replaced, so the latest is always kept.
const maxLate = 256

// noteLate keeps a message read later than cancel + grace: on stdio it is
// weighed against the fence in settleLate; elsewhere it counts at once
// (cs.mu held).
func (cs *callState) noteLate(at time.Time, progress bool) {
	if cs.fence == nil {
		cs.lastSeen = at
		if progress {
			cs.rec.Violations.Add("after_cancel", 1)
		}
		return
	}
	cs.keepLate(lateMsg{at: at, progress: progress})
}

// keepLate keeps m for settleLate, at most maxLate of them (cs.mu held).
func (cs *callState) keepLate(m lateMsg) {
	if len(cs.late) < maxLate {
		cs.late = append(cs.late, m)
		return
	}
	cs.late[len(cs.late)-1] = m
}

// settleLate weighs the late messages kept on stdio: read after the
// fence's answer, they are work after the cancel (after_cancel for
// progress, the call's leftover time); read before it, or with no answer,
// they are only queued, and those before a prompt answer are counted
// apart (promptFence; cs.mu held).
func (cs *callState) settleLate() {
	fenceAt := cs.fence.answered()
	prompt := cs.promptFence(fenceAt)
	for _, m := range cs.late {
		if fenceAt.IsZero() || !m.at.After(fenceAt) {
			if !m.lagged {
				cs.rec.LateQueued++
				if prompt {
					cs.rec.LateQueuedPrompt++
				}
			}
			continue
		}
		if m.at.After(cs.lastSeen) {
			cs.lastSeen = m.at
		}
		if m.progress {
			cs.rec.Violations.Add("after_cancel", 1)
		}
	}
	cs.late = nil
}

// maxPromptFence bounds what counts as a prompt answer to a fence.
const maxPromptFence = 50 * time.Millisecond

// promptFence reports whether the fence's answer, read at fenceAt, came
// within a tenth of the grace (maxPromptFence at most) after this call's
// cancel plus the grace. The server then read its input, the cancel and
// the ping after it, in time: a message read before that answer was
// written by then, within the grace give or take that tenth, by a server
// that was not starved of CPU. mcp-go's stdio server, for one, reads its
// input on a goroutine of its own and answers a ping at once while every
// worker computes. A slow answer, or none, leaves open whether the server
// had read the cancel by cancel + grace (report/verdict/starved.go).
func (cs *callState) promptFence(fenceAt time.Time) bool {
	if fenceAt.IsZero() || cs.cancelSent.IsZero() || cs.r == nil {
		return false
	}
	grace := cs.r.plan.Progress.Grace
	return fenceAt.Sub(cs.cancelSent.Add(grace)) <= min(grace/10, maxPromptFence)
}
