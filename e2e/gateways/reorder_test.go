package gateways

import (
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/report"
)

// reorder streams every answer, but holds a tools/call's progress
// notifications and writes them after its result, as a gateway that
// relays progress on another path than the answer may deliver them.
// moved counts the notifications it put after a result; held the calls.
type reorder struct {
	upstream    string
	moved, held atomic.Int64
}

func (g *reorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var held [][]byte
	relayCallEvents(w, r, g.upstream, func(out *writer, ev event) {
		m, ok := parseMessage(ev.data)
		switch {
		case ok && m.method() == "notifications/progress":
			held = append(held, ev.encode())
		case ok && m.isResponse():
			out.write(ev.encode())
			if len(held) > 0 {
				g.held.Add(1)
			}
			for _, h := range held {
				out.write(h)
				g.moved.Add(1)
			}
			held = nil
		default:
			out.write(ev.encode())
		}
	}, nil)
}

// TestReorderingGatewayNotBlamedOnServer: notifications a gateway moves
// after the result are the client's after_response violations, yet the
// target sent each before its result: the gateway verdict counts them
// (gateway.progress_reordered, as many as the gateway moved), and the
// progress verdict does not blame the server.
func TestReorderingGatewayNotBlamedOnServer(t *testing.T) {
	t.Parallel()
	tg := target(t, targetserver.Config{})
	gw := &reorder{upstream: base(tg)}
	o := run(t, scenario(serve(t, gw), "2025-11-25", []string{base(tg)}, `
load: {rate: 10/1s, duration: 2s}
calls:
  - {tool: slow_task, arguments: {steps: 4, step_ms: 30}, progress: true}
`))
	moved, held := int(gw.moved.Load()), int(gw.held.Load())
	if moved == 0 {
		t.Fatal("the gateway moved no notification: the test proves nothing")
	}
	if got := o.Sum.Progress.Violations.AfterResponse; got != moved {
		t.Errorf("progress.violations.after_response = %d, the gateway moved %d", got, moved)
	}
	wantOnly(t, o, map[string]int{"progress_reordered": moved, "progress_held": held})
	for _, v := range o.Sum.Verdicts {
		if v.Area != report.AreaProgress {
			continue
		}
		if v.Status == report.StatusViolation {
			t.Errorf("progress verdict %q: %s; want the server not blamed", v.Status, v.Evidence)
		}
		t.Logf("progress verdict %s: %s", v.Status, v.Evidence)
	}
}
