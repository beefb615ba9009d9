package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/redact"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// clientPool holds the run's clients: one for HTTP (it keeps its own
// connections; load.ids.connections asks for more), or one per stdio
// server process. A stdio server that died (a kill fault, a crash) is
// started again for later calls. With colliding ids every client numbers
// its calls on its own (cfg.IDs is nil: each Dial makes its own source).
type clientPool struct {
	cfg      client.Config
	slots    []*clientSlot
	target   string
	mu       sync.Mutex
	restarts int
	dead     []*client.Client // replaced clients, for their stats
	// identities are the clients that speak as the plan's identities,
	// by name, dialed on first use (identities.go).
	identities map[string]*client.Client
	pid        int // the HTTP target's process, when known
}

type clientSlot struct {
	mu sync.Mutex
	c  *client.Client
	// restartErr is why the last start of a replacement failed.
	restartErr error
}

// startTarget starts a built-in target if the plan has one and prepares
// the client pool. It returns a function that stops the target.
func (r *runner) startTarget() (func(), error) {
	t := r.plan.Target
	cfg := client.Config{Protocol: r.plan.Protocol, MaxMessageBytes: r.plan.MaxMessageBytes,
		ClientInfo: client.Implementation{Name: "mcpchaos", Version: r.opts.Version}, LateWindow: r.plan.LateWindow, CutLateWindow: r.plan.cutLateWindow(),
		IDs: r.idSource(), ParamHeaders: new(client.ParamHeaders)}
	if r.gw != nil {
		cfg.OnStaleAnswer = r.gw.noteStaleEcho
	}
	if c := r.plan.Client; c != nil {
		a := newAnswers(c, r.plan.Seed)
		r.answers = a
		cfg.Capabilities, cfg.Answerer = a.capabilities(), a
	}
	stop := func() {}
	processes := max(r.plan.Load.IDConnections, 1) // HTTP clients; stdio: its processes
	var desc string
	switch {
	case t.Builtin != nil && t.Builtin.Transport == "stdio":
		cfg.Stdio = &client.StdioConfig{Command: t.Builtin.Command}
		desc = "builtin (stdio)"
		processes = 1
	case t.Builtin != nil:
		if t.Builtin.Start == nil {
			return nil, errors.New("run: builtin target has no way to start")
		}
		url, metricsURL, stopFn, err := t.Builtin.Start()
		if err != nil {
			return nil, fmt.Errorf("run: start builtin target: %w", err)
		}
		stop = stopFn
		r.metricsURL = metricsURL
		cfg.HTTP = &client.HTTPConfig{URL: url}
		desc = "builtin " + url
	case t.Stdio != nil:
		sc := t.Stdio.StdioConfig
		cfg.Stdio = &sc
		processes = max(t.Stdio.Processes, 1)
		desc = strings.Join(sc.Command, " ")
	case t.HTTP != nil:
		hc := *t.HTTP
		cfg.HTTP = &hc
		desc = redact.URL(hc.URL)
	default:
		return nil, errors.New("run: the plan names no target")
	}
	if d := r.plan.Timeouts.Connect; d > 0 {
		cfg.ProbeTimeout = d
		if cfg.HTTP != nil && cfg.HTTP.DialTimeout <= 0 {
			cfg.HTTP.DialTimeout = d
		}
	}
	r.clients = &clientPool{cfg: cfg, target: desc, pid: t.PID}
	for i := 0; i < processes; i++ {
		r.clients.slots = append(r.clients.slots, &clientSlot{})
	}
	return stop, nil
}

func (p *clientPool) dialAll(ctx context.Context) error {
	for i, s := range p.slots {
		c, err := client.Dial(ctx, p.cfg)
		if err != nil {
			return fmt.Errorf("connect to target %s (process %d): %w", p.target, i+1, err)
		}
		s.c = c
	}
	return nil
}

func (p *clientPool) first() *client.Client { return p.slots[0].c }

// notStarted says why process (1-based) has no live server: the error of
// its last restart, quoted.
func (p *clientPool) notStarted(process int) string {
	s := p.slots[(process-1)%len(p.slots)]
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.restartErr == nil {
		return fmt.Sprintf("process %d: the server could not be started again", process)
	}
	return fmt.Sprintf("process %d: the server could not be started again: %v", process, s.restartErr)
}

func (p *clientPool) describe() string { return p.target }

// get returns the client for call seq (round robin over processes). A
// stdio server that will take no new request (it exited, was killed, or had
// its stdin closed) is replaced at once by a new process; the old one is
// kept, for the calls still in flight on it and for its stats.
func (p *clientPool) get(ctx context.Context, seq uint64) (*client.Client, int) {
	i := int(seq % uint64(len(p.slots)))
	return p.current(ctx, i), i + 1
}

