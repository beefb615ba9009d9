package probes

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// fakeCalls serves pages of truth records the way the built-in target
// does: since filters by Updated, at most limit a page, more when cut.
type fakeCalls struct {
	mu      sync.Mutex
	calls   []results.TruthCall
	dropped int64
	oldest  time.Time
	limit   int
	queries []string
}

func (f *fakeCalls) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, r.URL.RawQuery)
	var since time.Time
	if v := r.URL.Query().Get("since"); v != "" {
		since, _ = time.Parse(time.RFC3339Nano, v)
	}
	p := results.TruthPage{Now: time.Now(), Calls: []results.TruthCall{}, Capacity: 3, Dropped: f.dropped, Oldest: f.oldest}
	for _, c := range f.calls {
		if !c.Updated.Before(since) {
			p.Calls = append(p.Calls, c)
		}
	}
	if len(p.Calls) > f.limit {
		p.Calls, p.More = p.Calls[:f.limit], true
	}
	json.NewEncoder(w).Encode(p)
}

func TestTruthReadsPagesOfItsRun(t *testing.T) {
	t0 := time.Now().Add(-time.Minute)
	f := &fakeCalls{limit: 2}
	for i := range 5 {
		marker := fmt.Sprintf("run1.%d.0", i)
		if i == 2 {
			marker = "run2.1.0" // another run's
		}
		f.calls = append(f.calls, results.TruthCall{N: uint64(i + 1), Marker: marker, Started: t0, Updated: t0.Add(time.Duration(i) * time.Second)})
	}
	f.calls[4].Ended = time.Time{}
	srv := httptest.NewServer(f)
	defer srv.Close()
	tr := NewTruth(srv.URL+"/", "run1.")
	if err := tr.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := len(tr.Calls()); got != 4 {
		t.Fatalf("%d records, want the run's 4 of 5", got)
	}
	if len(f.queries) != 4 || f.queries[0] != "" || !strings.HasPrefix(f.queries[1], "since=") {
		t.Errorf("queries %q: want 4 pages (each since the last record of the one before), the first without since", f.queries)
	}
	if tr.Running() != 4 {
		t.Errorf("running %d, want 4 (none ended)", tr.Running())
	}
	// An update of one record replaces it; the next read asks only for
	// what changed.
	f.mu.Lock()
	f.calls[0].Ended, f.calls[0].Updated = time.Now(), time.Now()
	f.mu.Unlock()
	if err := tr.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(tr.Calls()) != 4 || tr.Running() != 3 || len(tr.Notes()) != 0 {
		t.Errorf("after an update: %d records, %d running, notes %v", len(tr.Calls()), tr.Running(), tr.Notes())
	}
	// Records evicted after our last read are reported.
	f.mu.Lock()
	f.dropped, f.oldest = 7, time.Now().Add(time.Hour)
	f.mu.Unlock()
	if err := tr.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := tr.Notes(); len(n) != 1 || !strings.Contains(n[0], "evicted records before they were read") {
		t.Errorf("notes %q, want the eviction", n)
	}
}

func TestTruthErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		says    string
	}{
		{"status", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no such page", http.StatusNotFound) }, `status 404: "no such page`},
		{"not a target", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{"calls":[]}`)) }, `no "now"`},
		{"not JSON", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`# HELP x`)) }, "not a built-in target's /calls answer"},
		{"too big", func(w http.ResponseWriter, _ *http.Request) {
			w.Write([]byte(`{"calls":[`))
			chunk := []byte(strings.Repeat(" ", 1<<20))
			for range MaxTruthBody>>20 + 1 {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}, "over 16777216 bytes"},
		{"stuck pages", func(w http.ResponseWriter, _ *http.Request) {
			json.NewEncoder(w).Encode(results.TruthPage{Now: time.Now(), More: true, Calls: []results.TruthCall{}})
		}, "did not advance"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			err := NewTruth(srv.URL, "r.").Read(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), srv.URL) {
				t.Errorf("error %v, want one naming %s that says %q", err, srv.URL, tc.says)
			}
		})
	}
}
