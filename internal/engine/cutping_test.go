package engine

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
)

// TestCutPingsSettle: a ping's answer is held against each cut it covers,
// less our own stalls in between; no answer is late for all of them.
func TestCutPingsSettle(t *testing.T) {
	t0 := time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	for _, tc := range []struct {
		name             string
		stall            time.Duration // from t0+50ms
		at               time.Time
		err              error
		late, unanswered int
		worst            float64
	}{
		{"one cut late, one in time", 0, ms(350), nil, 1, 0, 350},
		{"our stall explains the lateness", 80 * time.Millisecond, ms(350), nil, 0, 0, 270},
		{"no answer", 0, time.Time{}, errors.New("ping: deadline exceeded"), 2, 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &cutPings{on: true, grace: 300 * time.Millisecond, lag: &readLag{}}
			if tc.stall > 0 {
				p.lag.note(ms(50), ms(50).Add(tc.stall))
			}
			p.settle([]time.Time{t0, ms(100)}, tc.at, tc.err)
			got := p.result()
			if got == nil || got.Cuts != 2 || got.Late != tc.late || got.Unanswered != tc.unanswered || got.WorstMs != tc.worst || got.GraceMs != 300 {
				t.Errorf("pings %+v; want 2 cuts, %d late, %d unanswered, worst %vms, grace 300ms", got, tc.late, tc.unanswered, tc.worst)
			}
		})
	}
	if got := (&cutPings{on: true}).result(); got != nil {
		t.Errorf("no cut pinged gave %+v, want nil", got)
	}
}

// TestCutPingsWanted: only a run whose one server-side evidence is the
// process probe pings after its cuts.
func TestCutPingsWanted(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		counting, logs, process bool
		want                    bool
	}{
		{"process probe only", false, false, true, true},
		{"no process probe", false, false, false, false},
		{"a counting probe", true, false, true, false},
		{"a log probe", false, true, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cutPingsWanted(Plan{}, tc.counting, tc.logs, tc.process); got != tc.want {
				t.Errorf("cutPingsWanted = %v, want %v", got, tc.want)
			}
		})
	}
}

// pingDelayer is a reverse proxy in front of a real HTTP server that
// holds every ping for delay and counts them.
func pingDelayer(t *testing.T, target string, delay time.Duration) (string, *atomic.Int64) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	proxy.FlushInterval = -1 // stream SSE as it comes
	proxy.ErrorLog = log.New(io.Discard, "", 0)
	var pings atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if bytes.Contains(body, []byte(`"method":"ping"`)) {
			pings.Add(1)
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + u.Path, &pings
}

// TestCutPingsOverHTTP: against the built-in target over real HTTP, named
// by pid so that the process probe is the only evidence, every cut gets a
// ping; a server whose pings are answered 2 s late (a proxy holds them)
// has every cut counted late, and the verdict's inputs say so.
func TestCutPingsOverHTTP(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		delay time.Duration
	}{
		{"pings answered at once", 0},
		{"pings held 2 s", 2 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tg := newTarget(t, targetserver.Config{})
			front, pings := pingDelayer(t, tg.URL, tc.delay)
			p := httpPlan(front, Load{Rate: perSec(5), Duration: time.Second}, slowTask(20, 50))
			p.Target.PID = os.Getpid()
			p.Faults = []faults.Fault{scenarioFault(t, "{kind: cancel, after: 100ms}")}
			p.Orphans = Orphans{Grace: 300 * time.Millisecond, QuietWindow: 100 * time.Millisecond}
			o := runLoad(t, context.Background(), p)
			cut := 0
			for _, r := range o.recs {
				if r.CancelSentUs > 0 {
					cut++
				}
			}
			got := o.info.Orphans.CutPings
			t.Logf("%d calls cut, %d pings, cut pings %+v", cut, pings.Load(), got)
			if cut == 0 || got == nil || got.Cuts != cut || pings.Load() == 0 || pings.Load() > int64(cut) {
				t.Fatalf("%d calls cut, %d pings through the proxy, cut pings %+v; want every cut pinged, at most one ping a cut", cut, pings.Load(), got)
			}
			if tc.delay > 0 && (got.Late != cut || got.WorstMs < 1900) {
				t.Errorf("cut pings %+v with pings held %v; want all %d late, the worst about 2 s", got, tc.delay, cut)
			}
		})
	}
}
