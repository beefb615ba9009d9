package proxy

import (
	"encoding/json"
	"strings"
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
)

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
	ID       json.RawMessage `json:"id"`
	Session  string          `json:"session,omitempty"`
	Tool     string          `json:"tool"`
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
	Error          string  `json:"error,omitempty"`

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
}

// recorder owns the records; every method is safe for concurrent use.
type recorder struct {
	mu        sync.Mutex
	calls     []*CallRecord
	open      map[string]*openCall     // by idKey
	byID      map[string]*CallRecord   // the latest call of each idKey
	unfilled  map[string]*CallRecord   // unanswered calls by argsKey, for re-issues
	throttled map[string][]*CallRecord // by client: throttled calls awaiting the next call
	faults    map[string]int
}

// openCall is a call in flight; cancel ends the proxy's side of it when
// the client cancels by notification.
type openCall struct {
	rec    *CallRecord
	cancel chan struct{}
	once   sync.Once
}

func newRecorder() *recorder {
	return &recorder{open: map[string]*openCall{}, byID: map[string]*CallRecord{}, unfilled: map[string]*CallRecord{}, throttled: map[string][]*CallRecord{}, faults: map[string]int{}}
}

// start records a new call and links it to the client's earlier calls.
func (r *recorder) start(rec *CallRecord, args json.RawMessage) *openCall {
	rec.argsKey = rec.Session + "\x00" + rec.Tool + "\x00" + compactJSON(args)
	rec.idKey = rec.Session + "\x00" + compactJSON(rec.ID)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, rec)
	for _, k := range rec.Injected {
		r.faults[k]++
	}
	if prev := r.unfilled[rec.argsKey]; prev != nil {
		delete(r.unfilled, rec.argsKey)
		rec.ReissueOf = prev.Seq
		rec.Reissue = "new_id"
		if string(prev.ID) == string(rec.ID) {
			rec.Reissue = "same_id"
		}
	}
	for _, t := range r.throttled[rec.Session] {
		gap := rec.Start.Sub(t.ended)
		t.NextCallAfterMs = ms(gap)
		ok := gap >= time.Duration(t.RetryAfterMs*float64(time.Millisecond))
		t.RetryAfterHonoured = &ok
	}
	delete(r.throttled, rec.Session)
	oc := &openCall{rec: rec, cancel: make(chan struct{})}
	r.open[rec.idKey] = oc
	r.byID[rec.idKey] = rec
	return oc
}

// cancelled records a notifications/cancelled from a client for id and
// ends the proxy's side of that call; false when no such call is open.
func (r *recorder) cancelled(session string, id json.RawMessage, at time.Time) bool {
	key := session + "\x00" + compactJSON(id)
	r.mu.Lock()
	if rec := r.byID[key]; rec != nil {
		rec.CancelNotified = true
	}
	oc := r.open[key]
	if oc != nil && oc.rec.Reaction == "" {
		oc.rec.Reaction, oc.rec.CancelHow = reactCancelled, cancelNotification
		oc.rec.CancelAfterMs = ms(at.Sub(oc.rec.Start))
	}
	r.mu.Unlock()
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
// only the first end of a call counts.
func (r *recorder) end(oc *openCall, reaction, how string, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := oc.rec
	if !rec.ended.IsZero() {
		return
	}
	if r.open[rec.idKey] == oc {
		delete(r.open, rec.idKey)
	}
	rec.ended = at
	if rec.Reaction == "" {
		rec.Reaction, rec.CancelHow = reaction, how
		switch reaction {
		case reactCancelled:
			rec.CancelAfterMs = ms(at.Sub(rec.Start))
		case reactNeverCancelled, reactOpenAtStop:
			rec.HeldMs = ms(at.Sub(rec.Start))
		}
	}
	if rec.Reaction != reactAnswered {
		r.unfilled[rec.argsKey] = rec
	}
	if rec.Reaction == reactThrottled && rec.RetryAfterMs > 0 {
		r.throttled[rec.Session] = append(r.throttled[rec.Session], rec)
	}
}

// records returns a copy of every record so far, in arrival order.
func (r *recorder) records() []CallRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]CallRecord, len(r.calls))
	for i, c := range r.calls {
		out[i] = *c
	}
	return out
}

// summary aggregates the records.
func (r *recorder) summary() report.ProxyClients {
	cancelAfter, held := report.NewProxyHistogram(), report.NewProxyHistogram()
	var c report.ProxyClients
	for _, rec := range r.records() {
		c.Calls++
		switch rec.Reaction {
		case reactCancelled:
			c.Cancelled++
			if rec.CancelHow == cancelNotification {
				c.CancelledByNotify++
			} else {
				c.CancelledByClose++
			}
			cancelAfter.Record(time.Duration(rec.CancelAfterMs * float64(time.Millisecond)))
		case reactNeverCancelled:
			c.NeverCancelled++
			held.Record(time.Duration(rec.HeldMs * float64(time.Millisecond)))
		}
		if rec.Reissue != "" {
			c.Reissued++
			if rec.Reissue == "same_id" {
				c.ReissuedSameID++
			}
		}
		if h := rec.RetryAfterHonoured; h != nil {
			if *h {
				c.RetryAfterHonoured++
			} else {
				c.RetryAfterIgnored++
			}
		}
	}
	c.CancelAfterMs, c.HeldMs = cancelAfter.Percentiles(), held.Percentiles()
	return c
}

func (r *recorder) injected() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.faults))
	for k, v := range r.faults {
		out[k] = v
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// compactJSON is raw without insignificant white space, so equal values
// written differently compare equal; raw itself when it is not JSON.
func compactJSON(raw json.RawMessage) string {
	var b strings.Builder
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	out, _ := json.Marshal(v) // maps marshal with sorted keys
	b.Write(out)
	return b.String()
}
