package proxy

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/report"
)

// Reactions: how a call ended, seen from the client.
const (
	reactAnswered       = "answered"        // the proxy delivered a final response
	reactCancelled      = "cancelled"       // the client cancelled (see CancelHow)
	reactNeverCancelled = "never_cancelled" // held until the hold ended, no cancel
	reactThrottled      = "throttled"       // answered with the throttle reply
	reactUpstreamError  = "upstream_error"  // the upstream could not be reached or failed
	reactOpenAtStop     = "open_at_stop"    // still open when the proxy stopped
	reactDisconnected   = "disconnected"    // the proxy cut the client's connection
	// reactGaveUp: a client of a 2025 session closed the call's stream and
	// sent no notifications/cancelled: there a closed stream is no cancel,
	// the client gave up on the call without telling the server.
	reactGaveUp = "gave_up"
)

// violationDuplicateID: a client's call used the id of another of its
// calls still in flight (JSON-RPC requires ids unique among them).
const violationDuplicateID = "duplicate_id"

// How a client cancelled.
const (
	cancelStreamClosed = "stream_closed" // it closed the request's stream (the 2026 cancel)
	cancelNotification = "notification"  // it sent notifications/cancelled (the 2025 cancel)
)

// maxRecordedRequest bounds the copy of the client's request in a record.
const maxRecordedRequest = 4 << 10

// CallRecord is one tools/call through the proxy: the client's request,
// what was injected and how the client reacted.
type CallRecord struct {
	Seq      uint64          `json:"seq"`
	ID       json.RawMessage `json:"id"`     // "sha256:HEX" for an id over 256 bytes
	Client   string          `json:"client"` // who called: see clientOf
	Session  string          `json:"session,omitempty"`
	Tool     string          `json:"tool"`    // cut at 256 bytes
	Request  string          `json:"request"` // as sent, cut at 4 KiB
	Injected []string        `json:"injected,omitempty"`
	Start    time.Time       `json:"start"`

	Reaction      string  `json:"reaction"`
	CancelHow     string  `json:"cancel_how,omitempty"`
	CancelAfterMs float64 `json:"cancel_after_ms,omitempty"`
	// CancelNotified: the client sent notifications/cancelled for the
	// call (as well as closing its stream, when CancelHow says so).
	CancelNotified bool    `json:"cancel_notified,omitempty"`
	HeldMs         float64 `json:"held_ms,omitempty"`
	// ClosedAfterMs: when a client that gave up closed the call's stream.
	ClosedAfterMs float64 `json:"closed_after_ms,omitempty"`
	Error         string  `json:"error,omitempty"`
	// Violation is what the client did against JSON-RPC with this call:
	// "duplicate_id", an id of one of its calls still in flight.
	Violation string `json:"violation,omitempty"`

	// AfterDisconnect is what the client did after the proxy cut a
	// disconnected call (aftercut.go); HungMs, for "hung", is how long
	// after the cut it cancelled the call.
	AfterDisconnect string  `json:"after_disconnect,omitempty"`
	HungMs          float64 `json:"hung_ms,omitempty"`

	// Reissue is "new_id" or "same_id" when this call repeats an earlier
	// unanswered one of the same client (same tool and arguments);
	// ReissueOf is that call's Seq.
	Reissue   string `json:"reissue,omitempty"`
	ReissueOf uint64 `json:"reissue_of,omitempty"`

	// For a throttled call: the Retry-After given, the time until the
	// client's next call, and whether that waited it out.
	RetryAfterMs       float64 `json:"retry_after_ms,omitempty"`
	NextCallAfterMs    float64 `json:"next_call_after_ms,omitempty"`
	RetryAfterHonoured *bool   `json:"retry_after_honoured,omitempty"`

	ended   time.Time
	argsKey string // client, tool and arguments, for re-issues
	idKey   string // client and id, for notifications/cancelled
	// legacy: the call came in a 2025 session (Mcp-Session-Id), where
	// closing its stream is not a cancel.
	legacy bool
}

