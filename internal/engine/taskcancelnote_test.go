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
		task bool
	}{
		{"task call: none", taskCall(30, 100), true},
		{"plain call: some", slowTask(30, 100), false},
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
			p.Faults = []faults.Fault{scenarioFault(t, "{kind: cancel, after: 1s, also_notify: true}")}
			o := runLoad(t, context.Background(), p)
			if len(o.recs) == 0 {
				t.Fatal("no calls")
			}
			// A cancel that came before the server turned the call into a
			// task (a starved machine) cancels a plain request, and may
			// notify: those are the only notifications a task call allows.
			early := 0
			for _, r := range o.recs {
				if r.Task == nil || r.Task.CancelUs == 0 {
					early++
				}
			}
			n := notes.Load()
			switch {
			case tc.task && (early == len(o.recs) || n > int64(early)):
				t.Errorf("%d notifications/cancelled for %d task calls, %d of them cancelled before their task existed; want none for a task's cancel", n, len(o.recs), early)
			case !tc.task && n == 0:
				t.Errorf("no notifications/cancelled for %d plain calls cancelled with also_notify: the count in front of the target sees nothing", len(o.recs))
			}
		})
	}
}
