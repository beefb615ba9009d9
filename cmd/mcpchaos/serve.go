package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpchaos/mcpchaos/targetserver"
)

// serveCmd runs the built-in target server: Streamable HTTP (both protocol
// eras by default) with metrics beside it, or stdio.
func serveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return serve(ctx, args, os.Stdin, stdout, stderr)
}

// serveFlags are the command line of `mcpchaos serve`.
type serveFlags struct {
	listen        string
	stdio         bool
	metricsListen string
	propagate     bool
	rateLimit     string
	cfg           targetserver.Config
}

func newServeFlags(stdout io.Writer) (*pflag.FlagSet, *serveFlags) {
	f := &serveFlags{}
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(stdout)
	fs.Usage = func() {
		fmt.Fprintln(stdout, "usage: mcpchaos serve [--listen ADDR | --stdio [--metrics-listen ADDR]] [knobs]")
		fmt.Fprintln(stdout)
		fmt.Fprintln(stdout, "Runs the built-in target MCP server (tools echo, slow_task, cpu_task, inflight).")
		fmt.Fprintln(stdout, "Every knob is off by default: the server then behaves correctly.")
		fmt.Fprintln(stdout)
		fmt.Fprint(stdout, fs.FlagUsages())
	}
	c := &f.cfg
	fs.StringVar(&f.listen, "listen", "127.0.0.1:8080", "serve Streamable HTTP on /mcp and metrics on /metrics at `ADDR`")
	fs.BoolVar(&f.stdio, "stdio", false, "serve MCP on stdin/stdout instead of HTTP")
	fs.StringVar(&f.metricsListen, "metrics-listen", "", "with --stdio, serve /metrics at `ADDR` (default: no metrics endpoint)")
	fs.StringVar(&c.Era, "era", targetserver.EraDual, "protocol eras HTTP serves, `ERA` = dual (route by MCP-Protocol-Version), 2026 (stateless only) or 2025 (sessions only)")
	fs.Int64Var(&c.Seed, "seed", 0, "`SEED` of every random draw (leak and non-monotonic draws)")
	fs.Float64Var(&c.LeakOnCancel, "leak-on-cancel", 0, "probability `P` that a call ignores its cancel and runs to the end")
	fs.DurationVar(&c.StopDelay, "stop-delay", 0, "a cancelled call notices the cancel only after `D`")
	fs.BoolVar(&f.propagate, "propagate-cancel", true, "on 2026 HTTP, a closed stream cancels the call (false: the SDK default, work runs on)")
	fs.Float64Var(&c.ProgressFloodHz, "progress-flood-hz", 0, "extra progress notifications, `N` per second per call, still increasing")
	fs.IntVar(&c.StallAfter, "stall-after", 0, "progress stops after `N` steps while the call keeps working (0: never)")
	fs.BoolVar(&c.Endless, "endless", false, "step tools never finish; they send progress until cancelled")
	fs.Float64Var(&c.NonMonotonic, "non-monotonic", 0, "probability `P` that a progress notification repeats or lowers the previous value")
	fs.BoolVar(&c.ProgressAfterResponse, "progress-after-response", false, "send one more progress notification ~10ms after the result")
	fs.StringVar(&f.rateLimit, "rate-limit", "", "throttle tools/call to `R` (N/duration, e.g. 100/1s: at most N calls in any window of that duration): HTTP 429 or a JSON-RPC error")
	fs.IntVar(&c.RateLimitCode, "rate-limit-code", targetserver.DefaultRateLimitCode, "JSON-RPC error `CODE` of a throttled stdio call")
	fs.DurationVar(&c.ExitDelay, "exit-delay", 0, "with --stdio, exit only `D` after stdin closes")
	return fs, f
}

