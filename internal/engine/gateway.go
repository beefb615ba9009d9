package engine

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/probes"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// Gateway tests: with Plan.Gateway set, the engine keeps what each call saw
// (the progress it received and when, an answer carrying another call's
// marker), reads the built-in targets' truth records during and after the
// run, and joins the two by marker (report.JoinGateway).

// GatewayPlan names the built-in targets behind the gateway.
type GatewayPlan struct {
	// Truth are their base URLs (http://HOST:PORT).
	Truth []string
}

// Bounds of a gateway run.
const (
	// truthEvery is how often the truth records are read during the run,
	// so that a target's ring does not evict them first.
	truthEvery = time.Second
	// truthSettleMax bounds the wait, after the run, for executions still
	// running at the targets to end (a lost cancel is judged by the end).
	truthSettleMax = 10 * time.Second
	// maxGatewayCalls bounds the calls a run keeps for the join.
	maxGatewayCalls = 1_000_000
	// maxReceived bounds the progress kept per call.
	maxReceived = 2 * results.MaxTruthProgress
)

// newRunID returns an id for the run's markers: the start time and the
// process id, base 36, so that runs against one long-lived target (and
// the shards of one run) never share a marker.
func newRunID() string {
	return strconv.FormatInt(time.Now().UnixNano(), 36) + strconv.FormatInt(int64(os.Getpid()), 36)
}

// gwNotes is what one call saw that the join needs (guarded by cs.mu).
type gwNotes struct {
	marker   []byte // our own marker's text
	progress []report.GatewayProgress
	crossed  string
	// answered: a result reached us; echoed: one carried our marker;
	// hinted: a retry hint in any form reached us (retryhint.go).
	answered, echoed, hinted bool
}

// noteHint keeps whether an event carried a retry hint (cs.mu held).
func (n *gwNotes) noteHint(ev client.Event) {
	if n != nil && !n.hinted {
		n.hinted = hintIn(ev)
	}
}

// noteProgress keeps a received notification (cs.mu held).
func (n *gwNotes) noteProgress(ev client.Event) {
	if n != nil && len(n.progress) < maxReceived {
		n.progress = append(n.progress, report.GatewayProgress{Value: ev.Progress, At: ev.At})
	}
}

// noteResult compares the marker an answer carries with ours (cs.mu held).
func (n *gwNotes) noteResult(r client.Result) {
	if n == nil {
		return
	}
	n.answered = true
	switch {
	case len(r.Marker) == 0:
	case string(r.Marker) == string(n.marker):
		n.echoed = true
	case n.crossed == "":
		n.crossed = string(r.Marker)
	}
}

// gatewayRun reads the truth and collects the calls.
type gatewayRun struct {
	run    string
	truths []*probes.Truth

	readMu sync.Mutex // one read of the truths at a time
	errs   []string
	// failed is the first read error of each target, by index: one line
	// for those never read, one for those that failed after answering
	// (truthLines).
	failed map[int]string

	mu      sync.Mutex
	calls   []report.GatewayCall
	dropped int
	// cuts are when our disconnect faults cut a stdio process, by its
	// number: every call in flight on it ended with it.
	cuts map[int][]time.Time
	// echoes are when an answer carrying one of our markers arrived after
	// its call's late window (client.Config.OnStaleAnswer), by marker.
	echoes map[string]time.Time
	// lastRead is when the last read of the truth began (settle): an
	// answer echoing a marker after it may come from an execution the
	// records read do not hold.
	lastRead time.Time
	// truth is what settle read, for join.
	truth []results.TruthCall
	bases []string

	// stop ends the periodic reads; cutRead cuts the one in progress, so
	// that finish never waits for it (its final read reads again).
	stop    chan struct{}
	cutRead context.CancelFunc
	done    chan struct{}
}

func newGatewayRun(p *GatewayPlan, run string) *gatewayRun {
	if p == nil {
		return nil
	}
	g := &gatewayRun{run: run, stop: make(chan struct{}), done: make(chan struct{})}
	for _, u := range p.Truth {
		g.truths = append(g.truths, probes.NewTruth(u, run+"."))
	}
	return g
}

// start reads the truth once a truthEvery until finish. The reads go on
// after an interrupt during the load (the calls are still joined), and
// finish cuts the one in progress.
func (g *gatewayRun) start(ctx context.Context) {
	if g == nil {
		return
	}
	ctx, g.cutRead = context.WithCancel(context.WithoutCancel(ctx))
	go func() {
		defer close(g.done)
		t := time.NewTicker(truthEvery)
		defer t.Stop()
		for {
			select {
			case <-g.stop:
				return
			case <-t.C:
				g.read(ctx, false)
			}
		}
	}()
}

// read reads every target's new records, keeping each error once. A
// periodic read cut by finish notes no error; a final one is bounded by
// the interrupt like the probes' readings (readContext).
func (g *gatewayRun) read(ctx context.Context, final bool) {
	g.readMu.Lock()
	defer g.readMu.Unlock()
	for i, t := range g.truths {
		rctx, cancel := ctx, context.CancelFunc(func() {})
		if final {
			rctx, cancel = readContext(ctx, probes.DefaultTruthTimeout)
		}
		err := t.Read(rctx)
		cancel()
		if err != nil && (final || ctx.Err() == nil) {
			g.noteFailed(i, err)
		}
	}
}

func (g *gatewayRun) noteErr(s string) {
	for _, e := range g.errs {
		if e == s {
			return
		}
	}
	if len(g.errs) < 10 {
		g.errs = append(g.errs, s)
	}
}

