package engine

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
)

// TestTaskCancelSendsNoNotification: a cancel fault on a task call sends
// tasks/cancel and never notifications/cancelled, even with also_notify
// (the tasks extension cancels through tasks/cancel only), while the same
// fault on a plain call does send one: the count in front of the target
// sees every POST, so it would see one.
func TestTaskCancelSendsNoNotification(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		call CallSpec
		want func(n int64) bool
	}{
		{"task call: none", taskCall(20, 100), func(n int64) bool { return n == 0 }},
		{"plain call: some", slowTask(20, 100), func(n int64) bool { return n > 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tg := newTarget(t, targetserver.Config{Era: targetserver.Era2026, Tasks: true, TaskPollInterval: 50 * time.Millisecond})
			up, err := url.Parse(tg.URL)
			if err != nil {
				t.Fatal(err)
			}
			var notes atomic.Int64
			rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: up.Scheme, Host: up.Host})
			rp.FlushInterval = -1
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
				if bytes.Contains(body, []byte(`"method":"notifications/cancelled"`)) {
					notes.Add(1)
				}
				r.Body = io.NopCloser(bytes.NewReader(body))
				rp.ServeHTTP(w, r)
			}))
			t.Cleanup(front.Close)
			p := httpPlan(front.URL+up.Path, Load{Rate: perSec(5), Duration: 600 * time.Millisecond, GracefulStop: 10 * time.Second}, tc.call)
			p.Faults = []faults.Fault{scenarioFault(t, "{kind: cancel, after: 250ms, also_notify: true}")}
			o := runLoad(t, context.Background(), p)
			if len(o.recs) == 0 {
				t.Fatal("no calls")
			}
			if n := notes.Load(); !tc.want(n) {
				t.Errorf("%d notifications/cancelled reached the target for %d cancelled calls", n, len(o.recs))
			}
		})
	}
}
