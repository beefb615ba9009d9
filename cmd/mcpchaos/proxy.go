package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/spf13/pflag"

	"github.com/mcpchaos/mcpchaos/internal/proxy"
	"github.com/mcpchaos/mcpchaos/internal/redact"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/report"
)

type proxyFlags struct {
	summaryJSON string
	output      string
	stdio       bool
}

func newProxyFlags(stdout io.Writer) (*pflag.FlagSet, *proxyFlags) {
	f := &proxyFlags{}
	fs := newFlagSet("proxy", stdout,
		"usage: mcpchaos proxy [--stdio] [--summary-json FILE] [--output FILE] PROXY.yaml",
		"",
		"A fault-injecting MCP proxy for testing clients and gateways: it serves",
		"Streamable HTTP at /mcp (and the 2024-11-05 HTTP+SSE transport at /sse) on",
		"the file's listen address, forwards to its upstream, injects the file's",
		"faults toward the client and records how the client reacted. It runs until",
		"interrupted, then prints the summary and writes the outputs.",
		"")
	fs.StringVar(&f.summaryJSON, "summary-json", "", "write the summary as JSON to `FILE`")
	fs.StringVar(&f.output, "output", "", "write one JSON record per call to `FILE`, as each call ends")
	fs.BoolVar(&f.stdio, "stdio", false, "be a stdio server for a client that spawns the proxy (listen is not used; the summary goes to stderr)")
	return fs, f
}

// proxyCmd implements "mcpchaos proxy PROXY.yaml".
func proxyCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, f := newProxyFlags(stdout)
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "mcpchaos proxy: want exactly one proxy file (see mcpchaos proxy --help)")
		return exitUsage
	}
	pf, p, ok := loadProxy(ctx, fs.Arg(0), f, stderr)
	if !ok {
		return exitUsage
	}
	// Each call's record is written to --output as the call settles, so
	// the file is created (or refused) before anything listens; a later
	// check that fails removes it again, as run's outputs.abort does.
	var out io.WriteCloser
	if f.output != "" {
		var err error
		if out, err = createOutput(ctx, f.output, jsonOutput); err != nil {
			fmt.Fprintf(stderr, "mcpchaos proxy: --output: %v\n", err)
			return exitUsage
		}
		p.SetOutput(out)
	}
	abort := func() {
		p.SetOutput(nil)
		if out != nil {
			out.Close()
			os.Remove(f.output)
		}
	}
	if err := p.CheckUpstream(ctx); err != nil {
		abort()
		return fail(stderr, "proxy", err)
	}
	var serveErr error
	if f.stdio {
		fmt.Fprintf(stderr, "mcpchaos proxy: serving stdio, forwarding to %s (close stdin or interrupt to stop)\n", p.Upstream())
		serveErr = p.ServeStdio(ctx, os.Stdin, stdout)
		stdout = stderr // stdout is the client's: the summary goes to stderr
	} else {
		var lc net.ListenConfig
		ln, err := lc.Listen(ctx, "tcp", pf.Listen)
		if err != nil {
			p.Close()
			abort()
			fmt.Fprintf(stderr, "mcpchaos proxy: listen on %q: %v\n", pf.Listen, err)
			return exitUsage
		}
		fmt.Fprintf(stderr, "mcpchaos proxy: listening on http://%s/mcp (HTTP+SSE clients: http://%[1]s/sse), forwarding to %s (interrupt to stop)\n", ln.Addr(), p.Upstream())
		serveErr = p.Serve(ctx, ln)
	}
	return finishProxy(p, f, out, serveErr, stdout, stderr)
}

// loadProxy reads and checks the proxy file and builds the proxy; false
// when it cannot (the problems are on stderr).
func loadProxy(ctx context.Context, file string, f *proxyFlags, stderr io.Writer) (*scenarios.ProxyFile, *proxy.Proxy, bool) {
	pf, err := scenarios.LoadProxy(file)
	if err != nil {
		printProblems(stderr, "", file, err)
		return nil, nil, false
	}
	redact.FromContext(ctx).Merge(pf.Secrets) // before anything about the file is printed
	p, err := proxy.New(pf)
	if err != nil {
		printProblems(stderr, "", file, err)
		return nil, nil, false
	}
	if err := checkOverwrites([]fileUse{{"the proxy file", file}},
		[]fileUse{{"--output", f.output}, {"--summary-json", f.summaryJSON}}); err != nil {
		fail(stderr, "proxy", err)
		return nil, nil, false
	}
	return pf, p, true
}

// finishProxy writes the summary (text on stdout, JSON to --summary-json)
// and closes --output once the proxy has stopped; it returns proxy's exit
// status.
func finishProxy(p *proxy.Proxy, f *proxyFlags, out io.WriteCloser, serveErr error, stdout, stderr io.Writer) int {
	code := exitOK
	if serveErr != nil {
		code = fail(stderr, "proxy", runError(serveErr))
	}
	sum := p.Summary()
	if err := report.WriteProxyText(stdout, sum); err != nil {
		code = fail(stderr, "proxy", runError(err))
	}
	if f.summaryJSON != "" {
		if err := writeJSONFile(f.summaryJSON, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(sum)
		}); err != nil {
			code = fail(stderr, "proxy", runError(err))
		}
	}
	if out != nil {
		p.SetOutput(nil) // a handler still ending after the stop writes nothing to a closed file
		if err := p.OutputErr(); err != nil {
			code = fail(stderr, "proxy", runError(fmt.Errorf("--output %q: %w", f.output, err)))
		}
		if err := out.Close(); err != nil {
			code = fail(stderr, "proxy", runError(fmt.Errorf("write %q: %w", f.output, err)))
		}
	}
	return code
}

// writeJSONFile writes path through write, buffered.
func writeJSONFile(path string, write func(io.Writer) error) error {
	fh, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write %q: %w", path, err)
	}
	bw := bufio.NewWriter(fh)
	if err := write(bw); err != nil {
		fh.Close()
		return fmt.Errorf("write %q: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		fh.Close()
		return fmt.Errorf("write %q: %w", path, err)
	}
	if err := fh.Close(); err != nil {
		return fmt.Errorf("write %q: %w", path, err)
	}
	return nil
}
