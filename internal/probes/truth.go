package probes

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/redact"
	"github.com/mcpchaos/mcpchaos/results"
)

// The gateway truth source: a built-in target's records of what it really
// did with each marked call (GET /calls, results.TruthPage), read during and
// after a run whose calls went through a gateway.

// Bounds of a truth source.
const (
	// MaxTruthBody bounds one answer of /calls.
	MaxTruthBody = 16 << 20
	// MaxTruthPages bounds the pages one Read follows.
	MaxTruthPages = 100
	// MaxTruthCalls bounds the records kept for one run.
	MaxTruthCalls = 1_000_000
	// DefaultTruthTimeout bounds one request.
	DefaultTruthTimeout = 10 * time.Second
)

// Truth reads one target's records of the calls whose marker starts with
// a prefix (one run's). It is not safe for concurrent use.
type Truth struct {
	// Client makes the requests; NewTruth gives it DefaultTruthTimeout.
	Client *http.Client

	base    string
	shown   string
	prefix  string
	since   time.Time
	dropped int64
	recs    map[uint64]results.TruthCall
	notes   []string
	read    bool // a Read succeeded
}

// NewTruth returns the truth source of the built-in target at base
// (http://HOST:PORT) for the markers that start with prefix.
func NewTruth(base, prefix string) *Truth {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxResponseHeaderBytes = 64 << 10
	return &Truth{Client: &http.Client{Timeout: DefaultTruthTimeout, Transport: tr}, base: strings.TrimSuffix(base, "/"),
		shown: redact.URL(base), prefix: prefix, recs: map[uint64]results.TruthCall{}}
}

// Base returns the target's base URL, credentials masked.
func (t *Truth) Base() string { return t.shown }

// Read fetches what changed since the last Read (everything the first
// time), following pages; an error names the target and what went wrong.
func (t *Truth) Read(ctx context.Context) error {
	for range MaxTruthPages {
		p, err := t.page(ctx)
		if err != nil {
			return err
		}
		if !t.since.IsZero() && p.Dropped > t.dropped && p.Oldest.After(t.since) {
			t.note(fmt.Sprintf("%s evicted records before they were read (it keeps %d): some calls may be missing", t.shown, p.Capacity))
		}
		t.dropped = p.Dropped
		for _, c := range p.Calls {
			if !strings.HasPrefix(c.Marker, t.prefix) {
				continue
			}
			if _, ok := t.recs[c.N]; !ok && len(t.recs) >= MaxTruthCalls {
				t.note(fmt.Sprintf("%s: more than %d records for this run; the rest were not kept", t.shown, MaxTruthCalls))
				continue
			}
			t.recs[c.N] = c
		}
		switch {
		case !p.More:
			t.since, t.read = p.Now, true
			return nil
		case len(p.Calls) == 0 || !p.Calls[len(p.Calls)-1].Updated.After(t.since):
			return fmt.Errorf("read truth from %q: a page with more to come did not advance past %s", t.shown, t.since.Format(time.RFC3339Nano))
		default:
			t.since = p.Calls[len(p.Calls)-1].Updated
		}
	}
	return fmt.Errorf("read truth from %q: more than %d pages in one read", t.shown, MaxTruthPages)
}

func (t *Truth) page(ctx context.Context) (results.TruthPage, error) {
	var p results.TruthPage
	u := t.base + "/calls"
	if !t.since.IsZero() {
		u += "?since=" + url.QueryEscape(t.since.Format(time.RFC3339Nano))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return p, fmt.Errorf("read truth from %q: %w", t.shown, err)
	}
	resp, err := t.Client.Do(req)
	if err != nil {
		return p, fmt.Errorf("read truth from %q: %w", t.shown, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxTruthBody+1))
	switch {
	case err != nil:
		return p, fmt.Errorf("read truth from %q: %w", t.shown, err)
	case len(body) > MaxTruthBody:
		return p, fmt.Errorf("read truth from %q: the answer is over %d bytes", t.shown, MaxTruthBody)
	case resp.StatusCode != http.StatusOK:
		return p, fmt.Errorf("read truth from %q: status %d: %q", t.shown, resp.StatusCode, clip(body))
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return p, fmt.Errorf("read truth from %q: not a built-in target's /calls answer: %w", t.shown, err)
	}
	if p.Now.IsZero() {
		return p, fmt.Errorf("read truth from %q: the answer has no \"now\" (is this a built-in target?)", t.shown)
	}
	return p, nil
}

// Answered reports whether a Read ever succeeded.
func (t *Truth) Answered() bool { return t.read }

// Calls returns the records read so far.
func (t *Truth) Calls() []results.TruthCall {
	out := make([]results.TruthCall, 0, len(t.recs))
	for _, c := range t.recs {
		out = append(out, c)
	}
	return out
}

// Running returns how many of the records read have not ended.
func (t *Truth) Running() int {
	n := 0
	for _, c := range t.recs {
		if c.Ended.IsZero() {
			n++
		}
	}
	return n
}

// Notes returns what went wrong short of an error (records lost).
func (t *Truth) Notes() []string { return t.notes }

func (t *Truth) note(s string) {
	for _, n := range t.notes {
		if n == s {
			return
		}
	}
	t.notes = append(t.notes, s)
}