// The recorder's bounds: what it keeps in memory however long the proxy
// runs (docs/proxy.md, "What is recorded").
const (
	// maxIndexed bounds each index: unanswered calls that a re-issue may
	// repeat, calls awaiting a late notifications/cancelled, and clients
	// whose throttled calls await their next call. Beyond it the oldest
	// entry goes (a pending record is written as it stands).
	maxIndexed = 4096
	// maxThrottledPerClient bounds one client's throttled calls awaiting
	// its next call.
	maxThrottledPerClient = 64
	// maxRecent is how many of the latest calls Records returns.
	maxRecent = 1024
	// maxClientCalls bounds one client's calls in flight, and
	// maxOpenCalls all clients' together: a call beyond is refused by the
	// proxy itself (HTTP 503), not recorded. A client names itself (see
	// clientOf), so only the second bounds a hostile one.
	maxClientCalls = 256
	maxOpenCalls   = 4096
	// notifyGrace is how long a call the client cancelled by closing its
	// stream waits for the client's notifications/cancelled before its
	// record is written.
	notifyGrace = 2 * time.Second
)

// reissueWindow: a later identical call with a new id re-issues an
// unanswered one only when it starts within this of that call's end (a
// client that reuses the id re-issues whenever it does). Beyond it, it is
// the client's next call, not a retry of that one.
const reissueWindow = 5 * time.Second

// prior is an unanswered call that a later identical one re-issues.
type prior struct {
	seq   uint64
	id    string
	ended time.Time
	key   string // the call's idKey, to find it among the cut calls
}

// recorder owns the records; every method is safe for concurrent use. It
// keeps only open calls, records still waiting for a last fact (a
// notification after the stream closed, the next call after a throttle)
// and bounded indexes; each record is written (see output) once settled,
// and the summary is counted as calls start and end.
type recorder struct {
	mu        sync.Mutex
	open      map[string]*openCall         // by idKey
	notify    *boundedIndex[*CallRecord]   // ended by a stream close; by idKey
	unfilled  *boundedIndex[prior]         // unanswered calls by argsKey, for re-issues
	throttled *boundedIndex[[]*CallRecord] // by client: throttled calls awaiting the next call
	recent    [maxRecent]*CallRecord       // a ring of the latest calls, for Records
	nRecent   uint64                       // calls put in recent
	faults    map[string]int
	sum       report.ProxyClients // counts; percentiles from the histograms
	cancelAt  *report.ProxyHistogram
	held      *report.ProxyHistogram
	out       output
	stopped   bool           // flush was called: records no longer wait for a last fact
	inflight  map[string]int // calls admitted and not ended, by client
	nInflight int            // their sum
	cuts      afterCuts      // disconnected calls awaiting the client's reaction
}

// openCall is a call in flight; cancel ends the proxy's side of it when
// the client cancels by notification.
type openCall struct {
	rec    *CallRecord
	cancel chan struct{}
	once   sync.Once
}

func newRecorder() *recorder {
	return &recorder{open: map[string]*openCall{}, inflight: map[string]int{}, notify: newBoundedIndex[*CallRecord](maxIndexed),
		unfilled: newBoundedIndex[prior](maxIndexed), throttled: newBoundedIndex[[]*CallRecord](maxIndexed),
		faults: map[string]int{}, cancelAt: report.NewProxyHistogram(), held: report.NewProxyHistogram(), cuts: newAfterCuts()}
}

// admit counts a call of client in flight, unless maxClientCalls of it
// or maxOpenCalls in all are; a call admitted is started next, and its
// end frees the place.
func (r *recorder) admit(client string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.inflight[client] >= maxClientCalls || r.nInflight >= maxOpenCalls {
		return false
	}
	r.inflight[client]++
	r.nInflight++
	return true
}

