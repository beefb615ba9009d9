package gateways

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/report"
)

// holdAnswers streams every answer but holds each tools/call's result
// until the client ends its 2025 session (DELETE): then it writes them
// all and, a while after, lets the DELETE through. mcpchaos reads the
// truth for the last time before it closes its connections, so those
// answers reach it after its last read.
type holdAnswers struct {
	upstream      string
	release       chan struct{} // closed at the first DELETE
	once          sync.Once
	held, written atomic.Int64
}

// deleteDelay is how long the DELETE waits after the held answers went
// out: time for the client to read them before it closes their streams.
const deleteDelay = 2 * time.Second

func (g *holdAnswers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodDelete {
		g.once.Do(func() { close(g.release) })
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for deadline := time.Now().Add(10 * time.Second); g.written.Load() < g.held.Load() && time.Now().Before(deadline); {
			<-tick.C
		}
		select {
		case <-time.After(deleteDelay):
		case <-r.Context().Done():
		}
		relayCallEvents(w, r, g.upstream, nil, nil)
		return
	}
	relayCallEvents(w, r, g.upstream, func(out *writer, ev event) {
		if m, ok := parseMessage(ev.data); ok && m.isResponse() {
			g.held.Add(1)
			select {
			case <-g.release:
			case <-time.After(time.Minute):
			}
			out.write(ev.encode())
			g.written.Add(1)
			return
		}
		out.write(ev.encode())
	}, nil)
}

// TestEchoAfterLastTruthRead: a target that learns of every cancel and
// runs on anyway, behind a gateway that holds each answer until the
// session ends. The records read show every call cancelled and run to
// its end; the answers, each echoing its call's marker, come after the
// last read of the truth, so what answered may be an execution the
// records read do not hold: the gateway verdict is not_observable
// (gateway.echoes_after_truth), never pass. Before, the join was made
// before the connections closed, those answers were never counted, and
// the verdict passed.
func TestEchoAfterLastTruthRead(t *testing.T) {
	t.Parallel()
	tg := target(t, targetserver.Config{LeakOnCancel: 1})
	gw := &holdAnswers{upstream: base(tg), release: make(chan struct{})}
	o := run(t, scenario(serve(t, gw), "2025-11-25", []string{base(tg)}, `
load: {rate: 4/1s, duration: 1s}
calls:
  - {tool: slow_task, arguments: {steps: 6, step_ms: 200}, progress: true}
faults:
  - {kind: cancel, probability: 1, after: 300ms}
`))
	g := o.Sum.Gateway
	cancelled, written := o.Sum.Calls.Cancelled, int(gw.written.Load())
	if g == nil || cancelled == 0 || written == 0 {
		o.Dump(t)
		t.Fatalf("gateway %v, %d cancelled, %d answers held and written: the test proves nothing", g, cancelled, written)
	}
	if g.EchoesAfterTruth != written || g.LostCancels != 0 || g.Stops.Cancelled.RanOn != cancelled || len(g.Errors) > 0 {
		o.Dump(t)
		t.Errorf("gateway %+v, errors %v; want %d echoes after the truth (the answers the gateway held), no lost cancel, %d calls ran on",
			g.GatewayCounts, g.Errors, written, cancelled)
	}
	if v := verdict(t, o, report.AreaGateway); v.Status != report.StatusNotObservable || !strings.Contains(v.Evidence, "gateway.echoes_after_truth") {
		t.Errorf("gateway verdict %q: %s; want not_observable for an echo after the last read of the truth", v.Status, v.Evidence)
	}
}
