package gateways

import (
	"bytes"
	"io"
	"net/http"
	"regexp"
	"sync/atomic"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/report"
)

// dropCancel passes everything on as the transparent proxy does, except a
// POST of notifications/cancelled, which it answers 202 Accepted and never
// forwards: a 2025 gateway that loses our cancels, as mcp-remote 0.15.1
// does in front of a 2026-07-28 server. dropped counts them.
type dropCancel struct {
	next    http.Handler
	dropped atomic.Int64
}

func (g *dropCancel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "read the request: "+err.Error(), http.StatusBadRequest)
			return
		}
		if m, ok := parseMessage(body); ok && m.method() == "notifications/cancelled" {
			g.dropped.Add(1)
			w.WriteHeader(http.StatusAccepted)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	g.next.ServeHTTP(w, r)
}

// blamedAfterCancel finds the after_cancel count a progress verdict blames
// on the server ("after_cancel 3").
var blamedAfterCancel = regexp.MustCompile(`\bafter_cancel \d+`)

// TestLostCancelProgressIsTheGateways: a target that would stop at our
// cancel but is never told (the gateway drops it) goes on sending
// progress; that progress is the gateway's
// (gateway.progress_after_lost_cancel), and the progress verdict does not
// name after_cancel. The control: through a transparent proxy, a target
// that learns of each cancel and ignores it (leak_on_cancel 1) is still a
// progress violation naming after_cancel, with nothing taken off it.
func TestLostCancelProgressIsTheGateways(t *testing.T) {
	t.Parallel()
	const body = `
load: {rate: 5/1s, duration: 2s}
calls:
  - {tool: slow_task, arguments: {steps: 10, step_ms: 100}, progress: true}
faults:
  - {kind: cancel, probability: 0.5, after_progress: 1}
`
	t.Run("a gateway that drops cancels", func(t *testing.T) {
		t.Parallel()
		tg := target(t, targetserver.Config{})
		gw := &dropCancel{next: transparent(t, base(tg))}
		o := run(t, scenario(serve(t, gw), "2025-11-25", []string{base(tg)}, body))
		g, late := o.Sum.Gateway, o.Sum.Progress.Violations.AfterCancel
		if gw.dropped.Load() == 0 || late == 0 {
			o.Dump(t)
			t.Fatalf("the gateway dropped %d cancels, and %d notifications came after one: the test proves nothing", gw.dropped.Load(), late)
		}
		if g.LostCancels == 0 || g.ProgressAfterLostCancel == 0 || g.ProgressAfterLostCancel+g.ProgressAfterCancelUnknown != late {
			t.Errorf("gateway.lost_cancels %d, progress_after_lost_cancel %d, progress_after_cancel_unknown %d; want the %d notifications after our cancels all the gateway's or unknown, some lost",
				g.LostCancels, g.ProgressAfterLostCancel, g.ProgressAfterCancelUnknown, late)
		}
		if v := verdict(t, o, report.AreaProgress); v.Status == report.StatusViolation || blamedAfterCancel.MatchString(v.Evidence) {
			t.Errorf("progress verdict %q (%s): the server blamed for progress after cancels it never learned of", v.Status, v.Evidence)
		}
	})
	t.Run("a transparent gateway, a server that ignores cancels", func(t *testing.T) {
		t.Parallel()
		tg := target(t, targetserver.Config{LeakOnCancel: 1})
		o := run(t, scenario(serve(t, transparent(t, base(tg))), "2025-11-25", []string{base(tg)}, body))
		g := o.Sum.Gateway
		if o.Sum.Progress.Violations.AfterCancel == 0 {
			o.Dump(t)
			t.Fatal("no notification came after a cancel: the control proves nothing")
		}
		if g.LostCancels != 0 || g.ProgressAfterLostCancel != 0 {
			t.Errorf("gateway.lost_cancels %d, progress_after_lost_cancel %d: a cancel the target learned of taken for lost", g.LostCancels, g.ProgressAfterLostCancel)
		}
		if v := verdict(t, o, report.AreaProgress); v.Status != report.StatusViolation || !blamedAfterCancel.MatchString(v.Evidence) {
			t.Errorf("progress verdict %q (%s), want a violation naming after_cancel", v.Status, v.Evidence)
		}
	})
}
