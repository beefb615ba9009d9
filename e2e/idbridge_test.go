package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/results"
)

// idBridge is a Streamable HTTP to stdio bridge of the naive kind: every
// POST is written to one stdio server (`mcpchaos serve --stdio`) as it is,
// and the answer read back is handed to the POST waiting for that id. It
// keys its waiting requests by the JSON-RPC id alone, so two clients that
// use the same id at once get each other's answer, or none.
type idBridge struct {
	stdin   io.Writer
	mu      sync.Mutex
	waiting map[string]chan []byte // by raw id
}

func startIDBridge(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin.Need(t), "serve", "--stdio")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &idBridge{stdin: stdin, waiting: map[string]chan []byte{}}
	go b.route(stdout)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: b, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = srv.Close()
		stdin.Close()
		cancel()
		_ = cmd.Wait()
	})
	return "http://" + ln.Addr().String() + "/mcp"
}

// route hands each answer on the server's stdout to the POST waiting for
// its id; notifications are dropped.
func (b *idBridge) route(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || len(m.ID) == 0 {
			continue
		}
		b.mu.Lock()
		ch := b.waiting[string(m.ID)]
		delete(b.waiting, string(m.ID))
		b.mu.Unlock()
		if ch != nil {
			ch <- append([]byte(nil), sc.Bytes()...)
		}
	}
}

func (b *idBridge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return
	}
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(body, &m)
	var ch chan []byte
	if len(m.ID) > 0 {
		ch = make(chan []byte, 1)
		b.mu.Lock()
		b.waiting[string(m.ID)] = ch // the bug: a second request with this id replaces the first
		b.mu.Unlock()
	}
	b.mu.Lock()
	_, err = b.stdin.Write(append(body, '\n'))
	b.mu.Unlock()
	if err != nil || ch == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	select {
	case answer := <-ch:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	case <-r.Context().Done():
	}
}

// TestIDsCatchBridge: a bridge that keys requests by id alone works with
// sequential ids, but colliding ids (the same id on two connections at
// once) lose answers through it: some calls never get theirs and time
// out, while calls from one sequence all succeed.
func TestIDsCatchBridge(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, ids string
		lost      bool
	}{
		{name: "sequential", ids: "{mode: sequential}"},
		{name: "colliding", ids: "{mode: colliding, connections: 2}", lost: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url := startIDBridge(t)
			sc := runtest.Parse(t, `
name: id-bridge
seed: 16
target: {http: {url: "`+url+`"}}
load: {rate: 20/1s, duration: 2s, ids: `+tc.ids+`}
timeouts: {idle: 2s, max: 5s}
calls:
  - {tool: slow_task, arguments: {steps: 2, step_ms: 150}, progress: false}
`)
			o := runPlan(t, sc, planOf(t, sc))
			s := o.Sum
			lost := s.Calls.Total - s.Calls.OK
			if s.Calls.Total == 0 || (lost > 0) != tc.lost {
				t.Errorf("%d of %d calls got no answer, want some: %v", lost, s.Calls.Total, tc.lost)
			}
			for _, rec := range o.Recs {
				if rec.Outcome != results.OK && rec.Outcome != results.TimeoutIdle {
					t.Errorf("call %d: outcome %s (%s), want ok or timeout_idle", rec.Seq, rec.Outcome, rec.Error)
				}
			}
		})
	}
}
