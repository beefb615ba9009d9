package engine

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/results"
)

// Shards: one run split over several processes (docs/distributed.md).
//
// The global tick sequence is the single run's: tick n is due at the same
// offset from the start, and its call and its faults are drawn from the
// seed and n (newCall), so they do not depend on who sends it. Shard I of
// N sends the ticks with n % N == I, and nothing else: the shards of one
// run, merged, are the single run's calls. Background faults are split the
// same way (their tick n goes to shard n % N), each tick drawing from the
// seed, the fault and n alone. The closed model cannot be
// split by tick: its concurrency is divided (the first C % N shards get one
// worker more) and its calls are numbered k·N + I, distinct across shards.
// An explicit max_in_flight is divided like the concurrency; the default
// (10000) is a per-process safety net and stays one per shard. Quiet
// windows keep their offsets from the start, so with --start-at they are
// taken by every shard at the same wall-clock times.

// Shard is this process's part of a sharded run: the ticks whose sequence
// number modulo Count is Index. The zero value is a whole run.
type Shard struct {
	Index, Count int
}

// String is "I/N".
func (s Shard) String() string { return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count) }

// on reports whether the run is split at all.
func (s Shard) on() bool { return s.Count > 0 }

// first and step: the shard's ticks are first, first+step, ...
func (s Shard) first() uint64 {
	if !s.on() {
		return 0
	}
	return uint64(s.Index)
}

func (s Shard) step() uint64 {
	if !s.on() {
		return 1
	}
	return uint64(s.Count)
}

// owns reports whether tick n is the shard's.
func (s Shard) owns(n uint64) bool { return !s.on() || n%uint64(s.Count) == uint64(s.Index) }

// share is the shard's part of a total divided among the shards, the
// first total % Count shards taking one more.
func (s Shard) share(total int) int {
	if !s.on() {
		return total
	}
	n := total / s.Count
	if s.Index < total%s.Count {
		n++
	}
	return n
}

// ParseShard reads "I/N" (0 ≤ I < N).
func ParseShard(v string) (Shard, error) {
	i, n, ok := strings.Cut(v, "/")
	if !ok {
		return Shard{}, fmt.Errorf("parse shard %q: want INDEX/COUNT, e.g. 0/4", v)
	}
	index, err1 := strconv.Atoi(strings.TrimSpace(i))
	count, err2 := strconv.Atoi(strings.TrimSpace(n))
	if err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("parse shard %q: want INDEX/COUNT as two whole numbers, e.g. 0/4", v)
	}
	s := Shard{Index: index, Count: count}
	if count < 1 {
		return s, fmt.Errorf("shard %q: the count must be at least 1", v)
	}
	return s, s.Validate()
}

// Validate checks 0 ≤ Index < Count ≤ results.MaxShards (the zero value is
// valid: no shard).
func (s Shard) Validate() error {
	if s == (Shard{}) {
		return nil
	}
	if s.Count < 1 {
		return fmt.Errorf("shard %q: the count must be at least 1", s.String())
	}
	if s.Count > results.MaxShards {
		return fmt.Errorf("shard %q: the count must be at most %d", s.String(), results.MaxShards)
	}
	if s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard %q: the index must be from 0 to %d", s.String(), s.Count-1)
	}
	return nil
}

// ForShard returns the plan of one shard: the load's concurrency and an
// explicit max_in_flight divided, the ticks and background faults taken
// by sequence number when the run starts.
func (p Plan) ForShard(s Shard) (Plan, error) {
	if err := s.Validate(); err != nil {
		return p, err
	}
	p.Shard = s
	if !s.on() {
		return p, nil
	}
	if c := p.Load.Concurrency; c > 0 {
		if p.Load.Concurrency = s.share(c); p.Load.Concurrency == 0 {
			return p, fmt.Errorf("shard %s: load.concurrency %d is fewer than the %d shards: this shard would have no worker",
				s, c, s.Count)
		}
	}
	if m := p.Load.MaxInFlight; m > 0 {
		if p.Load.MaxInFlight = s.share(m); p.Load.MaxInFlight == 0 {
			return p, fmt.Errorf("shard %s: load.max_in_flight %d is fewer than the %d shards: this shard could start no call",
				s, m, s.Count)
		}
	}
	return p, nil
}

