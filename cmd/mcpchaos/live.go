package main

import (
	"context"
	"fmt"
	"io"
	"net"

	"github.com/mcpchaos/mcpchaos/internal/engine"
	"github.com/mcpchaos/mcpchaos/internal/livemetrics"
	"github.com/mcpchaos/mcpchaos/results"
)

// serveLive serves the run's live metrics on addr (run --metrics-listen),
// fed by the run's sink, status tick and probe samples; stop ends it.
func serveLive(ctx context.Context, opts *engine.Options, addr, scenario string, shard engine.Shard, stderr io.Writer) (stop func(), err error) {
	label := ""
	if shard.Count > 0 {
		label = shard.String()
	}
	m := livemetrics.New(scenario, label)
	bound, stop, err := m.Serve(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-listen: %w", err)
	}
	fmt.Fprintf(stderr, "mcpchaos run: live metrics on http://%s/metrics\n", bound)
	noteEveryInterface(stderr, "mcpchaos run", addr, bound)
	sink, tick, sample := opts.Sink, opts.Tick, opts.OnSample
	opts.Sink = func(r *results.Record) {
		m.Record(r)
		if sink != nil {
			sink(r)
		}
	}
	opts.Tick = func(l engine.Live) {
		m.Tick(l.Scheduled, l.Dropped, l.InFlight, l.Offered)
		if tick != nil {
			tick(l)
		}
	}
	opts.OnSample = func(s *results.Sample) {
		m.Sample(s)
		if sample != nil {
			sample(s)
		}
	}
	return stop, nil
}

// noteEveryInterface says on stderr when a listen address (given as addr,
// bound at bound) names no host, or an unspecified one (":9090",
// "0.0.0.0:9090", "[::]:9090"): the server answers on every network
// interface of the machine, not this machine alone. That is what a pod
// scraped by Prometheus wants, so it is not refused; but it is said.
func noteEveryInterface(stderr io.Writer, cmd, addr, bound string) {
	host, port, err := net.SplitHostPort(bound)
	if err != nil {
		return
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsUnspecified() {
		return
	}
	fmt.Fprintf(stderr, "%s: note: --metrics-listen %q serves every network interface of this machine; "+
		"give a host to serve one, e.g. 127.0.0.1:%s for this machine alone\n", cmd, addr, port)
}