// release frees an admitted call's place; r.mu is held.
func (r *recorder) release(client string) {
	if n := r.inflight[client]; n > 1 {
		r.inflight[client] = n - 1
	} else if n == 1 {
		delete(r.inflight, client)
	} else {
		return // not admitted (a test's call)
	}
	r.nInflight--
}

// start records a new call and links it to the client's earlier calls.
func (r *recorder) start(rec *CallRecord, args json.RawMessage) *openCall {
	rec.argsKey = digest(rec.Client + "\x00" + rec.Tool + "\x00" + compactJSON(args))
	rec.ID, rec.Tool = boundID(rec.ID), cutIdentity(rec.Tool)
	rec.idKey = rec.Client + "\x00" + compactJSON(rec.ID)
	r.mu.Lock()
	r.sum.Calls++
	r.recent[r.nRecent%maxRecent] = rec
	r.nRecent++
	for _, k := range rec.Injected {
		r.faults[k]++
	}
	var settled []*CallRecord
	if prev, ok := r.unfilled.Take(rec.argsKey); ok {
		sameID := prev.id == compactJSON(rec.ID)
		if sameID || rec.Start.Sub(prev.ended) <= reissueWindow {
			rec.ReissueOf = prev.seq
			rec.Reissue = "new_id"
			r.sum.Reissued++
			settled = r.cuts.settle(&r.sum, prev.key, prev.seq, afterReissued, rec.Start, settled)
		}
		if sameID {
			rec.Reissue = "same_id"
			r.sum.ReissuedSameID++
		}
	}
	r.cuts.sawCall(rec.Client, rec.Start)
	if ts, ok := r.throttled.Take(rec.Client); ok {
		for _, t := range ts {
			gap := rec.Start.Sub(t.ended)
			t.NextCallAfterMs = ms(gap)
			ok := gap >= time.Duration(t.RetryAfterMs*float64(time.Millisecond))
			t.RetryAfterHonoured = &ok
			if ok {
				r.sum.RetryAfterHonoured++
			} else {
				r.sum.RetryAfterIgnored++
			}
		}
		settled = append(settled, ts...)
	}
	if _, dup := r.open[rec.idKey]; dup {
		rec.Violation = violationDuplicateID
		r.sum.DuplicateIDs++
	}
	oc := &openCall{rec: rec, cancel: make(chan struct{})}
	r.open[rec.idKey] = oc
	lines := r.marshal(settled...)
	r.mu.Unlock()
	r.out.write(lines)
	return oc
}

// cancelled records a notifications/cancelled from a client for id and
// ends the proxy's side of that call; false when no such call is open.
func (r *recorder) cancelled(client string, id json.RawMessage, at time.Time) bool {
	key := client + "\x00" + compactJSON(boundID(id))
	r.mu.Lock()
	oc := r.open[key]
	if oc != nil {
		oc.rec.CancelNotified = true
		if oc.rec.Reaction == "" {
			oc.rec.Reaction, oc.rec.CancelHow = reactCancelled, cancelNotification
			oc.rec.CancelAfterMs = ms(at.Sub(oc.rec.Start))
		}
	}
	var lines [][]byte
	if oc == nil {
		lines = r.marshal(r.cuts.settle(&r.sum, key, 0, afterHung, at, nil)...)
	}
	if rec, ok := r.notify.Take(key); ok {
		rec.CancelNotified = true
		if rec.Reaction == reactGaveUp { // it did cancel, after closing
			r.sum.GaveUp--
			rec.Reaction, rec.CancelHow, rec.CancelAfterMs = reactCancelled, cancelNotification, ms(at.Sub(rec.Start))
			r.count(rec)
		}
		lines = append(lines, r.marshal(rec)...)
	}
	r.mu.Unlock()
	r.out.write(lines)
	if oc == nil {
		return false
	}
	oc.once.Do(func() { close(oc.cancel) })
	return true
}