// waitStart waits for the plan's StartAt, if any; it returns how late the
// run reached it (0 when on time or when there is none), and false when
// ctx ended first.
func (r *runner) waitStart(ctx context.Context) (late time.Duration, ok bool) {
	at := r.plan.StartAt
	if at.IsZero() {
		return 0, true
	}
	if wait := time.Until(at); wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return 0, false
		case <-t.C:
		}
		return 0, true
	}
	return time.Since(at), true
}

// missTicks records the ticks due before a late start as dropped (never
// silently skipped) and returns the first tick still to send.
func (r *runner) missTicks(p pacer, late time.Duration) uint64 {
	n := r.plan.Shard.first()
	end := r.plan.Load.Total()
	for ; ; n += r.plan.Shard.step() {
		at := p.intended(n)
		if at >= late || at < 0 || at >= end {
			return n
		}
		r.scheduled.Add(1)
		r.dropped.Add(1)
		r.missed.Add(1)
		cs := r.newCall(tick{seq: n, scheduled: r.began.Add(at)})
		cs.rec.Outcome = results.Dropped
		cs.rec.Error = "missed: the shard started after --start-at"
		r.emit(&cs.rec)
	}
}

// shardHeader is what the results header says of the shard; nil for a
// whole run.
func (r *runner) shardHeader(late time.Duration) *results.Shard {
	s := r.plan.Shard
	if !s.on() {
		return nil
	}
	return &results.Shard{Index: s.Index, Count: s.Count, StartAt: r.plan.StartAt, LateUs: late.Microseconds()}
}

// SharesServer reports whether the plan is a shard of a run whose server
// every shard calls: an HTTP target named by its URL. (A builtin target is
// started by each shard, and stdio servers are each shard's own
// processes: nothing is shared.) Its probes read the server's whole work,
// every shard's calls included. Every HTTP target is taken as shared,
// whatever its address: a loopback URL may be one server that every shard
// on the machine calls (as in the tests) or a per-pod sidecar; what to do
// for the latter is in docs/distributed.md.
func (p Plan) SharesServer() bool { return p.Shard.Count > 1 && p.Target.HTTP != nil }

// SharedProbesNote is what a shard of a shared server with probes says when
// it has no --start-at: it cannot know when the other shards' calls end,
// so its readings may count them. "" when that does not apply.
func (p Plan) SharedProbesNote() string {
	if !p.SharesServer() || !p.StartAt.IsZero() || !slices.ContainsFunc(p.Orphans.Probes, readsServer) {
		return ""
	}
	return fmt.Sprintf("orphan evidence of a server shared with %d other shards needs --start-at: without it a shard "+
		"cannot know when their calls end, and its probes, read after its own calls, may count theirs as orphans", p.Shard.Count-1)
}

// readsServer reports whether a probe reads the server's own state (a log
// probe matches this shard's calls by their markers).
func readsServer(s ProbeSpec) bool { return s.Log == nil }

// othersOver returns when the calls of every shard of the run are over:
// the load ends at the same instant in every shard (StartAt plus its
// length), and no call outlasts it by more than callBound. Without StartAt
// a shard cannot know (false).
func (p Plan) othersOver() (time.Time, bool) {
	if p.StartAt.IsZero() {
		return time.Time{}, false
	}
	return p.StartAt.Add(p.Load.Total() + p.callBound()), true
}

// stopSlack covers, in callBound, the graceful stop's last sweep (every
// 100 ms) and the cancels on their way.
const stopSlack = time.Second

// callBound is the longest a call of the run can last past the load's end:
// the graceful stop, after which every call still in flight is cancelled;
// or, when timeouts.max is shorter, the cap of each attempt (no retry
// starts after the load's end, but a call cut by a fault is re-issued at
// once, each attempt capped again).
func (p Plan) callBound() time.Duration {
	b := p.Load.GracefulStop
	if m := p.Timeouts.Max; m > 0 {
		attempts := 1
		for _, f := range p.Faults {
			if re, ok := f.(faults.Reissuer); ok {
				attempts = max(attempts, 1+re.Reissues())
			}
		}
		b = min(b, time.Duration(attempts)*m)
	}
	return b + stopSlack
}