// current returns slot i's client, first replacing a retired stdio server;
// nil when the new one could not be started.
func (p *clientPool) current(ctx context.Context, i int) *client.Client {
	s := p.slots[i]
	s.mu.Lock()
	defer s.mu.Unlock()
	if retired := s.c.Retired(); retired != nil {
		select {
		case <-retired:
			dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			c, err := client.Dial(dctx, p.cfg)
			cancel()
			if err != nil {
				s.restartErr = err
				return nil
			}
			p.mu.Lock()
			p.restarts++
			p.dead = append(p.dead, s.c)
			p.mu.Unlock()
			s.c = c
		default:
		}
	}
	return s.c
}

// stats sums the connection-level observations of every client, dead ones
// included, and collects stderr tails.
func (p *clientPool) stats() (client.Stats, [][]byte, int) {
	var sum client.Stats
	var stderr [][]byte
	add := func(c *client.Client) {
		s := c.Stats()
		sum.NotJSONRPC += s.NotJSONRPC
		sum.Oversize += s.Oversize
		sum.UnknownResponses += s.UnknownResponses
		sum.UnknownTokens += s.UnknownTokens
		sum.Stale += s.Stale
		sum.StaleAnswers += s.StaleAnswers
		sum.ServerRequests += s.ServerRequests
		sum.ServerCancels += s.ServerCancels
		sum.OtherStream += s.OtherStream
		sum.GetStreams += s.GetStreams
		sum.InputElicitation += s.InputElicitation
		sum.InputSampling += s.InputSampling
		sum.InputRoots += s.InputRoots
		sum.UndeclaredInput += s.UndeclaredInput
		sum.InputMethod += s.InputMethod
		sum.ContentMismatch += s.ContentMismatch
		if b := c.Stderr(); len(b) > 0 {
			stderr = append(stderr, b)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.dead {
		add(c)
	}
	for _, s := range p.slots {
		if s.c != nil {
			add(s.c)
		}
	}
	return sum, stderr, p.restarts
}

func (p *clientPool) closeAll() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	closeOne := func(c *client.Client) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.Close(ctx)
		}()
	}
	for _, s := range p.slots {
		if s.c != nil {
			closeOne(s.c)
		}
	}
	p.mu.Lock()
	for _, c := range p.dead {
		closeOne(c) // a replaced server may still be running
	}
	for _, c := range p.identities {
		closeOne(c)
	}
	p.mu.Unlock()
	wg.Wait()
}

// pids returns the process ids of the stdio servers still running — the
// current ones, and the replaced ones while they live on (after a
// disconnect, until they exit) — and the HTTP target's, when the plan
// names it, for the process probe. A server that exited and was not
// replaced yet (the next call starts a new one) is not listed: nothing of
// it runs.
func (p *clientPool) pids() []int {
	var out []int
	if p.pid != 0 {
		out = append(out, p.pid)
	}
	add := func(c *client.Client) {
		if c == nil {
			return
		}
		select {
		case <-c.Exited():
			return
		default:
		}
		if pid := c.PID(); pid != 0 {
			out = append(out, pid)
		}
	}
	for _, s := range p.slots {
		s.mu.Lock()
		add(s.c)
		s.mu.Unlock()
	}
	p.mu.Lock()
	for _, c := range p.dead {
		add(c)
	}
	p.mu.Unlock()
	return out
}

// exitedCPU sums the CPU-seconds of the stdio servers the run started
// that exited and were reaped, but for the pids read says were read live
// (probes.Process.WithExited).
func (p *clientPool) exitedCPU(read func(pid int) bool) float64 {
	var sum time.Duration
	counted := map[*client.Client]bool{} // all() may list a client replaced meanwhile twice
	for _, c := range p.all() {
		if cpu, ok := c.ExitCPU(); ok && !counted[c] && !read(c.PID()) {
			counted[c] = true
			sum += cpu
		}
	}
	return sum.Seconds()
}

// serverPIDs returns the process id of every stdio server the run
// started, running or not: the children of this process that are not
// orphans it adopted.
func (p *clientPool) serverPIDs() []int {
	var out []int
	for _, c := range p.all() {
		if pid := c.PID(); pid != 0 {
			out = append(out, pid)
		}
	}
	return out
}

// all returns every client: the current ones and the replaced ones.
func (p *clientPool) all() []*client.Client {
	var out []*client.Client
	for _, s := range p.slots {
		s.mu.Lock()
		if s.c != nil {
			out = append(out, s.c)
		}
		s.mu.Unlock()
	}
	p.mu.Lock()
	out = append(out, p.dead...)
	p.mu.Unlock()
	return out
}

// idSource is the run's id source (load.ids): one sequence for every
// client, shuffled or not; nil for colliding ids, so that each client
// makes its own and counts from 1.
func (r *runner) idSource() *client.IDSource {
	switch r.plan.Load.IDs {
	case scenarios.IDsColliding:
		return nil
	case scenarios.IDsShuffled:
		return client.NewShuffledIDs(r.plan.Seed)
	}
	return new(client.IDSource)
}
