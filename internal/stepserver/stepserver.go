// Package stepserver is a test helper: a real MCP server built on the
// official Go SDK, on mark3labs/mcp-go or on the TypeScript SDK v2 (a node
// script, ts/stepserver.mjs, that Command runs), over stdio or Streamable HTTP,
// whose one tool, work, runs CPU-bound steps (or, as a control, steps that
// sleep) and writes every step it finishes to a truth file. It is the ground truth the black-box orphan
// verdicts are held against (e2e's interop tests, bench's agreement
// table): a call cut by mcpchaos ran on past cut + grace exactly when the
// server logged a step that ended later than that.
//
// A server that stops (Leak false) checks its context inside every step
// and returns "stopped at step N: context canceled"; one that leaks runs
// every step whatever happens. How a cancel reaches the context is the
// SDK's own: notifications/cancelled on stdio and on a 2025 HTTP session;
// the closed stream of a 2026 HTTP request reaches a Go SDK handler only
// with PropagateRequestCancellation, which a stopping Go SDK server sets
// and a leaking one does not (the SDK's default). The TypeScript SDK aborts
// a handler's AbortSignal on a notifications/cancelled or when the
// request's HTTP stream closes; its steps burn in slices of about 2 ms and
// yield to node's event loop between them, so that a cancel is read at all
// (ts/stepserver.mjs).
package stepserver

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Env configures a step server run by re-executing a test binary:
// "SDK,TRANSPORT,MODE" with SDK gosdk, mcpgo or tssdk, TRANSPORT stdio or http,
// MODE leak or stop, and ",sleep" after it for a server whose steps sleep
// instead of computing; TruthEnv names the truth file.
const (
	Env      = "MCPCHAOS_STEPSERVER"
	TruthEnv = "MCPCHAOS_STEPSERVER_TRUTH"
)

// Config is one step server.
type Config struct {
	SDK       string // "gosdk", "mcpgo" or "tssdk"
	Transport string // "stdio" or "http"
	Leak      bool   // run every step whatever happens
	// Sleep: each step sleeps instead of computing, the control for
	// rules that tell CPU-bound work from sleeping work (a process probe
	// cannot see sleeping work, so its verdict should be not_observable).
	Sleep bool
	Truth string // the truth file
}

// String is the Env form of c.
func (c Config) String() string {
	mode := "stop"
	if c.Leak {
		mode = "leak"
	}
	if c.Sleep {
		mode += ",sleep"
	}
	return c.SDK + "," + c.Transport + "," + mode
}

// FromEnv reads a Config from Env and TruthEnv; ok is false when Env is
// not set.
func FromEnv() (c Config, ok bool, err error) {
	v := os.Getenv(Env)
	if v == "" {
		return c, false, nil
	}
	parts := strings.Split(v, ",")
	if len(parts) != 3 && (len(parts) != 4 || parts[3] != "sleep") {
		return c, true, fmt.Errorf("%s=%q: want SDK,TRANSPORT,MODE or SDK,TRANSPORT,MODE,sleep", Env, v)
	}
	c = Config{SDK: parts[0], Transport: parts[1], Leak: parts[2] == "leak", Sleep: len(parts) == 4, Truth: os.Getenv(TruthEnv)}
	switch {
	case c.SDK != "gosdk" && c.SDK != "mcpgo" && c.SDK != "tssdk":
		err = fmt.Errorf("%s: unknown SDK %q (gosdk, mcpgo, tssdk)", Env, c.SDK)
	case c.Transport != "stdio" && c.Transport != "http":
		err = fmt.Errorf("%s: unknown transport %q (stdio, http)", Env, c.Transport)
	case parts[2] != "leak" && parts[2] != "stop":
		err = fmt.Errorf("%s: unknown mode %q (leak, stop)", Env, parts[2])
	case c.Truth == "":
		err = fmt.Errorf("%s is not set", TruthEnv)
	}
	return c, true, err
}

// Serve runs a Go SDK's server until stdin ends (stdio) or for ever (HTTP:
// it prints its URL first); it returns an exit code. The tssdk server is
// node's (Command).
func Serve(c Config) int {
	if c.SDK == "tssdk" {
		fmt.Fprintln(os.Stderr, errNodeServed)
		return 2
	}
	f, err := os.OpenFile(c.Truth, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer f.Close()
	w := &worker{leak: c.Leak, sleep: c.Sleep, truth: f}
	switch c.SDK {
	case "gosdk":
		err = serveGoSDK(c, w)
	default:
		err = serveMCPGo(c, w)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// worker runs the steps of calls and logs them.
type worker struct {
	leak  bool
	sleep bool // steps sleep instead of computing
	mu    sync.Mutex
	truth *os.File
}

// log writes one truth line: "UNIX_NANO TOKEN WHAT STEP".
func (w *worker) log(token any, what string, step int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fmt.Fprintf(w.truth, "%d %v %s %d\n", time.Now().UnixNano(), token, what, step)
}

// run runs steps of stepMs each (of CPU, or asleep) for token, calling
// progress after each; a stopping worker returns at once when ctx ends,
// inside a step.
func (w *worker) run(ctx context.Context, token any, steps, stepMs int, progress func(n int)) (string, error) {
	d := time.Duration(stepMs) * time.Millisecond
	for n := 1; n <= steps; n++ {
		step := burn
		if w.sleep {
			step = rest
		}
		if !step(ctx, d, w.leak) {
			w.log(token, "stop", n)
			return "", fmt.Errorf("stopped at step %d: %w", n, ctx.Err())
		}
		w.log(token, "step", n)
		progress(n)
	}
	return fmt.Sprintf("worked %d steps of %d ms", steps, stepMs), nil
}

// burn spins for d; unless leak, it checks ctx every slice and reports
// false when it ended.
func burn(ctx context.Context, d time.Duration, leak bool) bool {
	end := time.Now().Add(d)
	x := uint64(1)
	for time.Now().Before(end) {
		if !leak && ctx.Err() != nil {
			return false
		}
		for range 4096 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	sink.Store(x)
	return true
}

// rest sleeps for d; unless leak, it reports false as soon as ctx ends.
func rest(ctx context.Context, d time.Duration, leak bool) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	if leak {
		<-t.C
		return true
	}
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// sink keeps the burn's work from being optimised away.
var sink atomic.Uint64