// config checks the flags and returns the target configuration. Errors name
// the flag and quote its value.
func (f *serveFlags) config(fs *pflag.FlagSet) (targetserver.Config, error) {
	if fs.NArg() > 0 {
		return targetserver.Config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if f.stdio && fs.Changed("listen") {
		return targetserver.Config{}, errors.New("--listen and --stdio exclude each other (use --metrics-listen for metrics with --stdio)")
	}
	if !f.stdio && fs.Changed("metrics-listen") {
		return targetserver.Config{}, errors.New("--metrics-listen needs --stdio (over HTTP, metrics are on /metrics of --listen)")
	}
	cfg := f.cfg
	cfg.NoPropagateCancel = !f.propagate
	if f.rateLimit != "" {
		r, err := targetserver.ParseRate(f.rateLimit)
		if err != nil {
			return targetserver.Config{}, fmt.Errorf("--rate-limit: %w", err)
		}
		cfg.RateLimit = r
	}
	if err := cfg.Validate(); err != nil {
		var fe *targetserver.FieldError
		if errors.As(err, &fe) {
			return targetserver.Config{}, fmt.Errorf("--%s %q: want %s", strings.ReplaceAll(fe.Field, "_", "-"), fe.Value, fe.Want)
		}
		return targetserver.Config{}, err
	}
	return cfg, nil
}

// serve is serveCmd with stdin explicit, for tests.
func serve(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, f := newServeFlags(stdout)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "mcpchaos serve: %v (see mcpchaos serve --help)\n", err)
		return 2
	}
	cfg, err := f.config(fs)
	if err != nil {
		fmt.Fprintf(stderr, "mcpchaos serve: %v\n", err)
		return 2
	}
	if f.stdio {
		return serveStdio(ctx, cfg, f.metricsListen, stdin, stdout, stderr)
	}
	return serveHTTP(ctx, cfg, f.listen, stderr)
}

func serveHTTP(ctx context.Context, cfg targetserver.Config, addr string, stderr io.Writer) int {
	r, err := targetserver.StartHTTP(ctx, cfg, addr)
	if err != nil {
		fmt.Fprintf(stderr, "mcpchaos serve: %v\n", err)
		return 2
	}
	defer r.Close()
	fmt.Fprintf(stderr, "mcpchaos serve: MCP on %s, metrics on %s (era %s; %s)\n",
		r.URL, r.MetricsURL, eraName(cfg), knobSummary(cfg))
	served := make(chan error, 1)
	go func() { served <- r.Wait() }()
	select {
	case <-ctx.Done():
		r.Close()
		return 0
	case err := <-served:
		if err != nil {
			fmt.Fprintf(stderr, "mcpchaos serve: %v\n", err)
			return 1
		}
		return 0
	}
}

func serveStdio(ctx context.Context, cfg targetserver.Config, metricsAddr string, stdin io.Reader, stdout, stderr io.Writer) int {
	s, err := targetserver.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "mcpchaos serve: %v\n", err)
		return 2
	}
	defer s.Close()
	where := "no metrics endpoint"
	if metricsAddr != "" {
		var lc net.ListenConfig
		ln, err := lc.Listen(ctx, "tcp", metricsAddr)
		if err != nil {
			fmt.Fprintf(stderr, "mcpchaos serve: metrics: listen on %q: %v\n", metricsAddr, err)
			return 2
		}
		hs := &http.Server{Handler: metricsMux(s), ReadHeaderTimeout: 10 * time.Second}
		go hs.Serve(ln)
		defer hs.Close()
		where = "metrics on http://" + ln.Addr().String() + "/metrics"
	}
	// stdout carries the protocol: the status line goes to stderr.
	fmt.Fprintf(stderr, "mcpchaos serve: MCP on stdio, %s (%s)\n", where, knobSummary(cfg))
	if err := s.ServeStdio(ctx, stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "mcpchaos serve: %v\n", err)
		return 1
	}
	return 0
}

func metricsMux(s *targetserver.Server) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", s.MetricsHandler())
	return mux
}

func eraName(cfg targetserver.Config) string {
	if cfg.Era == "" {
		return targetserver.EraDual
	}
	return cfg.Era
}

// knobSummary lists the knobs that differ from a correct server.
func knobSummary(cfg targetserver.Config) string {
	var on []string
	add := func(set bool, format string, v ...any) {
		if set {
			on = append(on, fmt.Sprintf(format, v...))
		}
	}
	add(cfg.LeakOnCancel > 0, "leak-on-cancel %g", cfg.LeakOnCancel)
	add(cfg.StopDelay > 0, "stop-delay %s", cfg.StopDelay)
	add(cfg.NoPropagateCancel, "propagate-cancel false")
	add(cfg.ProgressFloodHz > 0, "progress-flood-hz %g", cfg.ProgressFloodHz)
	add(cfg.StallAfter > 0, "stall-after %d", cfg.StallAfter)
	add(cfg.Endless, "endless")
	add(cfg.NonMonotonic > 0, "non-monotonic %g", cfg.NonMonotonic)
	add(cfg.ProgressAfterResponse, "progress-after-response")
	add(!cfg.RateLimit.IsZero(), "rate-limit %s", cfg.RateLimit)
	add(cfg.ExitDelay > 0, "exit-delay %s", cfg.ExitDelay)
	if len(on) == 0 {
		return "no misbehaviour knobs"
	}
	return "knobs: " + strings.Join(on, ", ") + fmt.Sprintf(", seed %d", cfg.Seed)
}
