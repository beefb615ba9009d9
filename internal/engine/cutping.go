package engine

import (
	"context"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/report"
)

// Pings after cuts over HTTP (issue 25): did the server have the CPU to
// see a cut in time?
//
// A black box over HTTP sees no work after a cut: after a 2026 cancel the
// call's stream is gone, and a fence orders nothing across requests
// (fence.go). With a process probe as the only evidence, "no work seen"
// is a pass only if the server could have shown work or stopped in time.
// A server starved of CPU does neither: a stopping Go SDK server that has
// not yet run the goroutine that notices the closed connection finishes
// its step past cut + grace while burning next to nothing (the false pass
// of gosdk,http,stop, seed 15 of the agreement benchmark). So when a cut
// is out, the run sends the server a ping: an answer read within the
// grace (less our own stalls, readlag.go) shows its process was running
// and reading the network in that time, when it also had the closed
// stream or the cancel to read; an answer later than that, or none, shows
// it may not have seen the cut in time. Those cuts are counted
// (cancellation.cut_pings) and make a pass not_observable
// (report/starved.go). One ping is in flight at a time: the cuts that come
// while it is go with the next one, sent as soon as it returns.
//
// The cuts of a quiet window get no ping: the window measures their
// leftover work itself, and a window whose server waited for a CPU is
// starved evidence already (starved.go). A window cuts every call in
// flight at once, and a server unwinding a dozen calls answers a ping
// late though it stopped each in time: in the agreement benchmark (load
// average 15–22) 3 of 20 runs of a stopping Go SDK server over HTTP, whose
// log says every call stopped in time, had one or two late pings, 350–442
// ms after their cut, while windows' cuts were pinged too (what is left
// without them: docs/decisions.md).

// maxPingCuts bounds the cuts waiting for a ping; past it, more cuts are
// not pinged (and not counted).
const maxPingCuts = 4096

// cutPings sends the pings of one run and counts what they showed.
type cutPings struct {
	on    bool          // the process probe is the only server-side evidence, over HTTP
	grace time.Duration // orphans.grace
	lag   *readLag

	mu       sync.Mutex
	waiting  []time.Time // the cuts (cancel out) waiting for a ping
	inflight bool
	closed   bool // result was called: no more pings
	res      report.CutPings
	wg       sync.WaitGroup
}

// cutPingsWanted reports whether a run pings after its cuts: the process
// probe is its only evidence of the server (no counting or log probe), the
// server is its own (not a shard's, not behind a gateway under test).
func cutPingsWanted(p Plan, counting, logs, process bool) bool {
	return process && !counting && !logs && !p.SharesServer() && p.Gateway == nil
}

// after notes a cut whose cancel was out at cut, on the HTTP client c, and
// sends a ping unless one is in flight (it then goes with the next).
func (p *cutPings) after(c *client.Client, cut time.Time) {
	if p == nil || !p.on || c == nil || c.Transport() == "stdio" || cut.IsZero() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(p.waiting) >= maxPingCuts {
		return
	}
	p.waiting = append(p.waiting, cut)
	if p.inflight {
		return
	}
	p.inflight = true
	p.wg.Add(1)
	go p.send(c)
}

// send pings until no cut is waiting.
func (p *cutPings) send(c *client.Client) {
	defer p.wg.Done()
	for {
		p.mu.Lock()
		cuts := p.waiting
		p.waiting = nil
		if len(cuts) == 0 {
			p.inflight = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), fenceTimeout)
		at, err := c.Fence(ctx)
		cancel()
		p.settle(cuts, at, err)
	}
}

// settle counts the cuts a ping answered at `at` covered (err: no answer).
func (p *cutPings) settle(cuts []time.Time, at time.Time, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, cut := range cuts {
		p.res.Cuts++
		if err != nil {
			p.res.Late++
			p.res.Unanswered++
			continue
		}
		d := at.Sub(cut) - p.lag.within(cut, at)
		p.res.WorstMs = max(p.res.WorstMs, ms(d))
		if d > p.grace {
			p.res.Late++
		}
	}
}

// result waits for the pings in flight (each bounded by fenceTimeout) and
// returns what they showed; nil when none was sent.
func (p *cutPings) result() *report.CutPings {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.res.Cuts == 0 {
		return nil
	}
	out := p.res
	out.GraceMs = ms(p.grace)
	return &out
}