// start gives a call its notes (before it is sent).
func (cs *callState) startGateway() {
	if cs.r.gw == nil {
		return
	}
	cs.gw = &gwNotes{marker: client.AppendMarker(nil, cs.marker())}
}

// marker is the call's marker.
func (cs *callState) marker() client.Marker {
	return client.Marker{Run: cs.r.runID, Seq: cs.seq, Attempt: cs.rec.Attempt}
}

// add keeps a finished call for the join (called once per call, after its
// record is final).
func (g *gatewayRun) add(cs *callState) {
	if g == nil {
		return
	}
	cs.mu.Lock()
	if cs.gw == nil || cs.sent.IsZero() {
		cs.mu.Unlock()
		return
	}
	c := report.GatewayCall{Marker: string(cs.gw.marker), RequestID: cs.rec.ID, Response: cs.responseAt,
		Progress: cs.gw.progress, Crossed: cs.gw.crossed, ReadPaused: !cs.pausedAt.IsZero(),
		RetryAfter: cs.gw.hinted || (cs.rec.RetryAfterMs != nil && *cs.rec.RetryAfterMs > 0),
		Answered:   cs.gw.answered, Echoed: cs.gw.echoed, AfterCancel: cs.rec.Violations["after_cancel"], Task: cs.task.id != ""}
	// A plain disconnect of a 2025 era is not a cancel.
	if cs.stopOutcome == results.Disconnected && !cs.info.Era.Modern() {
		c.Disconnected = cs.cancelAt
	} else {
		c.Cancelled = cs.cancelAt
	}
	stdio, process, sent, end := cs.info.Transport == "stdio", cs.rec.Process, cs.sent, cs.endAt
	cs.mu.Unlock()
	g.mu.Lock()
	defer g.mu.Unlock()
	if stdio && c.Cancelled.IsZero() && c.Disconnected.IsZero() {
		c.Disconnected = cutDuring(g.cuts[process], sent, end)
	}
	if len(g.calls) >= maxGatewayCalls {
		g.dropped++
		return
	}
	g.calls = append(g.calls, c)
}

// noteCut remembers that our disconnect fault cut the stdio process a call
// ran on, at: the calls in flight on it end with it, which is our doing,
// not the gateway's (a bridge whose stdin we close ends its upstream
// requests).
func (g *gatewayRun) noteCut(cs *callState, at time.Time) {
	if g == nil || cs.info.Transport != "stdio" {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cuts == nil {
		g.cuts = map[int][]time.Time{}
	}
	g.cuts[cs.rec.Process] = append(g.cuts[cs.rec.Process], at)
}

// noteStaleEcho keeps a marker of this run that an answer echoed after
// its call's late window: the call ran to its end, and the join counts
// that execution even when no target recorded it.
func (g *gatewayRun) noteStaleEcho(marker string, at time.Time) {
	if g == nil || !strings.HasPrefix(marker, g.run+".") {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.echoes == nil {
		g.echoes = map[string]time.Time{}
	}
	if _, seen := g.echoes[marker]; !seen && len(g.echoes) < maxGatewayCalls {
		g.echoes[marker] = at
	}
}

// cutDuring returns the first cut at or after sent and not after end (a
// zero end: still in flight), or zero.
func cutDuring(cuts []time.Time, sent, end time.Time) time.Time {
	for _, at := range cuts {
		if !at.Before(sent) && (end.IsZero() || !at.After(end)) {
			return at
		}
	}
	return time.Time{}
}

// settle stops the periodic reads, waits (within truthSettleMax) for the
// executions still running at the targets to end, and reads the truth a
// last time. The clients are still open: join comes after they close, so
// that every answer they read is held against what was read here.
func (g *gatewayRun) settle(ctx context.Context) {
	if g == nil {
		return
	}
	close(g.stop)
	if g.cutRead != nil {
		g.cutRead()
	}
	<-g.done
	deadline := time.Now().Add(truthSettleMax)
	for {
		g.mu.Lock()
		g.lastRead = time.Now()
		g.mu.Unlock()
		g.read(ctx, true)
		running := 0
		for _, t := range g.truths {
			running += t.Running()
		}
		if running == 0 || !time.Now().Before(deadline) || !sleep(ctx, 100*time.Millisecond) {
			break
		}
	}
	for _, t := range g.truths {
		g.truth = append(g.truth, t.Calls()...)
		g.bases = append(g.bases, t.Base())
		for _, n := range t.Notes() {
			g.noteErr(n)
		}
	}
}

// join joins the truth settle read with the calls, once the clients are
// closed: an answer echoing a call's marker after the last read began
// makes the truth incomplete (report.GatewayCall.EchoAfterTruth).
func (g *gatewayRun) join() *report.Gateway {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := range g.calls {
		c := &g.calls[i]
		if at, ok := g.echoes[c.Marker]; ok {
			c.Echoed, c.LateEcho = true, at
		}
		if echo := c.LateEcho; (!echo.IsZero() && echo.After(g.lastRead)) || (c.Echoed && c.Response.After(g.lastRead)) {
			c.EchoAfterTruth = true
		}
	}
	out := report.JoinGateway(g.calls, g.truth)
	out.Truth = g.bases
	lines, unread := g.truthLines()
	out.TruthUnread = unread
	out.Errors = append(lines, g.errs...)
	if g.dropped > 0 {
		out.Errors = append(out.Errors, fmt.Sprintf("%d calls beyond the first %d were not joined", g.dropped, maxGatewayCalls))
	}
	return &out
}
