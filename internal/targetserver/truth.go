package targetserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/results"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The truth records: for every tools/call that carries a marker
// (results.MarkerMeta in _meta), what the target really did with it. A
// gateway test reads them from GET /calls and joins them with the client's
// own records by marker (docs/target.md, "Truth records").

// Bounds of the truth records and of one page of GET /calls.
const (
	// TruthCapacity is how many records the target keeps; the oldest is
	// evicted (and counted in Dropped) to make room.
	TruthCapacity = 20_000
	// TruthPageMax is the most records one answer holds.
	TruthPageMax = 1000
)

// truthLog keeps the records in a ring, oldest first.
type truthLog struct {
	mu      sync.Mutex
	cap     int                  // TruthCapacity, less in tests
	ring    []*results.TruthCall // len <= cap
	head    int                  // index of the oldest when full
	next    uint64
	dropped int64
}

func newTruthLog(capacity int) *truthLog { return &truthLog{cap: capacity} }

// begin records a new arrival of the call marked marker and returns it;
// nil (no record) for a call without a marker.
func (t *truthLog) begin(marker, requestID, tool, era, transport string) *truthRec {
	if t == nil || marker == "" {
		return nil
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next++
	rec := &results.TruthCall{N: t.next, Marker: marker, RequestID: requestID, Tool: tool, Era: era,
		Transport: transport, Started: now, Updated: now}
	if len(t.ring) < t.cap {
		t.ring = append(t.ring, rec)
	} else {
		t.ring[t.head] = rec
		t.head = (t.head + 1) % t.cap
		t.dropped++
	}
	return &truthRec{log: t, rec: rec}
}

// truthRec updates one record; every method is safe on nil.
type truthRec struct {
	log *truthLog
	rec *results.TruthCall
}

func (r *truthRec) update(f func(c *results.TruthCall, now time.Time)) {
	if r == nil {
		return
	}
	now := time.Now()
	r.log.mu.Lock()
	defer r.log.mu.Unlock()
	f(r.rec, now)
	r.rec.Updated = now
}

// throttled notes that the rate limit refused the call with retryAfter.
func (r *truthRec) throttled(retryAfter int) {
	r.update(func(c *results.TruthCall, now time.Time) {
		c.Throttled, c.RetryAfterS, c.Ended = true, retryAfter, now
	})
}

// progress notes a notification sent with value, at.
func (r *truthRec) progress(value float64, at time.Time) {
	r.update(func(c *results.TruthCall, _ time.Time) {
		if len(c.Progress) >= results.MaxTruthProgress {
			c.ProgressDropped++
			return
		}
		c.Progress = append(c.Progress, results.TruthProgress{Value: value, At: at})
	})
}

// cancelled notes the first time the handler learned of a cancel.
func (r *truthRec) cancelled() {
	r.update(func(c *results.TruthCall, now time.Time) {
		if c.Cancelled.IsZero() {
			c.Cancelled = now
		}
	})
}

// streamClosed notes that the HTTP request ended unbeknown to the handler.
func (r *truthRec) streamClosed() {
	r.update(func(c *results.TruthCall, now time.Time) {
		if c.StreamClosed.IsZero() {
			c.StreamClosed = now
		}
	})
}

// ended notes that the handler returned; completed: it ran to its end.
func (r *truthRec) ended(completed bool) {
	r.update(func(c *results.TruthCall, now time.Time) {
		c.Ended = now
		if completed {
			c.Completed = now
		}
	})
}

// page returns the records updated at or after since, oldest update first,
// at most limit of them. Only those are copied (with their progress): the
// others are only sorted, by pointer, under the lock the handlers take too.
func (t *truthLog) page(since time.Time, limit int) results.TruthPage {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := results.TruthPage{Now: time.Now(), Capacity: t.cap, Dropped: t.dropped, Calls: []results.TruthCall{}}
	if len(t.ring) > 0 {
		p.Oldest = t.ring[t.head].Started
	}
	var match []*results.TruthCall
	for _, c := range t.ring {
		if !c.Updated.Before(since) {
			match = append(match, c)
		}
	}
	slices.SortFunc(match, func(a, b *results.TruthCall) int {
		if c := a.Updated.Compare(b.Updated); c != 0 {
			return c
		}
		return int(a.N) - int(b.N)
	})
	if len(match) > limit {
		match, p.More = match[:limit], true
	}
	p.Calls = make([]results.TruthCall, len(match))
	for i, c := range match {
		p.Calls[i] = *c
		p.Calls[i].Progress = slices.Clone(c.Progress)
	}
	return p
}

// CallsHandler serves GET /calls?since=RFC3339NANO[&limit=N]: the truth
// records updated at or after since (all of them without since), as a
// results.TruthPage.
func (s *Server) CallsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", http.MethodGet)
			http.Error(w, "method not allowed: GET /calls", http.StatusMethodNotAllowed)
			return
		}
		var since time.Time
		if v := r.URL.Query().Get("since"); v != "" {
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				http.Error(w, fmt.Sprintf("calls: since %q is not an RFC 3339 time", v), http.StatusBadRequest)
				return
			}
			since = t
		}
		limit := TruthPageMax
		if v := r.URL.Query().Get("limit"); v != "" {
			var n int
			if _, err := fmt.Sscan(v, &n); err != nil || n < 1 || n > TruthPageMax {
				http.Error(w, fmt.Sprintf("calls: limit %q: want 1 to %d", v, TruthPageMax), http.StatusBadRequest)
				return
			}
			limit = n
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s.truth.page(since, limit))
	})
}

// beginCall starts the truth record of a tools/call the handler got (nil
// when it carries no marker).
func (s *Server) beginCall(req *mcp.CallToolRequest) *truthRec {
	if req == nil || req.Params == nil {
		return nil
	}
	m := req.Params.Meta
	marker, _ := m[results.MarkerMeta].(string)
	if marker == "" {
		return nil
	}
	id := metaRequestID(m)
	era, _ := m[vocab.MetaProtocolVersion].(string)
	if era == "" && req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil {
			era = p.ProtocolVersion
		}
	}
	transport := "stdio"
	if req.Extra != nil && req.Extra.Header != nil {
		transport = "http"
	}
	return s.truth.begin(marker, id, req.Params.Name, era, transport)
}

// markResult puts the call's marker into the result's _meta, so that a
// client can tell an answer that belongs to another call.
func markResult(res *mcp.CallToolResult, req *mcp.CallToolRequest) {
	if res == nil || req == nil || req.Params == nil {
		return
	}
	if marker, ok := req.Params.Meta[results.MarkerMeta].(string); ok && marker != "" {
		if res.Meta == nil {
			res.Meta = mcp.Meta{}
		}
		res.Meta[results.MarkerMeta] = marker
	}
}

// throttledCall records a marked tools/call the rate limit refused.
func (s *Server) throttledCall(marker, id, tool, era, transport string, retryAfter int) {
	s.truth.begin(marker, id, tool, era, transport).throttled(retryAfter)
}
