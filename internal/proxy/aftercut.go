package proxy

import (
	"time"

	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/report"
)

// After a disconnect. The disconnect fault cuts a call's stream; what the
// client does next says whether it noticed. A disconnected call's record
// waits (up to the proxy's hold) for the client's reaction, and records it
// as AfterDisconnect:
//
//   - reissued: the client called again with the same tool and arguments
//     (a re-issue, as reissueWindow defines it);
//   - hung: it sent notifications/cancelled for the call: it was still
//     waiting for the answer on a stream that was gone, until a timeout
//     of its own (HungMs: from the cut to that cancel);
//   - gave_up: neither within the hold, but it started another call after
//     the cut: it failed the call and went on without it;
//   - silent: nothing from the client within the hold. A client that
//     hangs with no timeout of its own and one that had nothing more to do
//     look the same on the wire.
//
// A record still waiting when the proxy stops is judged by what came so
// far (gave_up or silent).
const (
	afterReissued = "reissued"
	afterHung     = "hung"
	afterGaveUp   = "gave_up"
	afterSilent   = "silent"
)

// afterCuts holds the disconnected calls awaiting the client's reaction
// (guarded by the recorder's lock).
type afterCuts struct {
	// watchFor is how long a call waits: the proxy's hold.
	watchFor time.Duration
	pending  *boundedIndex[cutWait]   // by idKey
	lastCall *boundedIndex[time.Time] // by client: when its latest call started
}

// cutWait is a disconnected call awaiting its client's reaction, and the
// timer that ends the wait (stopped when the call settles first, so that
// a run of many cuts keeps no timers beyond the bound).
type cutWait struct {
	rec   *CallRecord
	timer *time.Timer
}

func newAfterCuts() afterCuts {
	return afterCuts{watchFor: scenarios.DefaultHold.Std(), pending: newBoundedIndex[cutWait](maxIndexed),
		lastCall: newBoundedIndex[time.Time](maxIndexed)}
}

// watch keeps rec until its client reacts, or settle runs after
// watchFor; it returns the records evicted to stay within the bound,
// judged as they stand.
func (a *afterCuts) watch(sum *report.ProxyClients, rec *CallRecord, settle func(*CallRecord)) []*CallRecord {
	var out []*CallRecord
	for _, e := range a.pending.Put(rec.idKey, cutWait{rec: rec, timer: time.AfterFunc(a.watchFor, func() { settle(rec) })}) {
		e.timer.Stop()
		a.judge(sum, e.rec)
		out = append(out, e.rec)
	}
	return out
}

// sawCall notes that client started a call at at.
func (a *afterCuts) sawCall(client string, at time.Time) { a.lastCall.Put(client, at) }

// settle records how (reissued, hung) on the waiting call key, if any
// (and, when seq is not 0, only if it is that call), and appends it to out.
func (a *afterCuts) settle(sum *report.ProxyClients, key string, seq uint64, how string, at time.Time, out []*CallRecord) []*CallRecord {
	w, ok := a.pending.Get(key)
	if !ok || (seq != 0 && w.rec.Seq != seq) {
		return out
	}
	a.pending.Take(key)
	w.timer.Stop()
	rec := w.rec
	rec.AfterDisconnect = how
	if how == afterHung {
		rec.HungMs = ms(at.Sub(rec.ended))
	}
	countAfter(sum, how)
	return append(out, rec)
}

// judge settles a call no reaction settled: gave_up when its client
// started another call after the cut, else silent.
func (a *afterCuts) judge(sum *report.ProxyClients, rec *CallRecord) {
	rec.AfterDisconnect = afterSilent
	if last, ok := a.lastCall.Get(rec.Client); ok && last.After(rec.ended) {
		rec.AfterDisconnect = afterGaveUp
	}
	countAfter(sum, rec.AfterDisconnect)
}

// takeAll judges and returns every waiting call (the proxy stopped).
func (a *afterCuts) takeAll(sum *report.ProxyClients) []*CallRecord {
	var recs []*CallRecord
	for _, w := range a.pending.TakeAll() {
		w.timer.Stop()
		a.judge(sum, w.rec)
		recs = append(recs, w.rec)
	}
	return recs
}

func countAfter(sum *report.ProxyClients, how string) {
	switch how {
	case afterReissued:
		sum.AfterDisconnect.Reissued++
	case afterHung:
		sum.AfterDisconnect.Hung++
	case afterGaveUp:
		sum.AfterDisconnect.GaveUp++
	case afterSilent:
		sum.AfterDisconnect.Silent++
	}
}

// settleCut writes rec when its watch ended with no reaction.
func (r *recorder) settleCut(rec *CallRecord) {
	r.mu.Lock()
	var lines [][]byte
	if got, ok := r.cuts.pending.Get(rec.idKey); ok && got.rec == rec {
		r.cuts.pending.Take(rec.idKey)
		r.cuts.judge(&r.sum, rec)
		lines = r.marshal(rec)
	}
	r.mu.Unlock()
	r.out.write(lines)
}