// fail settles a call the upstream failed, with the error.
func (r *recorder) fail(oc *openCall, err error, at time.Time) {
	r.mu.Lock()
	oc.rec.Error = err.Error()
	r.mu.Unlock()
	r.end(oc, reactUpstreamError, "", at)
}

// end settles a call's reaction (unless a notification already did);
// only the first end of a call counts. The record is written now, or
// once its last fact is in: a notification after a stream close (for up
// to notifyGrace), the client's next call after a throttle.
func (r *recorder) end(oc *openCall, reaction, how string, at time.Time) {
	r.mu.Lock()
	rec := oc.rec
	if !rec.ended.IsZero() {
		r.mu.Unlock()
		return
	}
	if r.open[rec.idKey] == oc {
		delete(r.open, rec.idKey)
	}
	r.release(rec.Client)
	rec.ended = at
	if rec.Reaction == "" {
		if reaction == reactCancelled && how == cancelStreamClosed && rec.legacy {
			reaction, how = reactGaveUp, ""
			rec.ClosedAfterMs = ms(at.Sub(rec.Start))
		}
		rec.Reaction, rec.CancelHow = reaction, how
		switch reaction {
		case reactCancelled:
			rec.CancelAfterMs = ms(at.Sub(rec.Start))
		case reactNeverCancelled, reactOpenAtStop:
			rec.HeldMs = ms(at.Sub(rec.Start))
		}
	}
	r.count(rec)
	if rec.Reaction != reactAnswered {
		r.unfilled.Put(rec.argsKey, prior{seq: rec.Seq, id: compactJSON(rec.ID), ended: at, key: rec.idKey})
	}
	var evicted []*CallRecord
	switch {
	case r.stopped:
		evicted = append(evicted, rec)
	case rec.Reaction == reactThrottled && rec.RetryAfterMs > 0:
		ts, _ := r.throttled.Take(rec.Client)
		if len(ts) >= maxThrottledPerClient {
			evicted, ts = append(evicted, ts[0]), ts[1:]
		}
		for _, e := range r.throttled.Put(rec.Client, append(ts, rec)) {
			evicted = append(evicted, e...)
		}
	case rec.Reaction == reactDisconnected:
		evicted = r.cuts.watch(&r.sum, rec, r.settleCut)
	case (rec.CancelHow == cancelStreamClosed || rec.Reaction == reactGaveUp) && !rec.CancelNotified:
		evicted = r.notify.Put(rec.idKey, rec)
		time.AfterFunc(notifyGrace, func() { r.settleNotify(rec) })
	default:
		evicted = append(evicted, rec)
	}
	lines := r.marshal(evicted...)
	r.mu.Unlock()
	r.out.write(lines)
}

// settleNotify writes rec when it still awaits its notification.
func (r *recorder) settleNotify(rec *CallRecord) {
	r.mu.Lock()
	var lines [][]byte
	if got, ok := r.notify.Get(rec.idKey); ok && got == rec {
		r.notify.Take(rec.idKey)
		lines = r.marshal(rec)
	}
	r.mu.Unlock()
	r.out.write(lines)
}

// count adds an ended record to the summary's counts.
func (r *recorder) count(rec *CallRecord) {
	switch rec.Reaction {
	case reactCancelled:
		r.sum.Cancelled++
		if rec.CancelHow == cancelNotification {
			r.sum.CancelledByNotify++
		} else {
			r.sum.CancelledByClose++
		}
		r.cancelAt.Record(time.Duration(rec.CancelAfterMs * float64(time.Millisecond)))
	case reactGaveUp:
		r.sum.GaveUp++
	case reactNeverCancelled:
		r.sum.NeverCancelled++
		r.held.Record(time.Duration(rec.HeldMs * float64(time.Millisecond)))
	case reactUpstreamError:
		r.sum.UpstreamErrors++
	case reactDisconnected:
		r.sum.Disconnected++
	}
}
