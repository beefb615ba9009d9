package proxy

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"sort"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/report"
)

// output is where settled records go: one JSON line each, written as the
// call settles, so the file is readable after a crash (a torn last line
// at most). Nothing is written while w is nil.
type output struct {
	mu  sync.Mutex
	w   io.Writer
	err error // the first write error
}

// SetOutput makes the proxy write each call's record to w as a JSON line
// when the call settles (docs/proxy.md, "What is recorded"). Call it
// before Serve; w is written from many goroutines, one line at a time.
// SetOutput(nil) detaches w (before closing it): later records are not
// written.
func (p *Proxy) SetOutput(w io.Writer) {
	p.rec.out.mu.Lock()
	defer p.rec.out.mu.Unlock()
	p.rec.out.w = w
}

// OutputErr is the first error writing a record, if any.
func (p *Proxy) OutputErr() error {
	p.rec.out.mu.Lock()
	defer p.rec.out.mu.Unlock()
	return p.rec.out.err
}

func (o *output) write(lines [][]byte) {
	if len(lines) == 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.w == nil || o.err != nil {
		return
	}
	for _, l := range lines {
		if _, err := o.w.Write(l); err != nil {
			o.err = fmt.Errorf("write call record: %w", err)
			return
		}
	}
	if f, ok := o.w.(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil {
			o.err = fmt.Errorf("flush call records: %w", err)
		}
	}
}

// marshal encodes records as JSON lines; r.mu is held (the records may
// still change under it).
func (r *recorder) marshal(recs ...*CallRecord) [][]byte {
	var lines [][]byte
	for _, rec := range recs {
		b, err := json.Marshal(rec)
		if err != nil {
			continue // every field marshals; a raw id was checked when the call came
		}
		lines = append(lines, append(b, '\n'))
	}
	return lines
}

// flush ends every call still open as open_at_stop and writes every
// record still waiting for a last fact (a late notification, the
// client's next call), as it stands; Serve calls it when it stops, after
// its handlers returned. A handler that ends one of those calls later
// changes nothing: only a call's first end counts.
func (r *recorder) flush() {
	r.mu.Lock()
	open := make([]*openCall, 0, len(r.open))
	for _, oc := range r.open {
		open = append(open, oc)
	}
	r.mu.Unlock()
	sort.Slice(open, func(i, j int) bool { return open[i].rec.Seq < open[j].rec.Seq })
	now := time.Now()
	for _, oc := range open {
		r.end(oc, reactOpenAtStop, "", now)
	}
	r.mu.Lock()
	r.stopped = true
	pending := append(r.notify.TakeAll(), r.cuts.takeAll(&r.sum)...)
	for _, ts := range r.throttled.TakeAll() {
		pending = append(pending, ts...)
	}
	sort.Slice(pending, func(i, j int) bool { return pending[i].Seq < pending[j].Seq })
	lines := r.marshal(pending...)
	r.mu.Unlock()
	r.out.write(lines)
}

// retained is how many records the recorder holds: open calls, records
// awaiting a last fact and the ring of recent calls (for the bound's test).
func (r *recorder) retained() (open, pending, recent int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ts := range r.throttled.m {
		pending += len(ts.v)
	}
	return len(r.open), pending + r.notify.Len(), int(min(r.nRecent, maxRecent))
}

// records returns a copy of the latest maxRecent calls, in arrival order.
func (r *recorder) records() []CallRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := min(r.nRecent, maxRecent)
	out := make([]CallRecord, 0, n)
	for i := r.nRecent - n; i < r.nRecent; i++ {
		out = append(out, *r.recent[i%maxRecent])
	}
	return out
}

// summary is the counts so far, with the percentiles.
func (r *recorder) summary() report.ProxyClients {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.sum
	c.CancelAfterMs, c.HeldMs = r.cancelAt.Percentiles(), r.held.Percentiles()
	return c
}

func (r *recorder) injected() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.faults)
}
